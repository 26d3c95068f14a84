/**
 * `wireguard`: interface/wireguard and interface/wireguard/peers in one run → routeros_wireguard_*.
 * Always with .proplist: private-key and preshared-key are never asked for.
 */
import type { HealthConfig, RouterConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { routerListHead } from '../routeros/decode.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { escapeLabelValue } from '../metrics/text.js';
import { WIREGUARD, WIREGUARD_FAMILIES as F } from './wireguard.contract.js';
import { handshakeExpectedBy, judgePeer, peerLabel } from '../analysis/peer.js';
import { FieldReader, given, problemsOf } from '../analysis/decoding.js';
import { handshakeAgeAt, MIN_COUNTER_WINDOW_SECONDS, PROBE_SKIP_REASONS, probeAgeAt, type ProbeOutcome } from '../analysis/liveness.js';
import { cronIntervalSeconds } from '../config/cron.js';
import {
  ADDRESS_PROPLIST,
  ALLOWED_ADDRESSES_READ,
  PROBE_CONCURRENCY,
  PROBE_INTERVAL_MS,
  PROBES_PER_RUN,
  mayProbe,
  planProbesSteps,
  probeKey,
  probeKeyInterface,
  rememberProbesSteps,
  runProbes,
  wantsProbesSteps,
  type ProbeMemory,
  type ProbeResult,
} from './wireguard-probe.js';
import type { Collector, JobContext, JobResult, OptionalRead } from './types.js';
import { readUnlessFailed } from './optional-read.js';
import { CounterMemory } from './wireguard-counters.js';
import type { KeptPeers } from './wireguard-peers.js';
import { believedBootSteps, graceWithoutKeepalive, readBoot, uptimeWantedSteps, youngRestartSeconds } from './wireguard-boot.js';
import { quoteRouterText } from '../util/text.js';
import { finish, finishInSlices, type Steps } from '../util/slices.js';
import { chosenTwinRowsSteps, type RowOrder } from '../analysis/twin-rows.js';

/** A peer as verdicts read it: defined with the table that keeps it, re-exported for the collector's readers. */
export type { WireguardPeer } from './wireguard-peers.js';

/**
 * What makes a record a WireGuard interface or a peer (FieldReader.keyed). A name alone does not: a just-booted
 * router answered its /user list for every menu, read as an interface named after a user (found by review). Every
 * WireGuard interface has its public key (and the proplist asks for it).
 */
const INTERFACE_KEYS = ['name', 'public-key'] as const;
const PEER_KEYS = ['interface', 'public-key'] as const;

export const INTERFACE_PROPLIST = ['.id', 'name', 'public-key', 'listen-port', 'mtu', 'running', 'disabled', 'comment'] as const;
export const PEER_PROPLIST = [
  '.id',
  'interface',
  'public-key',
  'name',
  'comment',
  'endpoint-address',
  'endpoint-port',
  'current-endpoint-address',
  'current-endpoint-port',
  'allowed-address',
  'rx',
  'tx',
  'last-handshake',
  'persistent-keepalive',
  'disabled',
] as const;

export interface WireguardInterface {
  name: string;
  publicKey: string;
  running: boolean | undefined;
  disabled: boolean;
  /**
   * Whether it runs cannot be told: its running or disabled did not decode, or another interface writes out as
   * the same name (`wg\r`, `wg\t`). Not ok (degraded), never down; its peers are not judged.
   */
  unclear: boolean;
  listenPort: number | undefined;
}

export interface WireguardData {
  collectedAt: number;
  interfaces: WireguardInterface[];
  /** One row per distinct peer, in the reply's order (wireguard-peers.ts). */
  peers: KeptPeers;
  /**
   * When the router started (Unix seconds), read only when a peer had no handshake: such a peer is due from the boot
   * (analysis/liveness.ts). Undefined when not read, or not believed (below).
   */
  bootedAt: number | undefined;
  /**
   * Indices (into `peers`) of the peers judged from the boot: no handshake (readable as none), a keepalive or a link
   * declared always up (what makes a branch try again within its bound), and not a problem in the run before.
   * Undefined when none.
   */
  fromBoot: Set<number> | undefined;
}

/** The verdict settings a wireguard run judges peers by, as data (a pattern counts by its text). */
function verdictSettings(settings: HealthConfig): unknown[] {
  const pattern = settings.excludePeerPattern;
  return [
    settings.handshakeStaleAfterSeconds,
    settings.pingLossCritical,
    // A set of peers: its order means nothing.
    [...settings.excludePeers].sort(),
    pattern === undefined ? null : [pattern.source, pattern.flags],
    settings.expect ?? null,
    settings.probeTunnels ?? 'auto',
    settings.probe ?? null,
    settings.probeCount ?? 1,
  ];
}

const OFF: ProbeResult = { outcome: 'off' };

/**
 * routeros_wireguard_probe_skipped_peers: per interface where the settings select some peer, how many selected
 * peers went unprobed, by reason (0 included, so a fixed address clears it); nothing elsewhere.
 */
function* addSkipped(samples: SampleSet, routerLabel: RouterLabel, probes: ReadonlyMap<string, ProbeResult>): Steps<void> {
  // By the name as written out (its first spelling kept for the label): two names that differ only in
  // characters the format cannot carry (`wg\r`, `wg\t`) are one label value, so one series, as their peers are.
  const byInterface = new Map<string, { iface: string; counts: Map<ProbeOutcome, number> }>();
  let index = 0;
  for (const [key, { outcome }] of probes) {
    if (++index % RECORDS_PER_STEP === 0) yield;
    if (outcome === 'off') continue;
    const iface = probeKeyInterface(key);
    const identity = escapeLabelValue(iface);
    let group = byInterface.get(identity);
    if (group === undefined) {
      group = { iface, counts: new Map<ProbeOutcome, number>() };
      byInterface.set(identity, group);
    }
    group.counts.set(outcome, (group.counts.get(outcome) ?? 0) + 1);
  }
  for (const { iface, counts } of byInterface.values()) {
    for (const reason of PROBE_SKIP_REASONS) samples.add(F.wgProbeSkipped, seriesLabels(F.wgProbeSkipped, routerLabel, [iface, reason]), counts.get(reason) ?? 0);
  }
}

function endpointOf(record: RouterRecord): string {
  const current = record['current-endpoint-address'] ?? '';
  if (current !== '') return joinHostPort(current, record['current-endpoint-port']);
  const configured = record['endpoint-address'] ?? '';
  return configured === '' ? '' : joinHostPort(configured, record['endpoint-port']);
}

function joinHostPort(host: string, port: string | undefined): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return port === undefined || port === '' || port === '0' ? shown : `${shown}:${port}`;
}

/** What names a peer's row beyond its identity, and its traffic: which of two rows of one peer is exported (twin-rows.ts). */
const PEER_ROWS: RowOrder = {
  identityKeys: ['name', 'comment', 'endpoint-address', 'endpoint-port', 'allowed-address', 'persistent-keepalive', 'disabled'],
  trafficKeys: ['rx', 'tx'],
};

/** Records (interfaces, peers, their identities) handled between two places where the mapping may give the event loop back. */
const RECORDS_PER_STEP = 256;

/** The values that occur more than once. */
function* twins(values: readonly string[]): Steps<Set<string>> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (let index = 0; index < values.length; index++) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const value = values[index] as string;
    if (seen.has(value)) twice.add(value);
    else seen.add(value);
  }
  return twice;
}

/** The peers of a reply by their identity as written out (wireguard.ts: interface, then public key). */
interface PeerListings {
  /** Each record's interface and key as written out, by its index. */
  interfaces: string[];
  keys: string[];
  /** How many records list each identity, by interface, then key. */
  counts: Map<string, Map<string, number>>;
  /** Whether some identity is listed more than once. */
  twins: boolean;
}

/**
 * The peers' identities, counted. By interface and then key rather than as one `interface="…",public_key="…"`
 * string per peer: those strings, made every run for every peer, were a good part of a run's garbage.
 */
function* peerListings(peers: readonly RouterRecord[]): Steps<PeerListings> {
  // Sized once: grown by pushing, each array was copied again at every growth on the way to 1,000 peers.
  const listings: PeerListings = { interfaces: new Array<string>(peers.length), keys: new Array<string>(peers.length), counts: new Map(), twins: false };
  for (let index = 0; index < peers.length; index++) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const record = peers[index] as RouterRecord;
    const iface = escapeLabelValue(record['interface'] as string);
    const key = escapeLabelValue(record['public-key'] as string);
    listings.interfaces[index] = iface;
    listings.keys[index] = key;
    let byKey = listings.counts.get(iface);
    if (byKey === undefined) {
      byKey = new Map();
      listings.counts.set(iface, byKey);
    }
    const count = (byKey.get(key) ?? 0) + 1;
    byKey.set(key, count);
    if (count > 1) listings.twins = true;
  }
  return listings;
}

/**
 * Pure mapping of the two replies to samples; `now` is Unix ms. `memory` (the job's, kept across runs) carries
 * each peer's rx/tx of the previous run (wireguard-counters.ts), so the verdict knows whether traffic moved.
 * `bootedAt` (Unix seconds), when the run read the uptime: a peer without a handshake is due from then.
 */
export function mapWireguard(...args: Parameters<typeof mapWireguardSteps>): JobResult<WireguardData> {
  return finish(mapWireguardSteps(...args));
}

/** mapWireguard as steps (util/slices.ts): a router may list tens of thousands of peers. */
export function* mapWireguardSteps(
  interfaces: readonly RouterRecord[],
  peers: readonly RouterRecord[],
  routerLabel: RouterLabel,
  health: HealthConfig,
  now: number,
  memory?: Map<string, number>,
  probes?: ReadonlyMap<string, ProbeResult>,
  bootedAt?: number,
  /**
   * The router's start could not be read (the read failed, or was not made), as against read and not believed (a
   * restart loop, an uptime that lies): only the first says nothing of a peer. By default, no start is an unread one.
   */
  startUnread = bootedAt === undefined,
  /**
   * When the replies were read on the monotonic clock (performance.now() ms; the job: JobContext.elapsed): how long
   * the counter window is, whether rx that grew can have been an answer (analysis/liveness.ts rxUnansweredAt).
   * Not given: no window (rx growth counts as an answer, as before the rule), never the wall clock `now`, which a
   * clock stepped back would shrink to a window of 0 (found by review). The job always gives it.
   */
  readElapsed?: number,
  /**
   * The shortest counter window movement is told from; a shorter one carries the previous run's (CounterMemory). The
   * job gives the daemon's (MIN_COUNTER_WINDOW_SECONDS) or `check`'s 0; by default 0, every window judged.
   */
  minCounterWindowSeconds = 0,
): Steps<JobResult<WireguardData>> {
  const read = new FieldReader('interface/wireguard');
  const samples = new SampleSet();
  const data: WireguardData = { collectedAt: now, interfaces: [], peers: [], bootedAt, fromBoot: undefined };
  const seenInterfaces = new Set<string>();
  // By the name as written out, which is how peers find their interface's state below.
  const unclearInterfaces = new Set<string>();
  const keyedInterfaces = yield* read.keyedSteps(interfaces, INTERFACE_KEYS);
  const written: string[] = [];
  // The names as the router wrote them, to find a peer's interface without writing its name out first.
  const listedNames = new Set<string>();
  for (const record of keyedInterfaces) {
    if (written.length % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    written.push(escapeLabelValue(record['name'] as string));
    listedNames.add(record['name'] as string);
  }
  const listedInterfaces = new Set(written);
  const twinInterfaces = yield* twins(written);

  for (const [index, record] of keyedInterfaces.entries()) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const name = record['name'] as string;
    // Unique as written out: names that differ only in what the format cannot carry come out alike.
    const labels = seriesLabels(F.wgInterfaceRunning, routerLabel, [name]);
    if (seenInterfaces.has(labels)) continue;
    seenInterfaces.add(labels);
    const identity = escapeLabelValue(name);
    const publicKey = record['public-key'] ?? '';
    const readRunning = read.bool(record, 'running');
    const readDisabled = read.bool(record, 'disabled');
    // Whether it runs must have been read. A disabled flag that did not decode leaves that open unless it runs
    // (a running interface is enabled); a twin's state is not this one's.
    const twin = twinInterfaces.has(identity);
    if (twin) read.problem(() => `interfaces ${quoteRouterText(name, 40)} and another write out as one name; neither is judged`);
    // (A disabled interface is not judged, so whether it runs does not matter then.) Left out, `running` is as unread
    // as when it does not decode: RouterOS writes it on every interface the proplist asks it of (every capture), and an
    // enabled interface without it was called running, `check` OK (found by a hostile tester).
    const runningLeftOut = readDisabled !== true && !given(record, 'running');
    if (runningLeftOut) read.problem(() => `interface ${quoteRouterText(name, 40)}: no running given; whether it runs is not judged`);
    const unclear =
      twin ||
      (readDisabled !== true && readRunning === undefined) ||
      (readDisabled === undefined && given(record, 'disabled') && readRunning !== true);
    if (unclear) unclearInterfaces.add(identity);
    const disabled = readDisabled ?? false;
    const running = unclear ? undefined : readRunning;
    const listenPort = read.port(record, 'listen-port');
    const mtu = read.mtu(record, 'mtu');
    samples.addExtended(F.wgInterfaceInfo, labels, [publicKey], 1);
    if (readRunning !== undefined && !twin) samples.add(F.wgInterfaceRunning, labels, readRunning ? 1 : 0);
    if (!twin && (readDisabled !== undefined || !given(record, 'disabled'))) samples.add(F.wgInterfaceDisabled, labels, disabled ? 1 : 0);
    if (listenPort !== undefined) samples.add(F.wgInterfaceListenPort, labels, listenPort);
    if (mtu !== undefined) samples.add(F.wgInterfaceMtu, labels, mtu);
    data.interfaces.push({ name, publicKey, running, disabled: unclear ? false : disabled, unclear, listenPort });
  }

  // In steps as the rest: a reply may list up to a million interfaces (900,000 took one task of 0.9 s here).
  const disabledInterfaces = new Set<string>();
  const stoppedInterfaces = new Set<string>();
  for (const [index, iface] of data.interfaces.entries()) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    if (iface.disabled) disabledInterfaces.add(iface.name);
    else if (iface.running === false) stoppedInterfaces.add(iface.name);
  }
  const peerRead = new FieldReader('interface/wireguard/peers');
  const nowSeconds = now / 1000;
  const keyedPeers = yield* peerRead.keyedSteps(peers, PEER_KEYS);
  const counters = new CounterMemory(memory, keyedPeers.length, readElapsed, now, minCounterWindowSeconds);
  // Identity is (interface, public key) as written out; a repeated one would make duplicate series, which
  // Prometheus rejects. RouterOS keeps keys unique per interface, so twins are a reply that cannot be judged.
  const listings = yield* peerListings(keyedPeers);
  // Of a peer listed twice, the row whatever the reply's order: the first listed made rx and tx flip between the
  // two rows' from run to run, a counter reset each time (found by a hostile tester). Identities as written out.
  const chosen = listings.twins
    ? yield* chosenTwinRowsSteps(keyedPeers, (_, index) => `${listings.interfaces[index] as string}\u0000${listings.keys[index] as string}`, PEER_ROWS, RECORDS_PER_STEP)
    : undefined;
  // An index, not entries(): in a generator each [index, record] pair and iterator step is an object per peer.
  for (let index = 0; index < keyedPeers.length; index++) {
    if (index % RECORDS_PER_STEP === RECORDS_PER_STEP - 1) yield;
    const record = keyedPeers[index] as RouterRecord;
    const iface = record['interface'] as string;
    const publicKey = record['public-key'] as string;
    // How often the reply lists the peer, marked once exported (negative): of twins, only the chosen row is
    // exported (and not judged), once (a reply may list one record object twice).
    const byKey = listings.counts.get(listings.interfaces[index] as string) as Map<string, number>;
    const writtenKey = listings.keys[index] as string;
    const listed = byKey.get(writtenKey) as number;
    if (listed < 0) continue;
    const twin = listed > 1;
    if (twin && chosen?.rows.has(record) !== true) continue;
    byKey.set(writtenKey, -listed);
    if (twin) peerRead.problem(() => `peers with key ${quoteRouterText(publicKey, 12)} on ${quoteRouterText(iface, 40)} write out as one; not judged`);
    const comment = record['comment'];
    const name = peerLabel(record['name'], comment);
    const labels = seriesLabels(F.wgPeerRx, routerLabel, [iface, publicKey, name]);
    const readDisabled = peerRead.bool(record, 'disabled');
    const disabled = readDisabled ?? false;
    const rx = peerRead.counter(record, 'rx');
    const tx = peerRead.counter(record, 'tx');
    // Bounded by the era: an age that would put the handshake before 2015 is unreadable, not a time near 0 ("never").
    const age = peerRead.age(record, 'last-handshake', nowSeconds);
    const hasBadHandshake = given(record, 'last-handshake') && age === undefined;
    const endpoint = endpointOf(record);
    const allowed = routerListHead(record['allowed-address'] ?? '', ALLOWED_ADDRESSES_READ);
    if (allowed.more) peerRead.problem(() => `peer ${quoteRouterText(publicKey, 12)}: allowed-address lists more than ${ALLOWED_ADDRESSES_READ} entries; its label holds the first ${ALLOWED_ADDRESSES_READ}`);
    const allowedAddress = allowed.items;
    const movement = counters.moved(iface, publicKey, rx, tx);
    const { rxMoved, txMoved, rxMovedUnknown, txMovedUnknown } = movement;
    const latestHandshake = counters.stableHandshake(age === undefined ? undefined : Math.round(nowSeconds - age));
    // Decided here, once, from the age as the router gave it and the window (CounterMemory.windowSeconds): /health and the
    // verdict log read the bits (wireguard-peers.ts). Not told when rx growth or the handshake cannot be.
    const rxUnanswered = counters.rxUnanswered(movement, age, hasBadHandshake);
    const unansweredBefore = counters.unansweredBefore();
    const readKeepalive = peerRead.value('keepalive', record, 'persistent-keepalive');
    const keepaliveSeconds = readKeepalive ?? 0;
    // What the verdict rests on must have been read, not defaulted: "25 s" taken as no keepalive makes a down
    // peer idle. (Absent fields are RouterOS's defaults: enabled, no keepalive.)
    // A peer whose interface the interface list does not hold: whether that runs, or is disabled, cannot be told,
    // and was taken as enabled and running (a dead site link judged idle, `check` OK; found by a hostile tester).
    const unlisted = !listedNames.has(iface) && !listedInterfaces.has(escapeLabelValue(iface));
    if (unlisted) peerRead.problem(() => `peer ${quoteRouterText(publicKey, 12)} is on ${quoteRouterText(iface, 40)}, which interface/wireguard does not list; not judged`);
    const factsUnreadable =
      twin ||
      unlisted ||
      (readDisabled === undefined && given(record, 'disabled')) ||
      (readKeepalive === undefined && given(record, 'persistent-keepalive')) ||
      (unclearInterfaces.size > 0 && unclearInterfaces.has(escapeLabelValue(iface)));
    const hasEndpoint = (record['endpoint-address'] ?? '') !== '';
    // With probes given, an enabled peer they do not name was not selected: `off`.
    // (No key is built when nothing was probed: a fleet's default costs no string per peer.)
    const probed = probes === undefined || disabled || disabledInterfaces.has(iface) ? undefined : probes.size === 0 ? OFF : probes.get(probeKey(iface, publicKey)) ?? OFF;
    const probe = probed?.outcome;
    // When the probe ran: this run, or a run before whose result this one reused (wireguard-probe.ts).
    const probeRan = probe === 'ok' || probe === 'partial' || probe === 'failed';
    const probedAt = probeRan ? (probed?.at ?? now) : undefined;
    const probeAgeSeconds = probedAt === undefined ? 0 : probeAgeAt(now, probedAt);
    // Due from the router's start only for a peer that would make its next handshake on its own (a keepalive here, or
    // a link declared always up, which the far end keeps), and was no problem before: a peer down before a reboot was
    // called recovered by it (found by review).
    const graceable = latestHandshake === undefined && !hasBadHandshake && (keepaliveSeconds > 0 || graceWithoutKeepalive(record, health));
    const fromBoot = graceable && bootedAt !== undefined && !counters.wasBad();
    const upSeconds = fromBoot ? Math.max(0, now / 1000 - bootedAt) : undefined;
    // One literal of one shape, every field given: spreads made two more objects per peer and run.
    const verdict = judgePeer(
      {
        name,
        comment,
        interface: iface,
        disabled,
        // The written time's age, as /health reckons it (one instant, one verdict), not the age read.
        handshakeAgeSeconds: latestHandshake === undefined ? age : handshakeAgeAt(now, latestHandshake),
        handshakeUnreadable: hasBadHandshake,
        factsUnreadable,
        interfaceDisabled: disabledInterfaces.has(iface),
        interfaceNotRunning: stoppedInterfaces.has(iface),
        keepaliveSeconds,
        hasEndpoint,
        rxMoved,
        txMoved,
        rxUnanswered,
        unansweredBefore,
        rxMovedUnknown,
        txMovedUnknown,
        upSeconds,
        probe,
        probeAgeSeconds: probe === undefined ? undefined : probeAgeSeconds,
      },
      health,
    );

    samples.addExtended(F.wgPeerInfo, labels, [endpoint, allowedAddress.join(',')], 1);
    if (rx !== undefined) samples.add(F.wgPeerRx, labels, rx);
    if (tx !== undefined) samples.add(F.wgPeerTx, labels, tx);
    // An undecodable handshake is left out rather than reported as "never" (0), which would be a lie.
    if (!hasBadHandshake) samples.add(F.wgPeerHandshake, labels, latestHandshake ?? 0);
    if (readDisabled !== undefined || !given(record, 'disabled')) samples.add(F.wgPeerDisabled, labels, disabled ? 1 : 0);
    // Off (0) for most road warriors: no series then, rather than a zero per peer (issue 14).
    if (keepaliveSeconds > 0) samples.add(F.wgPeerKeepalive, labels, keepaliveSeconds);
    if (probeRan) {
      samples.add(F.wgPeerProbe, labels, probe === 'failed' ? 0 : 1);
      if (probed?.lossRatio !== undefined) samples.add(F.wgPeerProbeLoss, labels, probed.lossRatio);
      if (probed?.rttSeconds !== undefined) samples.add(F.wgPeerProbeRtt, labels, probed.rttSeconds);
    }
    // A peer this run could not give its grace for want of the router's start (the uptime read failed) keeps what
    // was known of it before: one failed read made a branch in its grace "bad before" for good, and it paged until it
    // shook hands (found by review). A start read and not believed is no such want: a branch dead through a refused
    // restart loop kept "not bad" for hours, and the next believed restart called it healthy (found by review).
    counters.noteBad(graceable && startUnread ? counters.wasBad() : verdict.judged && !verdict.healthy);
    if (fromBoot) (data.fromBoot ??= new Set()).add(counters.row);
    if (verdict.judged) samples.add(F.wgPeerHealthy, labels, verdict.healthy ? 1 : 0);
    samples.addExtended(F.wgPeerState, labels, [verdict.state], 1);
    const expectedBy = handshakeExpectedBy(verdict, latestHandshake, probe, probedAt, bootedAt);
    if (expectedBy !== undefined) samples.add(F.wgPeerExpectedBy, labels, expectedBy);
    // Kept for every peer until the next run, as a row of the run's table (wireguard-peers.ts).
    counters.describe({
      name,
      comment,
      disabled,
      handshakeUnreadable: hasBadHandshake,
      factsUnreadable,
      keepaliveSeconds,
      hasEndpoint,
      rxMoved,
      txMoved,
      rxMovedUnknown,
      txMovedUnknown,
      rxUnanswered,
      unansweredBefore,
      probe,
      probedAt,
      probeRttSeconds: probed?.rttSeconds,
      probeLossRatio: probed?.lossRatio,
    });
  }
  if (probes !== undefined) yield* addSkipped(samples, routerLabel, probes);
  data.peers = counters.finish();
  return { samples, data, ...problemsOf(read, peerRead) };
}

/** The most a run's reads take without probes: two requests in a row and the uptime, each with the router's timeout. */
export function wireguardReadsSeconds(router: RouterConfig): number {
  return router.timeoutSeconds * 3;
}

/**
 * Two requests in a row, and the uptime when a peer has no handshake, each with the router's timeout; with probes
 * possible, the address list and the probe rounds (PROBES_PER_RUN, PROBE_CONCURRENCY at a time, each its timeout
 * plus its pings' time, twice for a lone ping that was lost) too.
 */
function deadlineSeconds(router: RouterConfig): number {
  if (!mayProbe(router.health)) return wireguardReadsSeconds(router);
  const count = router.health.probeCount ?? 1;
  // A lone ping that was lost is probed once more (wireguard-probe.ts).
  const rounds = Math.ceil(PROBES_PER_RUN / PROBE_CONCURRENCY) * (count === 1 ? 2 : 1);
  return router.timeoutSeconds * (4 + rounds) + (rounds * count * PROBE_INTERVAL_MS) / 1000;
}

export const wireguardCollector: Collector<WireguardData, 'wireguard'> = {
  ...WIREGUARD,
  name: 'wireguard',
  jobs: (router) => [
    {
      collector: 'wireguard',
      job: 'wireguard',
      schedule: router.schedules.wireguard,
      deadlineSeconds: deadlineSeconds(router),
      connection: 'reads',
      // Peer verdicts are made inside the run, from the health settings.
      settings: verdictSettings(router.health),
      async run(context: JobContext) {
        const options = { signal: context.signal };
        // Sequential on purpose: real routers answer slower under parallel REST calls.
        const interfaces = await context.client.list('interface/wireguard', { ...options, proplist: INTERFACE_PROPLIST });
        const peers = await context.client.list('interface/wireguard/peers', { ...options, proplist: PEER_PROPLIST });
        // The peers' handshake ages are as of this reply: times are reckoned from now, not from after the probes,
        // which take seconds (a review found every handshake timestamp later by the probes' time).
        const readAt = context.now();
        // The same moment on the monotonic clock: the counter window's length (mapWireguardSteps readElapsed).
        const readElapsed = context.elapsed?.() ?? performance.now();
        const health = context.router.health;
        const memory: ProbeMemory = { memory: context.memory, now: readAt, minGapMs: cronIntervalSeconds(context.router.schedules.wireguard) * 500 };
        const probeRead = new FieldReader('ping (tunnel probe)');
        const optionalReads: OptionalRead[] = [];
        let probes = new Map<string, ProbeResult>();
        let selected = new Set<string>();
        // Settings that select no peer cost nothing: no address list, no ping (a fleet's default).
        if (mayProbe(health) && (await finishInSlices(wantsProbesSteps(interfaces, peers, health), options))) {
          // Undefined when the read failed (optional-read.ts): it only picks the probes' sources.
          const addresses = await readUnlessFailed(context, () => context.client.list('ip/address', { ...options, proplist: ADDRESS_PROPLIST }), "the tunnel probes' source addresses (ip/address)", optionalReads);
          const plan = await finishInSlices(planProbesSteps(interfaces, peers, addresses ?? [], health, memory), options);
          selected = plan.selected;
          // Without the address list no probe has a source: each selected one is an error (reported, not judged), and
          // the peers are judged by their handshakes, as without probes.
          if (addresses === undefined) for (const [key, result] of plan.skipped) if (result.outcome === 'no_source_address') plan.skipped.set(key, { outcome: 'error' });
          const run = (command: string, parameters: Readonly<Record<string, unknown>>, o: { signal: AbortSignal; timeoutMs?: number }): Promise<unknown> => context.client.run(command, parameters, o);
          const fresh = await runProbes(run, plan.targets, { count: health.probeCount ?? 1, timeoutMs: context.router.timeoutSeconds * 1000, read: probeRead }, context.signal);
          // The plan's results (up to every peer), then the probes' (a few) added to them: not copied into a new map.
          probes = plan.skipped;
          for (const [key, result] of fresh) probes.set(key, result);
          await finishInSlices(rememberProbesSteps(memory, fresh, selected), options);
        } else {
          await finishInSlices(rememberProbesSteps(memory, probes, selected), options);
        }
        const uptimeRead = new FieldReader('system/resource');
        const longestBound = await finishInSlices(uptimeWantedSteps(peers, health), options);
        const boot = longestBound > 0 ? await readBoot(context, uptimeRead, optionalReads) : undefined;
        const youngSeconds = youngRestartSeconds(cronIntervalSeconds(context.router.schedules.wireguard), longestBound);
        const bootedAt = await finishInSlices(believedBootSteps(boot, readAt, peers, context.memory, youngSeconds, readElapsed), options);
        const minWindow = context.minCounterWindowSeconds ?? MIN_COUNTER_WINDOW_SECONDS;
        const result = await finishInSlices(mapWireguardSteps(interfaces, peers, context.routerLabel, health, readAt, context.memory, probes, bootedAt, boot === undefined, readElapsed, minWindow), { signal: context.signal });
        const probeProblems = problemsOf(probeRead, uptimeRead);
        return {
          ...result,
          problems: [...result.problems, ...probeProblems.problems].slice(0, 20),
          decodeErrors: result.decodeErrors + probeProblems.decodeErrors,
          ...(optionalReads.length > 0 ? { optionalReads } : {}),
        };
      },
    },
  ],
};
