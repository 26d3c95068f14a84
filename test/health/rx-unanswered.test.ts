/**
 * rx that grew with no session possible (F10): the far end's handshake initiations on a link both sides keep trying,
 * none completing, or a healthy idle tunnel the far end is waking (its handshake still in flight). Decided at
 * collection on the monotonic clock, and a peer expected for it only after two counter windows in a row. Each
 * scenario is judged by the collector (/metrics), /health (also later than the read) and the verdict log.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapWireguard, wireguardCollector, type WireguardData } from '../../src/collectors/wireguard.js';
import { PeerTable } from '../../src/collectors/wireguard-peers.js';
import type { JobContext } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { ExpectMode } from '../../src/config/types.js';
import { testConfig } from '../helpers/config.js';
import { sampleText } from '../collectors/sample-text.js';
import { systemOk, T0 } from './snapshots.js';
import { verdictLog } from './verdict-log.js';

const IFACE: RouterRecord = { name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };

/** One collection: wall clock and monotonic clock (s from T0 / from an arbitrary origin), counters, handshake age as read. */
interface Read {
  wall: number;
  mono: number;
  rx: number;
  tx: number;
  /** Seconds, as the router gives it; undefined: never. */
  age: number | undefined;
}

interface Seen {
  collected: string | undefined;
  state: string | undefined;
  status: string;
  /** /health's state `later` seconds after the read. */
  laterState: string | undefined;
}

function configOf(health: Record<string, unknown> = {}) {
  return testConfig({ defaults: { username: 'monitor', password: 'x', health }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] });
}

function peerAt(read: Read, peer: { endpoint?: boolean; keepalive?: number } = {}): RouterRecord {
  return {
    interface: 'wg0',
    'public-key': `${'K'.repeat(43)}=`,
    name: 'site',
    'allowed-address': '10.9.0.2/32',
    ...(peer.endpoint === false ? {} : { 'endpoint-address': '198.51.100.7', 'endpoint-port': '13231' }),
    ...(peer.keepalive === undefined ? {} : { 'persistent-keepalive': `${peer.keepalive}s` }),
    rx: String(read.rx),
    tx: String(read.tx),
    ...(read.age === undefined ? {} : { 'last-handshake': formatSeconds(read.age) }),
  };
}

/** The reads collected in turn by one job memory; each judged by the collector, /health at the read and `later` s on, and the verdict log. */
async function collect(reads: readonly Read[], options: { later?: number; health?: Record<string, unknown>; peer?: { endpoint?: boolean; keepalive?: number } } = {}) {
  const config = configOf(options.health);
  const router = config.routers[0];
  if (router === undefined) throw new Error('no router');
  const memory = new Map<string, number>();
  const log = verdictLog(config);
  const seen: Seen[] = [];
  const logged: number[] = [];
  const origin = 5_000_000;
  for (const read of reads) {
    const at = T0 + read.wall * 1000;
    const result = mapWireguard([IFACE], [peerAt(read, options.peer)], routerLabel('hq'), router.health, at, memory, undefined, undefined, undefined, origin + read.mono * 1000);
    const collected = /routeros_wireguard_peer_state\{[^}]*state="([a-z]+)"\} 1/.exec(sampleText(result.samples))?.[1];
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.1, lastSuccessAt: at, chunks: [], data: result.data };
    const { health } = evaluateRouter(router, [systemOk(at), snapshot], at);
    const later = evaluateRouter(router, [systemOk(at), snapshot], at + (options.later ?? 0) * 1000).health;
    seen.push({ collected, state: health.peers[0]?.state, status: health.status, laterState: later.peers[0]?.state });
    log.record(systemOk(at), at);
    log.record(snapshot, at);
    await log.settled();
    logged.push(log.messages.filter((line) => line.includes('site')).length);
  }
  log.stop();
  return { seen, logged, messages: log.messages };
}

describe('the reviewer\'s race: a healthy idle tunnel the far end wakes (its handshake in flight at the read)', () => {
  it('rx and tx grew in one window with the handshake 1,000 s old, then the handshake is fresh: never down, never critical, nothing logged', async () => {
    const { seen, logged } = await collect(
      [
        { wall: -30, mono: 0, rx: 1_000, tx: 1_000, age: 970 },
        { wall: 0, mono: 30, rx: 1_000, tx: 1_000, age: 1_000 },
        // The far end's initiation came in (148 B), the response went out (92 B); the handshake is recorded here only
        // when the first data under the new keys arrives.
        { wall: 30, mono: 60, rx: 1_148, tx: 1_092, age: 1_030 },
        { wall: 60, mono: 90, rx: 2_500, tx: 1_800, age: 25 },
      ],
      { later: 200 },
    );
    for (const each of seen) {
      expect(['idle', 'up']).toContain(each.collected);
      expect(['idle', 'up']).toContain(each.state);
      expect(['idle', 'up']).toContain(each.laterState);
      expect(each.status).toBe('ok');
    }
    expect(seen[2]).toMatchObject({ collected: 'idle', state: 'idle' });
    expect(logged).toEqual([0, 0, 0, 0]);
  });
});

describe('the same race the other way: a healthy idle tunnel this side wakes, its handshake response lost once', () => {
  it('tx grew and rx did not in one window, the handshake 1,030 s old, then the handshake is fresh: never down, never critical, nothing logged (a problem and a recovery before)', async () => {
    const { seen, logged } = await collect(
      [
        { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 1_000 },
        // This side's initiation went out (148 B) at 25 s, its response lost; the retry at 30.3 s is not out yet.
        { wall: 30, mono: 30, rx: 1_000, tx: 1_148, age: 1_030 },
        // The retry answered (92 B), data both ways since: the handshake at 30.3 s.
        { wall: 60, mono: 60, rx: 1_092 + 600, tx: 1_296 + 700, age: 30 },
      ],
      { later: 200 },
    );
    expect(seen.map((each) => each.status)).toEqual(['ok', 'ok', 'ok']);
    expect(seen[1]).toMatchObject({ collected: 'idle', state: 'idle', laterState: 'idle' });
    expect(seen[2]).toMatchObject({ collected: 'up', state: 'up' });
    expect(logged).toEqual([0, 0, 0]);
  });
});

describe('a dead link both sides keep trying, no handshake completing (rx and tx both grow): down after the second window, not the first', () => {
  for (const [title, age] of [
    ['its last handshake 1,000 s old', 1_000],
    ['no handshake ever', undefined],
  ] as const) {
    it(`${title}: /health and the collector ok after one window, a problem after two; one verdict-log line, after the second`, async () => {
      const ageAt = (seconds: number): number | undefined => (age === undefined ? undefined : age + seconds);
      const { seen, logged, messages } = await collect(
        [
          { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: ageAt(0) },
          { wall: 30, mono: 30, rx: 1_148, tx: 1_092 + 148, age: ageAt(30) },
          { wall: 60, mono: 60, rx: 1_296, tx: 1_184 + 296, age: ageAt(60) },
          { wall: 90, mono: 90, rx: 1_444, tx: 1_276 + 444, age: ageAt(90) },
        ],
        { later: 60 },
      );
      const problem = age === undefined ? 'never' : 'down';
      const fine = age === undefined ? 'never' : 'idle';
      expect(seen[1]).toEqual({ collected: fine, state: fine, status: 'ok', laterState: fine });
      expect(seen[2]).toEqual({ collected: problem, state: problem, status: 'critical', laterState: problem });
      expect(seen[3]).toEqual({ collected: problem, state: problem, status: 'critical', laterState: problem });
      expect(logged).toEqual([0, 0, 1, 1]);
      expect(messages.filter((line) => line.includes('site'))[0]).toMatch(/site/);
    });
  }

  it('a run that failed in between: the window spans the gap, and the window before is the one ending at the last successful read', async () => {
    // The run at 60 s failed (nothing kept): the second window runs from 30 s to 90 s.
    const { seen } = await collect([
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 1_000 },
      { wall: 30, mono: 30, rx: 1_148, tx: 1_240, age: 1_030 },
      { wall: 90, mono: 90, rx: 1_444, tx: 1_720, age: 1_090 },
    ]);
    expect(seen.map((each) => each.state)).toEqual(['idle', 'idle', 'down']);
  });

  it('one-sided first (tx alone, two windows: down at the second, not at once as before), then both sides trying: stays down, no recovery logged between', async () => {
    // tx alone in one window is not enough any more (a healthy tunnel this side wakes, its response lost once, looks
    // so for 5 s): the window at 30 s is idle, the one at 60 s down; then rx grows with no session too, and it stays.
    const { seen, logged } = await collect([
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 1_000 },
      { wall: 30, mono: 30, rx: 1_000, tx: 1_148, age: 1_030 },
      { wall: 60, mono: 60, rx: 1_000, tx: 1_296, age: 1_060 },
      { wall: 90, mono: 90, rx: 1_148, tx: 1_536, age: 1_090 },
    ]);
    expect(seen.map((each) => each.state)).toEqual(['idle', 'idle', 'down', 'down']);
    expect(logged).toEqual([0, 0, 1, 1]);
  });
});

describe('the window on the monotonic clock', () => {
  it('a wall clock stepped back 1 h between two runs: the healthy tunnel, handshake 165 s old at the first read and 30 s between reads, stays ok, idle once its answer came', async () => {
    const { seen, logged } = await collect(
      [
        { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 135 },
        // This side sent (tx), its session still alive: expected, up.
        { wall: 30, mono: 30, rx: 1_000, tx: 1_500, age: 165 },
        // The wall clock stepped back an hour; 30 s passed. The answer came early in the window, the session alive then.
        { wall: 30 - 3_600 + 30, mono: 60, rx: 1_600, tx: 1_600, age: 195 },
      ],
      { later: 300 },
    );
    expect(seen.map((each) => each.status)).toEqual(['ok', 'ok', 'ok']);
    expect(seen[2]).toEqual({ collected: 'idle', state: 'idle', status: 'ok', laterState: 'idle' });
    expect(logged).toEqual([0, 0, 0]);
  });
});

describe('the window is the longer of the monotonic and the wall-clock difference', () => {
  it('the reviewer\'s scenario A: the host suspended 1 h between two reads (the monotonic clock stopped, 15 s on it, 3,615 s on the wall clock), rx and tx grew, the handshake 2,000 s old: an answer in the window, idle, ok', async () => {
    const { seen, logged, messages } = await collect([
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 50 },
      // tx alone, the session alive: up (one window of it: not expected yet).
      { wall: 15, mono: 15, rx: 1_000, tx: 1_500, age: 65 },
      // tx alone again, two windows in a row: expected, up (a read more than before, when one window made it expected).
      { wall: 30, mono: 30, rx: 1_000, tx: 2_000, age: 80 },
      // Suspended an hour: performance.now() stood still; the router went on, a handshake in the meantime.
      { wall: 30 + 3_600 + 15, mono: 45, rx: 2_100, tx: 2_100, age: 2_000 },
    ]);
    expect(seen.map((each) => each.collected)).toEqual(['up', 'up', 'up', 'idle']);
    expect(seen.map((each) => each.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    // The verdict log reckons the hour unread as it always did (the expected-by of the third read passed in it), and
    // the fourth read ends it: idle, not down.
    expect(logged).toEqual([0, 0, 0, 2]);
    expect(messages.at(-1)).toMatch(/site .* is no longer a problem \(idle\)$/);
  });
});

describe('mapWireguard without a monotonic reading', () => {
  it('has no window: rx growth counts as an answer (as before the rule), not a window taken from the wall clock `now`', () => {
    const router = configOf().routers[0];
    if (router === undefined) throw new Error('no router');
    const memory = new Map<string, number>();
    const reads: Read[] = [
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: undefined },
      { wall: 30, mono: 30, rx: 1_148, tx: 1_240, age: undefined },
      { wall: 60, mono: 60, rx: 1_296, tx: 1_480, age: undefined },
    ];
    const unanswered = reads.map((read) => {
      const { data } = mapWireguard([IFACE], [peerAt(read)], routerLabel('hq'), router.health, T0 + read.wall * 1000, memory);
      return [...data.peers][0]?.rxUnanswered;
    });
    expect(unanswered).toEqual([false, false, false]);
  });
});

describe('a handshake that did not decode', () => {
  it('stores no "unanswered" for the window (an unreadable handshake is not "none"), so the next window, the handshake readable and none, is the first', () => {
    const router = configOf().routers[0];
    if (router === undefined) throw new Error('no router');
    const memory = new Map<string, number>();
    const reads: { read: Read; handshake?: string }[] = [
      { read: { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: undefined }, handshake: 'garbage' },
      { read: { wall: 30, mono: 30, rx: 1_148, tx: 1_240, age: undefined }, handshake: 'garbage' },
      { read: { wall: 60, mono: 60, rx: 1_296, tx: 1_480, age: undefined } },
    ];
    const seen = reads.map(({ read, handshake }) => {
      const record = { ...peerAt(read), ...(handshake === undefined ? {} : { 'last-handshake': handshake }) };
      const { data } = mapWireguard([IFACE], [record], routerLabel('hq'), router.health, T0 + read.wall * 1000, memory, undefined, undefined, undefined, 3_000_000 + read.mono * 1000);
      const peer = [...data.peers][0];
      return { rxUnanswered: peer?.rxUnanswered, unansweredBefore: peer?.unansweredBefore };
    });
    expect(seen).toEqual([
      { rxUnanswered: false, unansweredBefore: false },
      { rxUnanswered: false, unansweredBefore: false },
      // One window of no handshake, both sides trying: unanswered, but the window before is not (it was not told).
      { rxUnanswered: true, unansweredBefore: false },
    ]);
  });
});

describe('check\'s one window (PeerTable.markUnansweredUnconfirmed)', () => {
  /**
   * Two looks 6 s apart at a link both sides keep trying, no handshake (or, `rx` false, a link only this side tries):
   * the second look's table, marked.
   */
  function oneWindow(health: Record<string, unknown> = {}, rx = true) {
    const config = configOf(health);
    const router = config.routers[0];
    if (router === undefined) throw new Error('no router');
    const memory = new Map<string, number>();
    let data: WireguardData | undefined;
    for (const read of [
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: undefined },
      { wall: 6, mono: 6, rx: rx ? 1_148 : 1_000, tx: 1_240, age: undefined },
    ]) {
      data = mapWireguard([IFACE], [peerAt(read)], routerLabel('hq'), router.health, T0 + read.wall * 1000, memory, undefined, undefined, undefined, 1_000 + read.mono * 1000).data;
    }
    if (!(data?.peers instanceof PeerTable)) throw new Error('no table');
    const marked = data.peers.markUnansweredUnconfirmed();
    const at = T0 + 6_000;
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.1, lastSuccessAt: at, chunks: [], data };
    return { marked, table: data.peers, evaluation: evaluateRouter(router, [systemOk(at), snapshot], at) };
  }

  for (const [title, rx] of [
    ['both sides trying (rx grown with no session possible)', true],
    ['this side alone trying (rx not grown: it was judged down at once, and a healthy tunnel this side wakes, its response lost once, paged)', false],
  ] as const) {
    it(`${title}: words the peer as what is not known: its growth is, whether it went unanswered two windows in a row is not (not "whether their rx or tx grew is not known")`, () => {
      const { marked, table, evaluation } = oneWindow({}, rx);
      expect(marked).toBe(1);
      expect([...table][0]).toMatchObject({ rxMoved: rx, txMoved: true, rxUnanswered: rx, rxMovedUnknown: false, unansweredUnconfirmed: true });
      expect(evaluation.health.peers[0]).toMatchObject({ judged: false, reason: 'unreadable' });
      const texts = evaluation.problems.map((problem) => problem.text).join('\n');
      expect(texts).toContain('cannot judge 1 peer: their tx grew unanswered (rx did not grow, or grew with no session possible), and one window cannot tell a handshake in flight');
      expect(texts).not.toContain('whether their rx or tx grew is not known');
      // The next look still reads the window as sending unanswered: the marking hides nothing from it.
      expect(table.sendingUnansweredAt(0)).toBe(true);
    });
  }
});

describe('the reviewer\'s scenario B: a link dying just after a handshake at t = 0, read every 15 s', () => {
  // tx grows every window (this side sending, then its handshake initiations); rx not at all (one-sided), or in every
  // window (both sides trying: the far end's initiations once its own session lapses).
  const reads = (bothSides: boolean): Read[] =>
    Array.from({ length: 17 }, (_, index) => {
      const t = index * 15;
      return { wall: t, mono: t, rx: 1_000 + (bothSides ? index * 148 : 0), tx: 1_000 + index * 148, age: t };
    });

  it('one-sided: first down at 195 s, the first read past the 185 s bound', async () => {
    const { seen } = await collect(reads(false));
    expect(seen.findIndex((each) => each.collected === 'down') * 15).toBe(195);
    expect(seen.findIndex((each) => each.status === 'critical') * 15).toBe(195);
  });

  it('both sides trying: first down at 225 s, two windows later: rx is no answer only once the handshake is older than 185 s + the 15 s window (210 s), and the peer expected once two windows in a row show it (225 s)', async () => {
    const { seen } = await collect(reads(true));
    expect(seen.findIndex((each) => each.collected === 'down') * 15).toBe(225);
    expect(seen.findIndex((each) => each.status === 'critical') * 15).toBe(225);
    // Before it, never a page: up while the session lives, idle from 195 s.
    expect(seen.slice(0, 15).map((each) => each.status)).toEqual(Array.from({ length: 15 }, () => 'ok'));
  });
});

describe('property: the new rule never makes a peer expected from a single window', () => {
  it('over handshake age, gap, the window before, keepalive, expect mode and endpoint: tx grown in one window, rx grown too or not, makes the peer expected only as keepalive or `always` would', () => {
    const samples = fc.record({
      // Biased to the changed branch: a handshake past 185 s + the gap, or none; auto, no keepalive, an endpoint.
      age: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 4, arbitrary: fc.integer({ min: 0, max: 3_000 }) }),
      gap: fc.integer({ min: 1, max: 900 }),
      // The window before: none (the first), counters flat, or rx alone grown (no sending).
      before: fc.constantFrom('first', 'flat', 'rx'),
      // The one window: rx grown too (both sides trying, or the far end waking a tunnel), or tx alone (this side).
      rxGrows: fc.boolean(),
      keepalive: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(25) }),
      expect: fc.oneof({ weight: 4, arbitrary: fc.constant<ExpectMode>('auto') }, { weight: 1, arbitrary: fc.constantFrom<ExpectMode>('always', 'on_demand') }),
      endpoint: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    });
    let reached = 0;
    fc.assert(fc.property(samples, (sample) => {
      const ageAt = (seconds: number): number | undefined => (sample.age === undefined ? undefined : sample.age + seconds);
      const reads: Read[] = [];
      if (sample.before !== 'first') reads.push({ wall: -30, mono: -30, rx: 1_000, tx: 1_000, age: sample.age === undefined ? undefined : Math.max(0, sample.age - 30) });
      reads.push({ wall: 0, mono: 0, rx: sample.before === 'rx' ? 1_148 : 1_000, tx: 1_000, age: ageAt(0) });
      reads.push({ wall: sample.gap, mono: sample.gap, rx: sample.rxGrows ? 1_296 : sample.before === 'rx' ? 1_148 : 1_000, tx: 1_092, age: ageAt(sample.gap) });
      const config = configOf({ expect: { site: sample.expect } });
      const router = config.routers[0];
      if (router === undefined) throw new Error('no router');
      const memory = new Map<string, number>();
      let data: unknown;
      let healthy: string | undefined;
      let at = T0;
      for (const read of reads) {
        at = T0 + read.wall * 1000;
        const result = mapWireguard([IFACE], [peerAt(read, { endpoint: sample.endpoint, keepalive: sample.keepalive })], routerLabel('hq'), router.health, at, memory, undefined, undefined, undefined, 9_000_000 + read.mono * 1000);
        data = result.data;
        healthy = /routeros_wireguard_peer_healthy\{[^}]*\} (\d)/.exec(sampleText(result.samples))?.[1];
      }
      const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.1, lastSuccessAt: at, chunks: [], data };
      const peer = evaluateRouter(router, [systemOk(at), snapshot], at).health.peers[0];
      const otherwise = sample.expect === 'always' || (sample.expect === 'auto' && sample.keepalive > 0);
      expect({ sample, expected: peer?.expected }).toEqual({ sample, expected: otherwise });
      // Nothing expected: the collector calls it healthy whatever the handshake (idle, up, or never not expected).
      if (!otherwise) expect({ sample, healthy }).toEqual({ sample, healthy: '1' });
      // The handshake at the third read is age + gap old, the window gap long: no session possible iff age > 185 (rx
      // not grown: nothing answered whatever the age; it was expected at once).
      if (!sample.rxGrows && sample.endpoint && sample.keepalive === 0 && sample.expect === 'auto') reached++;
      else if (sample.endpoint && sample.keepalive === 0 && sample.expect === 'auto' && (sample.age === undefined || sample.age > 185)) reached++;
    }), { numRuns: 300 });
    // The changed branch (rx grown with no session possible, this side sending to an endpoint) is reached often.
    expect(reached).toBeGreaterThan(60);
  });
});

describe('the wireguard job takes the window from JobContext.elapsed, not the wall clock', () => {
  it('the stepped-back wall clock through the job itself: idle, ok', async () => {
    const config = configOf();
    const router = config.routers[0];
    if (router === undefined) throw new Error('no router');
    const [job] = wireguardCollector.jobs(router);
    if (job === undefined) throw new Error('no job');
    const reads: Read[] = [
      { wall: 0, mono: 0, rx: 1_000, tx: 1_000, age: 135 },
      { wall: 30, mono: 30, rx: 1_000, tx: 1_500, age: 165 },
      { wall: 30 - 3_600 + 30, mono: 60, rx: 1_600, tx: 1_600, age: 195 },
    ];
    const memory = new Map<string, number>();
    const states: (string | undefined)[] = [];
    for (const read of reads) {
      const client: JobContext['client'] = {
        list: (path: string) => Promise.resolve(path === 'interface/wireguard' ? [IFACE] : path === 'interface/wireguard/peers' ? [peerAt(read)] : []),
        getSingleton: () => Promise.reject(new Error('not read here')),
        run: () => Promise.reject(new Error('not run here')),
      } as unknown as JobContext['client'];
      const result = await job.run({ router, client, routerLabel: routerLabel('hq'), now: () => T0 + read.wall * 1000, elapsed: () => 7_000_000 + read.mono * 1000, signal: new AbortController().signal, memory });
      states.push(/routeros_wireguard_peer_state\{[^}]*state="([a-z]+)"\} 1/.exec(sampleText(result.samples))?.[1]);
    }
    expect(states).toEqual(['up', 'up', 'idle']);
  });
});
