/**
 * Data-plane probes for the wireguard job: one `POST /ping` from the router through the tunnel (`interface=`
 * the peer's interface, `src-address=` that interface's address, `count=` health.probe_count, 1–3) to the
 * peer's tunnel address. Which peers: `health.probe` names them (peer over interface), else
 * `health.probe_tunnels` decides — `auto` (the default) those declared `expect: always`, `true` every peer
 * expected up, `false` none (probeSelected). At most PROBE_CONCURRENCY at once per router (RouterOS CPUs are
 * small) and PROBES_PER_RUN per run; one probe per peer per run, and none again within half the job's interval
 * (a reload's or a start's extra run reuses the last result). A handshake says the keys match; only a probe says
 * traffic passes (allowed-address and routes right).
 */
import type { HealthConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { keepaliveOff, routerListHead, saysTrue } from '../routeros/decode.js';
import { expectOf, peerLabel, probeSettingOf } from '../analysis/peer.js';
import { PROBE_OUTCOMES } from '../analysis/liveness.js';
import { peerKey } from './wireguard-peers.js';
import { readProbeReply, readProbeReplySteps, type ProbeResult } from './wireguard-probe-reply.js';
import { finish, finishInSlices, type Steps } from '../util/slices.js';
import { parseIpv4, parseIpv4Prefix, type Ipv4Prefix } from '../analysis/ipv4.js';
import { usable } from '../analysis/setup-routes.js';

export { readProbeReply, type ProbeResult } from './wireguard-probe-reply.js';

/**
 * Entries of a peer's allowed-address read at most (for its tunnel address here, for its label in wireguard.ts).
 * A peer has a handful; 2 million in one 30 MB field took ~2 s to split (a hostile-router review).
 */
export const ALLOWED_ADDRESSES_READ = 1_000;

export const PROBE_CONCURRENCY = 2;
export const PROBES_PER_RUN = 16;
/** Between the pings of one probe (count > 1): a probe of 3 lasts 0.6 s, not RouterOS's default 3 s. */
export const PROBE_INTERVAL_MS = 200;
export const ADDRESS_PROPLIST = ['address', 'interface', 'disabled', 'invalid'] as const;

export interface ProbeTarget {
  /** `interface|public-key`: the peer's identity in the run. */
  key: string;
  address: string;
  interface: string;
  src: string;
}

/** One peer's key in the probe results (peerKey). */
export const probeKey = peerKey;

/** The interface name a probeKey was made of. */
export function probeKeyInterface(key: string): string {
  const colon = key.indexOf(':');
  return key.slice(colon + 1, colon + 1 + Number(key.slice(0, colon)));
}

const IPV4_HOST = /^(\d{1,3}(?:\.\d{1,3}){3})\/32$/;

/**
 * Whether the settings ask for the peer to be probed: its `health.probe` entry (name or comment, then
 * interface); else `probe_tunnels` — `off` none, `auto` only `expect: always`, `on` also peers expected up by
 * their keepalive (what `probe_tunnels: true` always meant).
 */
export function probeSelected(peer: RouterRecord, health: HealthConfig): boolean {
  const iface = peer['interface'] ?? '';
  const who = { name: peerLabel(peer['name'], peer['comment']), comment: peer['comment'], interface: iface };
  const own = probeSettingOf(who, health);
  if (own !== undefined) return own;
  const fallback = health.probeTunnels ?? 'auto';
  if (fallback === 'off') return false;
  const mode = expectOf(who, health);
  return mode === 'always' || (fallback === 'on' && mode === 'auto' && !keepaliveOff(peer['persistent-keepalive']));
}

/** Whether any peer could be probed under these settings: if not, the job reads no addresses and pings nothing. */
export function mayProbe(health: HealthConfig): boolean {
  if (health.probeTunnels === 'on' || Object.values(health.probe ?? {}).includes(true)) return true;
  return health.probeTunnels !== 'off' && Object.values(health.expect ?? {}).includes('always');
}

/** Peers (or memory entries) handled between two places where a probe run's bookkeeping may pause. */
const PEERS_PER_STEP = 256;

/** The enabled interfaces' names, in steps: a reply may list hundreds of thousands. */
function* liveSteps(interfaces: readonly RouterRecord[]): Steps<Set<string>> {
  const names = new Set<string>();
  for (const [index, row] of interfaces.entries()) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    if (!saysTrue(row['disabled'])) names.add(row['name'] ?? '');
  }
  return names;
}

/** Peers the settings select, enabled and on an enabled interface: the job reads /ip/address only when there are any. */
export function wantsProbes(interfaces: readonly RouterRecord[], peers: readonly RouterRecord[], health: HealthConfig): boolean {
  return finish(wantsProbesSteps(interfaces, peers, health));
}

/**
 * wantsProbes as steps, a pause possible every 256 interfaces or peers: it runs before the paced mapping, and 900,000
 * interfaces with 600,000 peers held the event loop for 0.6–1.5 s in one task (found by review).
 */
export function* wantsProbesSteps(interfaces: readonly RouterRecord[], peers: readonly RouterRecord[], health: HealthConfig): Steps<boolean> {
  if (!mayProbe(health)) return false;
  const enabled = yield* liveSteps(interfaces);
  for (const [index, peer] of peers.entries()) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    if (!saysTrue(peer['disabled']) && enabled.has(peer['interface'] ?? '') && probeSelected(peer, health)) return true;
  }
  return false;
}

/**
 * Job memory keys of a probed peer: when it was probed, its last rtt and loss (NaN: none), and its outcome (an index
 * of PROBE_OUTCOMES). The outcome is kept as it was, not worked out again from the loss: a lone ping lost and
 * answered on its retry is `ok` with a loss of 0.5, and read back from the loss it stood as `partial` (/health
 * degraded, 503) in every run that reused it (found by review).
 */
const AT = 'probe@ ';
const RTT = 'probe~ ';
const LOSS = 'probe% ';
const OUTCOME = 'probe! ';
export const PROBE_MEMORY_PREFIX = 'probe';

export interface ProbeMemory {
  memory: Map<string, number>;
  /** Unix ms of this run. */
  now: number;
  /** A peer probed less than this long ago is not probed again: its last result stands. */
  minGapMs: number;
}

/**
 * Whether a result that ran at `at` (Unix ms) can stand at no run from this one on: it is as old as the gap. (One
 * from ahead of now, the clock stepped back since, does not stand now and may once the clock is past it.)
 */
function expired(memory: ProbeMemory, at: number): boolean {
  return memory.now - at >= memory.minGapMs;
}

function remembered(memory: ProbeMemory | undefined, key: string): ProbeResult | undefined {
  const at = memory?.memory.get(AT + key);
  if (memory === undefined || at === undefined || expired(memory, at) || memory.now < at) return undefined;
  const outcome = PROBE_OUTCOMES[memory.memory.get(OUTCOME + key) ?? -1];
  const loss = memory.memory.get(LOSS + key) ?? NaN;
  const rtt = memory.memory.get(RTT + key) ?? NaN;
  // Only what a probe that ran can say; anything else is no result to stand on.
  if (outcome !== 'ok' && outcome !== 'partial' && outcome !== 'failed' && outcome !== 'error') return undefined;
  // When it ran, not this run: what it proved ages from then (liveness.ts).
  return { outcome, ...(Number.isNaN(loss) ? {} : { lossRatio: loss }), ...(Number.isNaN(rtt) ? {} : { rttSeconds: rtt }), at };
}

/**
 * Keeps this run's results for the next runs, and forgets peers no longer probed and results too old to stand
 * again (no later run reads them; a router that reorders its peers each run got every peer probed once, and kept three
 * entries per peer of a hub for good: found by review). In steps, since the job's memory holds entries for every
 * peer (a hub lists tens of thousands).
 */
export function* rememberProbesSteps(memory: ProbeMemory, fresh: ReadonlyMap<string, ProbeResult>, keep: ReadonlySet<string>): Steps<void> {
  for (const [key, result] of fresh) {
    memory.memory.set(AT + key, memory.now);
    memory.memory.set(LOSS + key, result.lossRatio ?? NaN);
    memory.memory.set(RTT + key, result.rttSeconds ?? NaN);
    memory.memory.set(OUTCOME + key, PROBE_OUTCOMES.indexOf(result.outcome));
  }
  let index = 0;
  for (const name of memory.memory.keys()) {
    if (++index % PEERS_PER_STEP === 0) yield;
    if (!name.startsWith(PROBE_MEMORY_PREFIX)) continue;
    // The four prefixes are of one length; a result's entries go with its time (a missing time: gone too).
    const key = name.slice(AT.length);
    const at = memory.memory.get(AT + key);
    if (!keep.has(key) || at === undefined || expired(memory, at)) memory.memory.delete(name);
  }
}

/**
 * Which peers to probe now, and the result of every other enabled peer: the last one (probed too recently) or
 * why not — `off` (the settings do not select it), `no_tunnel_address` (no /32 IPv4 in allowed-address),
 * `no_source_address` (the interface has no IPv4 address), `over_cap` (past PROBES_PER_RUN). A peer listed
 * twice is probed once. `selected` holds the keys the settings select (their memory is kept).
 */
export function planProbes(
  interfaces: readonly RouterRecord[],
  peers: readonly RouterRecord[],
  addresses: readonly RouterRecord[],
  health: HealthConfig,
  memory?: ProbeMemory,
): ProbePlan {
  return finish(planProbesSteps(interfaces, peers, addresses, health, memory));
}

export interface ProbePlan {
  targets: ProbeTarget[];
  skipped: Map<string, ProbeResult>;
  selected: Set<string>;
}

/** planProbes as steps, a pause possible every 256 peers or addresses (600,000 peers were planned in one task of 2.1 s). */
export function* planProbesSteps(
  interfaces: readonly RouterRecord[],
  peers: readonly RouterRecord[],
  addresses: readonly RouterRecord[],
  health: HealthConfig,
  memory?: ProbeMemory,
): Steps<ProbePlan> {
  const enabled = yield* liveSteps(interfaces);
  // Every enabled IPv4 address of each interface, in order: the probe's source is the one whose network holds the
  // peer's address, else the first. The first alone, on a tunnel of two subnets, pinged from an address the remote
  // end does not route back through the tunnel, and a working link read as blocked (found by review).
  const sources = new Map<string, Source[]>();
  for (const [index, row] of addresses.entries()) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    const iface = row['interface'] ?? '';
    const text = row['address'] ?? '';
    const ip = text.split('/')[0] ?? '';
    const prefix = parseIpv4Prefix(text);
    const value = parseIpv4(ip);
    // An address RouterOS marks invalid (its interface gone, or a clash) is not used, as the set-up audit does not
    // use it: pings from it get no reply, and a working tunnel read as blocked (found by review).
    if (!usable(row) || !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip) || prefix === undefined || value === undefined) continue;
    const known = sources.get(iface);
    // A few per interface are plenty to choose from; a hostile list of thousands is not walked per peer.
    if (known === undefined) sources.set(iface, [{ ip, value, prefix }]);
    else if (known.length < MAX_SOURCES_PER_INTERFACE) known.push({ ip, value, prefix });
  }
  const targets: ProbeTarget[] = [];
  const skipped = new Map<string, ProbeResult>();
  const selected = new Set<string>();
  const seen = new Set<string>();
  for (const [index, peer] of peers.entries()) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    const iface = peer['interface'] ?? '';
    const key = probeKey(iface, peer['public-key'] ?? '');
    if (saysTrue(peer['disabled']) || !enabled.has(iface) || seen.has(key)) continue;
    seen.add(key);
    if (!probeSelected(peer, health)) {
      skipped.set(key, { outcome: 'off' });
      continue;
    }
    selected.add(key);
    const address = routerListHead(peer['allowed-address'] ?? '', ALLOWED_ADDRESSES_READ)
      .items.map((a) => IPV4_HOST.exec(a)?.[1])
      .find((a) => a !== undefined);
    const src = sourceFor(sources.get(iface), address);
    const recent = remembered(memory, key);
    if (address === undefined) skipped.set(key, { outcome: 'no_tunnel_address' });
    else if (src === undefined) skipped.set(key, { outcome: 'no_source_address' });
    else if (recent !== undefined) skipped.set(key, recent);
    else if (targets.length >= PROBES_PER_RUN) skipped.set(key, { outcome: 'over_cap' });
    else targets.push({ key, address, interface: iface, src });
  }
  return { targets, skipped, selected };
}

type Run = (command: string, parameters: Readonly<Record<string, unknown>>, options: { signal: AbortSignal; timeoutMs?: number }) => Promise<unknown>;

export interface ProbeOptions {
  /** Pings per probe (health.probe_count, 1–3). */
  count: number;
  /** The router's request timeout; the pings' own time comes on top. */
  timeoutMs: number;
  /** Where undecodable replies are counted (routeros_collector_decode_errors_total). */
  read: Parameters<typeof readProbeReply>[1];
}

/** The request body: the interval only when there is more than one ping (a lone ping has none to wait). */
export function probeParameters(target: ProbeTarget, count: number): Record<string, string> {
  const body: Record<string, string> = { address: target.address, interface: target.interface, 'src-address': target.src, count: String(count) };
  if (count > 1) body['interval'] = `${PROBE_INTERVAL_MS}ms`;
  return body;
}

/**
 * One probe, and when its one ping (probe_count 1, the default) was lost, one more at once: a single lost ping called a
 * working tunnel `blocked`, a page, on any link that drops a packet now and then. Lost again (or the second failing
 * to run) is `failed`; answered the second time is `ok`, with the loss of both pings said (0.5). With one ping the
 * operator asked "does traffic pass", not for partial loss: a `partial` there made /health degraded (503) for one
 * dropped packet (found by review). With 2 or 3 pings every one lost is evidence enough, and no probe is made twice.
 */
async function probeOne(run: Run, target: ProbeTarget, options: ProbeOptions, signal: AbortSignal): Promise<ProbeResult> {
  const first = await probeOnce(run, target, options, signal);
  if (first.outcome !== 'failed' || options.count > 1) return first;
  return confirmed(await probeOnce(run, target, options, signal));
}

/**
 * A lone lost ping's confirmation as one result of both pings: answered is ok (traffic passes) with a loss of one in
 * two, lost again or not run (an error) is failed.
 */
function confirmed(again: ProbeResult): ProbeResult {
  if (again.outcome !== 'ok' && again.outcome !== 'partial') return { outcome: 'failed', lossRatio: 1 };
  return { outcome: 'ok', lossRatio: 0.5, ...(again.rttSeconds === undefined ? {} : { rttSeconds: again.rttSeconds }) };
}

async function probeOnce(run: Run, target: ProbeTarget, options: ProbeOptions, signal: AbortSignal): Promise<ProbeResult> {
  try {
    const timeoutMs = options.timeoutMs + options.count * PROBE_INTERVAL_MS;
    const reply = await run('ping', probeParameters(target, options.count), { signal, timeoutMs });
    // Awaited here: a reply that fails to map is this peer's error, not the run's.
    return await finishInSlices(readProbeReplySteps(reply, options.read, options.count), { signal });
  } catch (error) {
    // A run aborted (deadline, shutdown) ends the run; any other failure leaves this peer unjudged by probe.
    if (signal.aborted) throw error;
    return { outcome: 'error' };
  }
}

/** Runs the probes, PROBE_CONCURRENCY at a time; each target once. */
export async function runProbes(run: Run, targets: readonly ProbeTarget[], options: ProbeOptions, signal: AbortSignal): Promise<Map<string, ProbeResult>> {
  const out = new Map<string, ProbeResult>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const target = targets[next++];
      if (target !== undefined) out.set(target.key, await probeOne(run, target, options, signal));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, targets.length) }, worker));
  return out;
}

/** Addresses of one interface a probe's source is chosen among. */
const MAX_SOURCES_PER_INTERFACE = 16;

/** An interface address a probe may ping from: as written, as a number, and its network. */
interface Source {
  ip: string;
  value: number;
  prefix: Ipv4Prefix;
}

/**
 * The interface address whose network holds `target`, the narrowest of them as a route lookup would choose (a /24
 * inside a /16: found by review), else its first; undefined when it has none.
 */
function sourceFor(candidates: readonly Source[] | undefined, target: string | undefined): string | undefined {
  const value = target === undefined ? undefined : parseIpv4(target);
  let holding: Source | undefined;
  if (value !== undefined) {
    for (const candidate of candidates ?? []) {
      const { lo, hi } = candidate.prefix.range;
      if (lo > value || value > hi) continue;
      const width = hi - lo;
      const held = holding === undefined ? Infinity : holding.prefix.range.hi - holding.prefix.range.lo;
      // As wide as the one held: the lower address, so the reply's order never chooses.
      if (width < held || (width === held && holding !== undefined && candidate.value < holding.value)) holding = candidate;
    }
  }
  return (holding ?? candidates?.[0])?.ip;
}
