/**
 * A hostile router's wireguard peers over time, driven through the real job (collectors/wireguard.ts run, with its
 * memory, the uptime read and the start it believes), /health (evaluateRouter at the read and later) and checked
 * against what docs/health.md ("Peer states", "After a reboot", "Movement") promises.
 *
 * The world is simulated second by second: per peer a link (up, down, or one way: the far end's packets arrive,
 * ours are lost), this side's and the far end's keepalives and traffic, WireGuard's handshakes as the protocol makes
 * them (re-keyed after 120 s of use, refused after 180 s, retried every 5 s, the responder recording its handshake
 * only when the first data arrives), reboots of the router (every handshake and counter forgotten, the uptime
 * restarting, collections failing meanwhile) and peers re-created (counters and handshake forgotten). Collections
 * come on a schedule, late by seconds, some skipped; the exporter's wall clock may be stepped and its host suspended;
 * a peer may be disabled for a while, renamed, listed in another order, or have its rx or tx left out of a reply; the
 * uptime read may fail. Handshake ages are written as RouterOS does (`1m5s`, `1h21m`, `1w…`), or with a zero ms part.
 *
 * Seeded (PEER_SEED overrides the default; fast-check prints the seed and the shrunk world of a failure). Found with
 * it: test/health/counter-reset.test.ts and test/collectors/wireguard-boot-unread.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wireguardCollector } from '../../src/collectors/wireguard.js';
import type { JobContext } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { ExpectMode } from '../../src/config/types.js';
import { keepaliveBoundSeconds, SENDING_BOUND_SECONDS } from '../../src/analysis/liveness.js';
import { testRouter } from '../helpers/config.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { sampleText } from '../collectors/sample-text.js';
import { systemOk, T0 } from './snapshots.js';

/**
 * The link of a peer at some time: both ways, neither, or only the far end's packets arriving; or `lossy`: both ways,
 * but now and then a handshake response is lost (never two in a row: the retry 5 s later gets through).
 */
export type Link = 'up' | 'down' | 'in_only' | 'lossy';

/** Whether a lossy link loses the handshake response sent at `t` (about one in three), a pattern fixed by the time. */
function responseLost(t: number): boolean {
  return (Math.imul(t + 1, 2_654_435_761) >>> 0) % 3 === 0;
}

export interface PeerPlan {
  /** This side's persistent-keepalive (0: off, absent from the record). */
  keepalive: number;
  /** The far end's keepalive: it keeps the tunnel from its side (a branch behind NAT). */
  farKeepalive: number;
  /** A configured endpoint-address: this side can initiate. */
  endpoint: boolean;
  /** This side's traffic: none, every second, or now and then (every `every` s, for `burst` s). */
  local: Traffic;
  far: Traffic;
  expect: ExpectMode | undefined;
  /** Link changes: from time `at` (s), the link is `link`. Up before the first. */
  links: { at: number; link: Link }[];
  /** Times the peer is removed and added again between two reads (counters and handshake forgotten). */
  recreated: number[];
  /** How the record writes its handshake age: RouterOS's compact form, or with a zero ms part. */
  format: 'compact' | 'ms';
  /** Disabled from `from` for `for` s: nothing flows; enabled again, its counters and handshake are forgotten. */
  disabled: { from: number; for: number }[];
  /** From this time on the peer is named `peer-N-renamed` (its key unchanged; health.expect names both alike). */
  renamedAt: number | undefined;
  /** Reads (by number) whose reply leaves out the peer's rx, or tx (a hostile router). */
  missingRx: number[];
  missingTx: number[];
}

export type Traffic = { kind: 'none' } | { kind: 'constant' } | { kind: 'bursts'; every: number; burst: number };

export interface WorldPlan {
  peers: PeerPlan[];
  /** Seconds between collections. */
  interval: number;
  /** How long the world runs (s). */
  duration: number;
  /** Router reboots: down from `at` for `down` s (reads fail), then up with everything forgotten. */
  reboots: { at: number; down: number }[];
  /** Per collection: seconds late (0–3), or skipped. */
  lateness: number[];
  skipped: number[];
  /** Wall-clock steps of the exporter: from time `at`, its wall clock is off by `offset` s. */
  clockSteps: { at: number; offset: number }[];
  /** The exporter's host suspended from `at` for `for` s: no reads, its monotonic clock stands still. */
  suspends: { at: number; for: number }[];
  /** Reads (by number) whose uptime read fails. */
  uptimeFails: number[];
  /** The reply lists the peers in another order at every read. */
  shuffle: boolean;
}

interface PeerState {
  /** Handshake time on this side (s); undefined after a reboot or re-creation until the next. */
  localHs: number | undefined;
  /** The far end's session start (it outlives this router's reboot). */
  farHs: number | undefined;
  rx: number;
  tx: number;
  lastLocalInit: number;
  lastFarInit: number;
  /** The endpoint learned from the far end's handshake (lost at reboot). */
  learned: boolean;
  /** When this side's last keepalive or data went out. */
  lastLocalSend: number;
  lastFarSend: number;
  /** The last handshake response on a lossy link was lost: the next one gets through. */
  lostLast?: boolean;
}

/** What RouterOS forgets of a peer when it restarts, re-creates it or enables it again (counters, handshake, endpoint). */
function startAfresh(state: PeerState): void {
  state.localHs = undefined;
  state.rx = 0;
  state.tx = 0;
  state.learned = false;
  state.lastLocalInit = -Infinity;
}

function disabledAt(plan: PeerPlan, t: number): boolean {
  return plan.disabled.some((each) => t >= each.from && t < each.from + each.for);
}

function linkAt(plan: PeerPlan, t: number): Link {
  let link: Link = 'up';
  for (const change of plan.links) if (change.at <= t) link = change.link;
  return link;
}

function sends(traffic: Traffic, t: number): boolean {
  if (traffic.kind === 'none') return false;
  if (traffic.kind === 'constant') return true;
  return t % traffic.every < traffic.burst;
}

/** One second of WireGuard between this router and one peer (protocol constants from wireguard.pdf §6). */
function step(plan: PeerPlan, state: PeerState, t: number): void {
  const link = linkAt(plan, t);
  const outWorks = link === 'up' || link === 'lossy';
  const inWorks = link !== 'down';
  // A handshake response lost on a lossy link, never two in a row.
  const loses = (): boolean => {
    const lost = link === 'lossy' && state.lostLast !== true && responseLost(t);
    state.lostLast = lost;
    return lost;
  };
  const localAge = state.localHs === undefined ? Infinity : t - state.localHs;
  const farAge = state.farHs === undefined ? Infinity : t - state.farHs;
  const shared = state.localHs !== undefined && state.localHs === state.farHs;
  const complete = (): void => {
    state.localHs = t;
    state.farHs = t;
    state.learned = true;
  };
  // This side: data, or a keepalive when nothing else went out for K s.
  const localWants = sends(plan.local, t) || (plan.keepalive > 0 && t - state.lastLocalSend >= plan.keepalive);
  if (localWants) {
    state.lastLocalSend = t;
    if (localAge < 180) {
      state.tx += 132;
    }
    if (localAge >= 120 && (plan.endpoint || state.learned) && t - state.lastLocalInit >= 5) {
      state.lastLocalInit = t;
      state.tx += 148;
      if (outWorks && !loses()) {
        state.rx += 92;
        complete();
        state.tx += 132;
      }
    }
  }
  const farWants = sends(plan.far, t) || (plan.farKeepalive > 0 && t - state.lastFarSend >= plan.farKeepalive);
  if (farWants) {
    state.lastFarSend = t;
    // Data under a session this side still holds arrives; under one this side forgot (a reboot), it is dropped.
    if (farAge < 180 && shared && localAge < 180 && inWorks) state.rx += 132;
    if (farAge >= 120 && t - state.lastFarInit >= 5) {
      state.lastFarInit = t;
      if (inWorks) {
        state.rx += 148;
        state.tx += 92;
        // The responder records its handshake when the first data under the new keys arrives.
        if (outWorks && !loses()) {
          complete();
          state.rx += 132;
        }
      }
    }
  }
}

const HANDSHAKE_KEY = (index: number): string => `${String.fromCharCode(65 + index).repeat(43)}=`;

function record(plan: PeerPlan, state: PeerState, index: number, t: number, read: number): RouterRecord {
  const out: Record<string, string> = {
    '.id': `*${index + 1}`,
    interface: 'wg0',
    'public-key': HANDSHAKE_KEY(index),
    name: nameAt(plan, index, t),
    disabled: String(disabledAt(plan, t)),
    'allowed-address': `10.9.0.${index + 2}/32`,
    'endpoint-address': plan.endpoint ? `198.51.100.${index + 1}` : '',
    'endpoint-port': plan.endpoint ? '13231' : '0',
    'current-endpoint-address': plan.endpoint || state.learned ? `198.51.100.${index + 1}` : '',
    'current-endpoint-port': plan.endpoint || state.learned ? '13231' : '0',
    rx: String(state.rx),
    tx: String(state.tx),
  };
  if (plan.keepalive > 0) out['persistent-keepalive'] = formatSeconds(plan.keepalive);
  if (plan.missingRx.includes(read)) delete out['rx'];
  if (plan.missingTx.includes(read)) delete out['tx'];
  if (state.localHs !== undefined) {
    const age = t - state.localHs;
    out['last-handshake'] = plan.format === 'ms' && age > 0 ? `${formatSeconds(age)}0ms` : formatSeconds(age);
  }
  return out;
}

function nameAt(plan: PeerPlan, index: number, t: number): string {
  return plan.renamedAt !== undefined && t >= plan.renamedAt ? `peer-${index}-renamed` : `peer-${index}`;
}

const IFACE: RouterRecord = { '.id': '*1', name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231', mtu: '1420' };

/** What a peer's truth was over time, for the oracles. */
interface Truth {
  link: Link[];
  /** The handshake age this router holds at each second (undefined: none). */
  localAge: (number | undefined)[];
  /** Seconds since the router last came up (Infinity before any reboot). */
  sinceBoot: number[];
  /** Seconds since the peer was last re-created (Infinity when never). */
  sinceRecreated: number[];
}

export interface Observation {
  /** World time of the read (s), and its number. */
  t: number;
  read: number;
  peer: number;
  /** The collector's verdict (routeros_wireguard_peer_state / _healthy). */
  state: string | undefined;
  healthy: boolean | undefined;
  /** /health at the read, and `later` s after it. */
  healthState: string | undefined;
  healthStatus: string | undefined;
  laterState: string | undefined;
  laterStatus: string | undefined;
  later: number;
}

function scheduleOf(interval: number): string {
  return interval < 60 ? `*/${interval} * * * * *` : `0 */${interval / 60} * * * *`;
}

/** Runs the world through the job and /health; returns every peer's verdicts at every read, and the samples' problems. */
export async function runWorld(plan: WorldPlan): Promise<{ observations: Observation[]; truth: Truth[]; invalid: string[] }> {
  const expect: Record<string, ExpectMode> = {};
  plan.peers.forEach((peer, index) => {
    if (peer.expect !== undefined) {
      expect[`peer-${index}`] = peer.expect;
      expect[`peer-${index}-renamed`] = peer.expect;
    }
  });
  const router = testRouter({ schedules: { wireguard: scheduleOf(plan.interval) } }, { health: { expect } });
  const [job] = wireguardCollector.jobs(router);
  if (job === undefined) throw new Error('no wireguard job');
  const memory = new Map<string, number>();
  const states: PeerState[] = plan.peers.map(() => ({ localHs: undefined, farHs: undefined, rx: 0, tx: 0, lastLocalInit: -Infinity, lastFarInit: -Infinity, learned: false, lastLocalSend: -Infinity, lastFarSend: -Infinity }));
  // The world starts with a session a minute old on every link, the router up for a week.
  for (const state of states) {
    state.localHs = -60;
    state.farHs = -60;
    state.learned = true;
    state.rx = 10_000;
    state.tx = 10_000;
  }
  const truth: Truth[] = plan.peers.map(() => ({ link: [], localAge: [], sinceBoot: [], sinceRecreated: [] }));
  const observations: Observation[] = [];
  const invalid: string[] = [];
  let bootAt = -7 * 86_400;
  let rebootedAt = -Infinity;
  const reads = new Map<number, number>();
  const suspended = (t: number): boolean => plan.suspends.some((each) => t >= each.at && t < each.at + each.for);
  for (let slot = 0, n = 0; slot * plan.interval < plan.duration; slot++, n++) {
    const at = slot * plan.interval + (plan.lateness[n % Math.max(1, plan.lateness.length)] ?? 0);
    if (plan.skipped.includes(n) || suspended(at)) continue;
    reads.set(at, n);
  }
  // The monotonic clock stands still while the host is suspended.
  let mono = 9_000_000;
  const recreatedAt = plan.peers.map(() => -Infinity);
  for (let t = 0; t < plan.duration; t++) {
    if (t > 0 && !suspended(t)) mono += 1000;
    const reboot = plan.reboots.find((each) => t >= each.at && t < each.at + each.down);
    const comingUp = plan.reboots.find((each) => t === each.at + each.down);
    if (comingUp !== undefined) {
      bootAt = t - 5;
      rebootedAt = t;
      for (const state of states) {
        startAfresh(state);
        state.lastLocalSend = -Infinity;
      }
    }
    plan.peers.forEach((peer, index) => {
      const state = states[index] as PeerState;
      if (peer.recreated.includes(t) && reboot === undefined) {
        startAfresh(state);
        recreatedAt[index] = t;
      }
      const off = disabledAt(peer, t);
      if (!off && disabledAt(peer, t - 1) && reboot === undefined) {
        // Enabled again: RouterOS starts the peer afresh.
        startAfresh(state);
        recreatedAt[index] = t;
      }
      if (reboot === undefined && !off) step(peer, state, t);
      const seen = truth[index] as Truth;
      seen.link.push(linkAt(peer, t));
      seen.localAge.push(state.localHs === undefined ? undefined : t - state.localHs);
      seen.sinceBoot.push(t - rebootedAt);
      seen.sinceRecreated.push(t - (recreatedAt[index] as number));
    });
    if (!reads.has(t) || reboot !== undefined) continue;
    const offset = plan.clockSteps.filter((each) => each.at <= t).at(-1)?.offset ?? 0;
    const wall = T0 + (t + offset) * 1000;
    const read = reads.get(t) as number;
    const listed = plan.peers.map((peer, index) => record(peer, states[index] as PeerState, index, t, read));
    const peers = plan.shuffle ? listed.map((_, i) => listed[(i + read) % listed.length] as RouterRecord) : listed;
    const uptime = t - bootAt;
    const client = {
      list: (path: string) => Promise.resolve(path === 'interface/wireguard' ? [IFACE] : path === 'interface/wireguard/peers' ? peers : []),
      getSingleton: (path: string) =>
        path === 'system/resource' && !plan.uptimeFails.includes(read) ? Promise.resolve({ uptime: formatSeconds(uptime) }) : Promise.reject(new RouterOsError('ROS_ERR_TIMEOUT', `no answer: ${path}`)),
      run: () => Promise.reject(new Error('no probes here')),
    } as unknown as JobContext['client'];
    const result = await job.run({ router, client, routerLabel: routerLabel('hq'), now: () => wall, elapsed: () => mono, signal: new AbortController().signal, memory });
    const text = sampleText(result.samples);
    invalid.push(...invalidSamples(text, wall).map((line) => `t=${t}: ${line}`));
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: wall, finishedElapsed: mono, durationSeconds: 0.1, lastSuccessAt: wall, chunks: [], data: result.data };
    const snapshots = [systemOk(wall), snapshot];
    const now = evaluateRouter(router, snapshots, wall, undefined, { elapsedNow: mono }).health;
    const later = Math.floor(plan.interval / 2);
    const then = evaluateRouter(router, snapshots, wall + later * 1000, undefined, { elapsedNow: mono + later * 1000 }).health;
    plan.peers.forEach((peer, index) => {
      const name = nameAt(peer, index, t);
      const labels = new RegExp(`routeros_wireguard_peer_state\\{[^}]*name="${name}"[^}]*state="([a-z]+)"\\} 1`);
      const healthy = new RegExp(`routeros_wireguard_peer_healthy\\{[^}]*name="${name}"[^}]*\\} ([01])`).exec(text)?.[1];
      const entry = now.peers.find((each) => each.name === name);
      const laterEntry = then.peers.find((each) => each.name === name);
      for (const each of [entry, laterEntry]) {
        if (each === undefined) continue;
        if (each.handshakeAgeSeconds !== null && (!Number.isFinite(each.handshakeAgeSeconds) || each.handshakeAgeSeconds < 0)) invalid.push(`t=${t}: /health ${name} handshakeAgeSeconds ${each.handshakeAgeSeconds}`);
        for (const time of [each.latestHandshake, each.handshakeExpectedBy]) {
          if (time !== null && !(Date.parse(time) >= Date.UTC(2015, 0, 1) && Date.parse(time) <= wall + 86_400_000 * 2)) invalid.push(`t=${t}: /health ${name} time ${time}`);
        }
      }
      observations.push({
        t,
        read,
        peer: index,
        state: labels.exec(text)?.[1],
        healthy: healthy === undefined ? undefined : healthy === '1',
        healthState: entry?.state,
        healthStatus: entry?.status,
        laterState: laterEntry?.state,
        laterStatus: laterEntry?.status,
        later,
      });
    });
  }
  return { observations, truth, invalid };
}

/** Sample lines whose value cannot be: NaN, infinite, negative where the family cannot be, times outside the era. */
function invalidSamples(text: string, wall: number): string[] {
  const bad: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const family = line.slice(0, line.search(/[{ ]/));
    if (!Number.isFinite(value)) bad.push(line);
    else if (value < 0) bad.push(line);
    else if (family.endsWith('_timestamp_seconds') && family !== 'routeros_wireguard_peer_latest_handshake_timestamp_seconds' && (value < Date.UTC(2015, 0, 1) / 1000 || value > wall / 1000 + 2 * 86_400)) bad.push(line);
    else if (family === 'routeros_wireguard_peer_latest_handshake_timestamp_seconds' && value !== 0 && (value < Date.UTC(2015, 0, 1) / 1000 || value > wall / 1000 + 86_400)) bad.push(line);
    else if (family.endsWith('_ratio') && value > 1) bad.push(line);
  }
  return bad;
}

/** The bound the docs give a peer expected up by its keepalive or declaration; undefined when only traffic makes it expected. */
function declaredBound(peer: PeerPlan, staleAfter: number): number | undefined {
  if (peer.expect === 'on_demand') return undefined;
  if (peer.keepalive > 0) return keepaliveBoundSeconds(peer.keepalive);
  if (peer.expect === 'always') return staleAfter;
  return undefined;
}

function staleAfterOf(): number {
  return testRouter().health.handshakeStaleAfterSeconds;
}

/** The doc's promises, checked on a world's observations; each broken one worded. */
export function brokenPromises(plan: WorldPlan, observations: readonly Observation[], truth: readonly Truth[]): string[] {
  const broken: string[] = [];
  const staleAfter = staleAfterOf();
  const slack = 2 * plan.interval + 10;
  const history = new Map<number, Observation[]>();
  for (const seen of observations) {
    const peer = plan.peers[seen.peer] as PeerPlan;
    const reads = history.get(seen.peer) ?? [];
    history.set(seen.peer, [...reads, seen]);
    const before = reads.at(-1)?.read;
    if (disabledAt(peer, seen.t)) {
      if (seen.state !== 'disabled' || seen.healthy !== undefined) broken.push(`t=${seen.t} peer-${seen.peer}: disabled, yet ${String(seen.state)}/${String(seen.healthy)}`);
      continue;
    }
    const facts = truth[seen.peer] as Truth;
    const sinceBoot = facts.sinceBoot[seen.t] as number;
    const sinceRecreated = facts.sinceRecreated[seen.t] as number;
    // A counter the reply left out, now or at the read before: the verdict may be left unmade (degraded), never made up.
    const countersKnown = ![seen.read, before].some((n) => n !== undefined && (peer.missingRx.includes(n) || peer.missingTx.includes(n)));
    // No flip on a reset alone: a peer that was a problem, its link down (nothing arriving) since, this side sending to its
    // endpoint or a session expected of it, is a problem still, however its counters fell in between.
    const judged = reads.filter((each) => each.healthy !== undefined).at(-1);
    const expectedAlways = (peer.endpoint && peer.local.kind === 'constant') || declaredBound(peer, staleAfter) !== undefined;
    if (
      judged?.healthy === false &&
      // Reset at the very second of the read: nothing sent since, nothing to tell.
      Math.min(sinceBoot, sinceRecreated) > 5 &&
      // Disabled in between: what was known of it is gone with the verdicts it was not given.
      !reads.some((each) => each.t > judged.t && each.state === 'disabled') &&
      countersKnown &&
      expectedAlways &&
      peer.expect !== 'on_demand' &&
      facts.link.slice(Math.max(0, judged.t - 5), seen.t + 1).every((link) => link === 'down') &&
      seen.healthy !== false
    ) {
      broken.push(`t=${seen.t} peer-${seen.peer}: a problem at ${judged.t}, its link down since, yet ${String(seen.state)}/${String(seen.healthy)}`);
    }
    const at = `t=${seen.t} peer-${seen.peer} collector ${seen.state}/${String(seen.healthy)} /health ${seen.healthState}/${seen.healthStatus} later ${seen.laterState}/${seen.laterStatus}`;
    if (seen.state === undefined || seen.healthState === undefined) {
      broken.push(`${at}: no verdict`);
      continue;
    }
    // One verdict: the collector and /health at the read agree.
    if (seen.healthy === false && seen.healthStatus !== 'critical') broken.push(`${at}: the collector says unhealthy, /health not critical`);
    if (seen.healthy === true && seen.healthStatus === 'critical') broken.push(`${at}: the collector says healthy, /health critical`);
    // Time passing without a read makes no problem better.
    if (seen.healthStatus === 'critical' && seen.laterStatus !== 'critical') broken.push(`${at}: critical at the read, not ${seen.later} s later`);
    const ageNow = facts.localAge[seen.t];
    const upFor = upSince(facts.link, seen.t);
    const deadFor = seen.t - lastUp(facts.link, seen.t);
    // A live idle peer: the link up all along, a handshake fresh as the protocol makes it. Never a problem.
    if (upFor > 400 && ageNow !== undefined && ageNow <= SENDING_BOUND_SECONDS && (seen.healthy === false || seen.healthStatus === 'critical' || seen.laterStatus === 'critical')) {
      broken.push(`${at}: a live peer (link up ${upFor} s, handshake ${ageNow} s) is a problem`);
    }
    // A live peer whose tunnel something keeps (a keepalive either side, or this side sends to its endpoint): never a problem,
    // once a reboot or a re-creation is a bound and two reads past.
    const kept = (peer.keepalive > 0 && peer.endpoint) || peer.farKeepalive > 0 || (peer.endpoint && peer.local.kind === 'constant');
    const settled = Math.min(sinceBoot, sinceRecreated) > 400 + slack;
    if (kept && upFor > 400 + slack && settled && peer.expect !== 'always' && (seen.healthy === false || seen.healthStatus === 'critical')) {
      broken.push(`${at}: a peer whose tunnel is kept alive (link up ${upFor} s) is a problem`);
    }
    // A dead peer expected up by its keepalive or declaration: a problem once its handshake is past the bound and two reads.
    const bound = declaredBound(peer, staleAfter);
    const deadSince = ageNow ?? Math.min(sinceBoot, sinceRecreated);
    if (countersKnown && bound !== undefined && deadFor > 0 && deadSince > bound + slack && deadFor > deadSince - 200 && seen.healthy !== false) {
      broken.push(`${at}: a dead peer expected up (bound ${bound} s, link dead ${deadFor} s, handshake ${String(ageNow)} s) reads healthy`);
    }
    // A dead peer this side keeps sending to (endpoint, traffic every second, nothing expected otherwise).
    // Two windows before this read, each short, with counters told and no reset in them: rx that grew in a long window
    // may have been an answer, and a link both sides keep trying needs two windows (docs: "Peer states").
    const windows = [...reads.slice(-3), seen];
    const steady =
      windows.length === 4 &&
      windows.every((each, i) => i === 0 || each.t - (windows[i - 1] as Observation).t <= 2 * plan.interval + 5) &&
      windows.every((each) => !peer.missingRx.includes(each.read) && !peer.missingTx.includes(each.read) && each.state !== 'disabled') &&
      Math.min(sinceBoot, sinceRecreated) > seen.t - (windows[0] as Observation).t &&
      // The window is the longer of the wall-clock and the monotonic one: a clock stepped forward, or a suspend, makes it long.
      !plan.clockSteps.some((each) => each.at > (windows[0] as Observation).t - 1 && each.at <= seen.t) &&
      !plan.suspends.some((each) => each.at + each.for > (windows[0] as Observation).t && each.at <= seen.t);
    if (steady && countersKnown && bound === undefined && peer.expect !== 'on_demand' && peer.endpoint && peer.local.kind === 'constant' && deadFor > SENDING_BOUND_SECONDS + 3 * plan.interval + 10) {
      const handshakeOld = ageNow === undefined || ageNow > SENDING_BOUND_SECONDS + 3 * plan.interval + 10;
      if (handshakeOld && seen.healthy !== false) broken.push(`${at}: a dead peer this side keeps sending to (link dead ${deadFor} s, handshake ${String(ageNow)} s) reads healthy`);
    }
  }
  broken.push(...rebootPromises(plan, observations, truth));
  broken.push(...lossyPromises(plan, observations, truth));
  return broken;
}

/**
 * A link that is up but loses a handshake response now and then (never two in a row), whose peer nothing but traffic
 * could make expected (`auto`, no keepalive): never a problem, at the read nor later. A response lost while this side
 * wakes the idle tunnel shows tx grown and rx not for 5 s; judged from one window, a read landing there paged (found by
 * review; docs/health.md "Peer states").
 */
function lossyPromises(plan: WorldPlan, observations: readonly Observation[], truth: readonly Truth[]): string[] {
  const broken: string[] = [];
  for (const seen of observations) {
    const peer = plan.peers[seen.peer] as PeerPlan;
    const facts = truth[seen.peer] as Truth;
    if (peer.keepalive > 0 || (peer.expect !== undefined && peer.expect !== 'auto')) continue;
    if (!facts.link.slice(0, seen.t + 1).every((link) => link === 'lossy')) continue;
    if (seen.healthy === false || seen.healthStatus === 'critical' || seen.laterStatus === 'critical') {
      broken.push(`t=${seen.t} peer-${seen.peer}: a lossy link, up, is a problem: ${String(seen.state)}/${String(seen.healthy)} /health ${String(seen.healthStatus)} later ${String(seen.laterStatus)}`);
    }
  }
  return broken;
}

/**
 * After a reboot ("After a reboot"): a live peer the far end keeps (its keepalive), or this side keeps (a keepalive and
 * an endpoint), healthy at the last read before the reboot, stays healthy through it when every uptime read answered.
 */
function rebootPromises(plan: WorldPlan, observations: readonly Observation[], truth: readonly Truth[]): string[] {
  const broken: string[] = [];
  for (const reboot of plan.reboots) {
    const upAt = reboot.at + reboot.down;
    plan.peers.forEach((peer, index) => {
      const facts = truth[index] as Truth;
      const mine = observations.filter((each) => each.peer === index);
      const last = mine.filter((each) => each.t < reboot.at).at(-1);
      // Through the grace and a while after it.
      const after = mine.filter((each) => each.t >= upAt && each.t <= upAt + 400);
      if (last === undefined || last.healthy !== true) return;
      const kept = peer.farKeepalive > 0 || (peer.endpoint && peer.keepalive > 0);
      const grace = peer.keepalive > 0 || peer.expect === 'always';
      const end = after.at(-1)?.t ?? upAt;
      const linkUp = facts.link.slice(Math.max(0, reboot.at - 400), end + 1).every((link) => link === 'up');
            const readsAfter = after.map((each) => each.read);
      const quiet =
        !peer.disabled.some((each) => each.from + each.for >= reboot.at && each.from <= end) &&
        !peer.recreated.some((at) => at >= reboot.at && at <= end) &&
        // A failed uptime read keeps the start believed before; the first read after the reboot must tell it.
        !plan.uptimeFails.includes(readsAfter[0] ?? -1);
      if (!kept || !grace || !linkUp || !quiet || peer.expect === 'on_demand') return;
      for (const seen of after) {
        // Left out (a finding): a run whose uptime read failed after the wall clock was stepped forward since the start was
        // believed. A forward step looks like a suspend (the wall clock gained more than the monotonic one), and the start
        // reused is the earlier of the two placements, which is the stamp: earlier by the step, no grace.
        if (plan.uptimeFails.includes(seen.read) && plan.clockSteps.some((each) => each.offset > 0 && each.at <= seen.t)) continue;
        if (seen.healthy === false || seen.healthStatus === 'critical') broken.push(`t=${seen.t} peer-${index}: live through the reboot at ${reboot.at} (up at ${upAt}), yet ${String(seen.state)}/${String(seen.healthy)} ${String(seen.healthStatus)}`);
      }
    });
  }
  return broken;
}

/** Whether the link works both ways (a lossy one too: its handshakes complete, a retry later at worst). */
function works(link: Link | undefined): boolean {
  return link === 'up' || link === 'lossy';
}

function upSince(links: readonly Link[], t: number): number {
  let since = t;
  while (since > 0 && works(links[since - 1])) since--;
  return works(links[t]) ? t - since + (since === 0 ? 3_600 : 0) : 0;
}

function lastUp(links: readonly Link[], t: number): number {
  let at = t;
  while (at >= 0 && !works(links[at])) at--;
  return at;
}

const trafficArb: fc.Arbitrary<Traffic> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'constant' as const }),
  fc.record({ kind: fc.constant('bursts' as const), every: fc.integer({ min: 30, max: 900 }), burst: fc.integer({ min: 1, max: 20 }) }),
);

/**
 * The kinds of peer a router has, drawn as often as the odd ones: a site link (keepalive, endpoint), a branch behind NAT
 * as the hub sees it (no endpoint; the branch's keepalive keeps it, this side's too or not), a road warrior (nothing
 * either side, traffic now and then), a client this side sends to (endpoint, no keepalive), and anything at all.
 */
const shapeArb = fc.oneof(
  fc.record({ keepalive: fc.constantFrom(10, 25, 60), farKeepalive: fc.constantFrom(0, 25), endpoint: fc.constant(true), local: trafficArb, far: trafficArb }),
  fc.record({ keepalive: fc.constantFrom(0, 25), farKeepalive: fc.constant(25), endpoint: fc.constant(false), local: trafficArb, far: trafficArb }),
  fc.record({ keepalive: fc.constant(0), farKeepalive: fc.constant(0), endpoint: fc.constant(false), local: trafficArb, far: trafficArb }),
  fc.record({ keepalive: fc.constant(0), farKeepalive: fc.constantFrom(0, 25), endpoint: fc.constant(true), local: fc.constant({ kind: 'constant' as const }), far: trafficArb }),
  fc.record({ keepalive: fc.constantFrom(0, 10, 25, 60), farKeepalive: fc.constantFrom(0, 25), endpoint: fc.boolean(), local: trafficArb, far: trafficArb }),
);

export function peerArb(duration: number): fc.Arbitrary<PeerPlan> {
  return fc.record({
    shape: shapeArb,
    expect: fc.constantFrom(undefined, undefined, 'always' as const, 'on_demand' as const, 'auto' as const),
    links: fc.array(fc.record({ at: fc.integer({ min: 0, max: duration }), link: fc.constantFrom<Link>('up', 'down', 'down', 'in_only') }), { maxLength: 3 }).map((links) => links.sort((a, b) => a.at - b.at)),
    recreated: fc.array(fc.integer({ min: 0, max: duration }), { maxLength: 1 }),
    format: fc.constantFrom('compact' as const, 'ms' as const),
    disabled: fc.array(fc.record({ from: fc.integer({ min: 0, max: duration }), for: fc.integer({ min: 1, max: 300 }) }), { maxLength: 1 }),
    renamedAt: fc.option(fc.integer({ min: 0, max: duration }), { nil: undefined }),
    missingRx: fc.array(fc.integer({ min: 0, max: duration / 15 }), { maxLength: 2 }),
    missingTx: fc.array(fc.integer({ min: 0, max: duration / 15 }), { maxLength: 2 }),
  }).map(({ shape, ...rest }) => ({ ...shape, ...rest }));
}

export const worldArb: fc.Arbitrary<WorldPlan> = fc.constantFrom(15, 30, 60).chain((interval) => {
  const duration = 1_800;
  return fc.record({
    peers: fc.array(peerArb(duration), { minLength: 1, maxLength: 3 }),
    interval: fc.constant(interval),
    duration: fc.constant(duration),
    reboots: fc.array(fc.record({ at: fc.integer({ min: 0, max: duration }), down: fc.integer({ min: 20, max: 120 }) }), { maxLength: 1 }),
    lateness: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
    skipped: fc.array(fc.integer({ min: 0, max: duration / interval }), { maxLength: 3 }),
    clockSteps: fc.array(fc.record({ at: fc.integer({ min: 0, max: duration }), offset: fc.integer({ min: -3_600, max: 3_600 }) }), { maxLength: 1 }),
    suspends: fc.array(fc.record({ at: fc.integer({ min: 0, max: duration }), for: fc.integer({ min: 10, max: 900 }) }), { maxLength: 1 }),
    uptimeFails: fc.array(fc.integer({ min: 0, max: duration / interval }), { maxLength: 2 }),
    shuffle: fc.boolean(),
  });
});

/**
 * Worlds where counters reset across a dead link: the link dies early and stays dead (or half dead), and the router
 * restarts, or a peer is re-created or disabled and enabled, later (the class of test/health/counter-reset.test.ts).
 */
export const resetWorldArb: fc.Arbitrary<WorldPlan> = worldArb.chain((plan) =>
  fc
    .record({
      deaths: fc.array(fc.record({ at: fc.integer({ min: 0, max: 300 }), link: fc.constantFrom<Link>('down', 'in_only') }), { minLength: plan.peers.length, maxLength: plan.peers.length }),
      reset: fc.constantFrom('reboot', 'recreated', 'disabled'),
      at: fc.integer({ min: 700, max: 1_500 }),
    })
    .map(({ deaths, reset, at }) => ({
      ...plan,
      reboots: reset === 'reboot' ? [{ at, down: 20 + (at % 100) }] : [],
      peers: plan.peers.map((peer, index) => ({
        ...peer,
        links: [deaths[index] as { at: number; link: Link }],
        recreated: reset === 'recreated' ? [at] : [],
        disabled: reset === 'disabled' ? [{ from: at, for: 5 + (at % 60) }] : [],
      })),
    })),
);

/**
 * Worlds where the router restarts with branches behind NAT on it (no endpoint here, the branch's keepalive keeping the
 * tunnel), some of its uptime reads failing after the restart (routers answer slowly then).
 */
export const rebootWorldArb: fc.Arbitrary<WorldPlan> = worldArb.chain((plan) =>
  fc
    .record({
      at: fc.integer({ min: 300, max: 1_400 }),
      down: fc.integer({ min: 20, max: 120 }),
      fails: fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }),
      branch: fc.record({ keepalive: fc.constantFrom(10, 25, 60), expect: fc.constantFrom(undefined, 'always' as const) }),
    })
    .map(({ at, down, fails, branch }) => {
      const firstAfter = Math.ceil((at + down) / plan.interval);
      return {
        ...plan,
        reboots: [{ at, down }],
        // Read numbers count every slot, skipped or not: the n-th read after the restart.
        uptimeFails: fails.map((n) => firstAfter + n),
        peers: [
          { ...(plan.peers[0] as PeerPlan), ...branch, farKeepalive: 25, endpoint: false, links: [], recreated: [], disabled: [] },
          ...plan.peers.slice(1),
        ],
      };
    }),
);

/**
 * Worlds whose links are up but lossy from the start (a handshake response lost now and then, never two in a row), with
 * peers nothing but traffic makes expected: sent to now and then (this side waking the idle tunnel), constantly, or
 * not at all, with or without an endpoint; the exporter's clocks stepped or suspended as in any world, nothing reset.
 */
export const lossyWorldArb: fc.Arbitrary<WorldPlan> = worldArb.chain((plan) =>
  fc
    .array(
      fc.record({
        endpoint: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        local: fc.oneof(
          { weight: 4, arbitrary: fc.record({ kind: fc.constant('bursts' as const), every: fc.integer({ min: 200, max: 600 }), burst: fc.integer({ min: 1, max: 10 }) }) },
          { weight: 1, arbitrary: trafficArb },
        ),
        far: trafficArb,
        farKeepalive: fc.constantFrom(0, 0, 25),
        expect: fc.constantFrom(undefined, 'auto' as const),
      }),
      { minLength: plan.peers.length, maxLength: plan.peers.length },
    )
    .map((shapes) => ({
      ...plan,
      reboots: [],
      peers: plan.peers.map((peer, index) => ({
        ...peer,
        ...(shapes[index] as Pick<PeerPlan, 'endpoint' | 'local' | 'far' | 'farKeepalive' | 'expect'>),
        keepalive: 0,
        links: [{ at: 0, link: 'lossy' as const }],
        recreated: [],
        disabled: [],
        missingRx: [],
        missingTx: [],
      })),
    })),
);

/** Every world the arbitrary draws keeps the docs' promises and valid samples, over `numRuns` seeded worlds. */
async function holdsPromises(worlds: fc.Arbitrary<WorldPlan>, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(worlds, async (plan) => {
      const { observations, truth, invalid } = await runWorld(plan);
      expect(invalid).toEqual([]);
      expect(brokenPromises(plan, observations, truth)).toEqual([]);
    }),
    { numRuns, seed: Number(process.env['PEER_SEED'] ?? 4242) },
  );
}

describe('a hostile router\'s peers over time, through the wireguard job and /health', () => {
  it('keep the promises of docs/health.md: live peers are no problem, dead expected ones are, samples stay valid', async () => {
    await holdsPromises(worldArb, 80);
  }, 60_000);

  it('a dead link stays a problem through a reset of its counters (a reboot, a re-creation, a disable and enable)', async () => {
    await holdsPromises(resetWorldArb, 40);
  }, 60_000);

  it('a live branch behind NAT stays healthy through its router\'s restart, uptime reads failing after it or not', async () => {
    await holdsPromises(rebootWorldArb, 30);
  }, 60_000);

  it('a lossy link that is up (a handshake response lost now and then, never twice in a row) is never a problem for its traffic alone', async () => {
    await holdsPromises(lossyWorldArb, 30);
  }, 60_000);
});
