import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { SnapshotStore, type JobOutcome } from '../../src/metrics/store.js';
import { JUDGED_AT_ONCE, watchVerdicts } from '../../src/health/watch.js';
import { diff, diffPeers, MAX_LINES_PER_RUN, observe } from '../../src/health/changes.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import type { PeerJudgement } from '../../src/health/types.js';
import type { PeerVerdict } from '../../src/analysis/peer.js';
import { testConfig } from '../helpers/config.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { RouterConfig } from '../../src/config/types.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { failed, peerRecord, ping, setup, SITE_LINKS, systemOk, T0, WG_UP, wireguard } from './snapshots.js';

const config = testConfig({
  defaults: { username: 'monitor', password: 'x', health: { handshake_stale_after: '5m', ...SITE_LINKS.health } },
  routers: [{ name: 'hq', url: 'https://192.0.2.1', collectors: { wireguard_setup: true }, ping: [{ target: '10.10.0.2', name: 'branch-tunnel' }] }],
});
const router = ((): RouterConfig => {
  const first = config.routers[0];
  if (first === undefined) throw new Error('no router');
  return first;
})();

interface Logged {
  level: string;
  msg: string;
  router?: string;
  event?: string;
}

function harness(configNow: () => typeof config = () => config) {
  const lines: Logged[] = [];
  const logger = pino({ level: 'info', formatters: { level: (label) => ({ level: label }) } }, { write: (line: string) => lines.push(JSON.parse(line) as Logged) });
  const store = new SnapshotStore();
  store.plan(new Map([['hq', jobsFor(router).map((job) => ({ collector: job.collector, job: job.job }))]]));
  let now = T0;
  const watch = watchVerdicts({ store, config: configNow, logger, now: () => now });
  const record = (snapshot: JobSnapshot, at: number): void => {
    now = at;
    const outcome: JobOutcome = {
      router: 'hq',
      collector: snapshot.collector,
      job: snapshot.job,
      ok: snapshot.ok,
      finishedAt: at,
      durationSeconds: 0.1,
      data: snapshot.data,
      ...(snapshot.reason === undefined ? {} : { reason: snapshot.reason }),
    };
    store.record(outcome);
  };
  return { lines, record, store, reconfigured: () => watch.reconfigured(), stop: () => watch.stop(), settled: () => watch.settled(), messages: () => lines.map((line) => `${line.level} ${line.msg}`) };
}

const peers = (age: string | undefined) => [peerRecord('branch-1', '30s'), peerRecord('branch-2', age)];

describe('verdict-change log', () => {
  it('words no time for runs that change nothing (a fleet lands thousands a cycle)', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('30s'), T0), T0);
    const toIso = vi.spyOn(Date.prototype, 'toISOString');
    try {
      for (let cycle = 1; cycle <= 3; cycle++) {
        h.record(systemOk(T0 + cycle * 30_000), T0 + cycle * 30_000);
        h.record(wireguard(router, [WG_UP], peers('30s'), T0 + cycle * 30_000), T0 + cycle * 30_000);
      }
      expect(toIso).not.toHaveBeenCalled();
    } finally {
      toIso.mockRestore();
    }
    expect(h.messages()).toEqual([]);
    // /health still words the time of the last success.
    expect(evaluateRouter(router, h.store.snapshots('hq'), T0 + 100_000).health.lastSuccess).toBe(new Date(T0 + 90_000).toISOString());
    h.stop();
  });

  it('logs a peer going stale once, not on every collection, and its recovery once', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('4m'), T0), T0);
    expect(h.messages()).toEqual([]);
    h.record(wireguard(router, [WG_UP], peers('10m'), T0 + 360_000), T0 + 360_000);
    h.record(wireguard(router, [WG_UP], peers('10m15s'), T0 + 375_000), T0 + 375_000);
    h.record(systemOk(T0 + 380_000), T0 + 380_000);
    h.record(wireguard(router, [WG_UP], peers('5s'), T0 + 390_000), T0 + 390_000);
    h.record(wireguard(router, [WG_UP], peers('20s'), T0 + 405_000), T0 + 405_000);
    const staleSince = new Date(T0 + 360_000 - 600_000 + 300_000).toISOString();
    expect(h.messages()).toEqual([
      `warn peer branch-2 on hq/wg-branch stale since ${staleSince} (last handshake 10m ago)`,
      'info peer branch-2 on hq/wg-branch recovered (last handshake 5s ago)',
    ]);
    expect(h.lines[0]).toMatchObject({ router: 'hq', event: 'peer_stale' });
    h.stop();
  });

  it('logs problems present at start once, including a peer that never shook hands', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP, { ...WG_UP, name: 'wg-road', running: 'false' }], peers(undefined), T0), T0);
    h.record(wireguard(router, [WG_UP, { ...WG_UP, name: 'wg-road', running: 'false' }], peers(undefined), T0 + 15_000), T0 + 15_000);
    expect(h.messages()).toEqual([
      'warn interface wg-road on hq is enabled but not running',
      'warn peer branch-2 on hq/wg-branch has never shaken hands',
    ]);
  });

  it('logs a router going down and coming back, without re-announcing a peer that was stale all along', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('10m'), T0), T0);
    h.record(failed('system', 'system', 'connect', T0 + 15_000, T0), T0 + 15_000);
    h.record(failed('wireguard', 'wireguard', 'connect', T0 + 15_000), T0 + 15_000);
    h.record(failed('system', 'system', 'connect', T0 + 30_000, T0), T0 + 30_000);
    h.record(systemOk(T0 + 45_000), T0 + 45_000);
    h.record(wireguard(router, [WG_UP], peers('11m'), T0 + 45_000), T0 + 45_000);
    const messages = h.messages();
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatch(/^warn peer branch-2 on hq\/wg-branch stale since /);
    expect(messages[1]).toBe(`warn router hq down: no answer since ${new Date(T0).toISOString()} (connect)`);
    expect(messages[2]).toBe('info router hq up again');
  });

  it('logs ping loss when its severity changes, and set-up checks failing and passing again', () => {
    const h = harness();
    const wgOk = wireguard(router, [WG_UP], [peerRecord('branch-1', '30s')], T0);
    const noAddress = { interfaces: [WG_UP], peers: [], addresses: [], routes: [], filter: [] };
    h.record(systemOk(T0), T0);
    h.record(wgOk, T0);
    h.record(setup(noAddress, T0), T0);
    h.record(ping(router, 0, 0, T0), T0);
    h.record(ping(router, 0, 33, T0 + 30_000), T0 + 30_000);
    h.record(ping(router, 0, 33, T0 + 60_000), T0 + 60_000);
    h.record(ping(router, 0, 100, T0 + 90_000), T0 + 90_000);
    h.record(ping(router, 0, 0, T0 + 120_000), T0 + 120_000);
    h.record(setup({ ...noAddress, addresses: [{ address: '10.10.0.1/24', interface: 'wg-branch' }] }, T0 + 300_000), T0 + 300_000);
    // A wireguard run overdue (15 s, and three 10 s timeouts for its reads), and branch-1 past its bound since.
    h.record(ping(router, 0, 0, T0 + 320_000), T0 + 320_000);
    expect(h.messages()).toEqual([
      'warn set-up check address fails on hq/wg-branch: wg-branch has no enabled IP address. ' +
        'Fix: /ip address add address=<tunnel-address>/<prefix-length> interface=wg-branch comment="WireGuard wg-branch"',
      'warn ping branch-tunnel to 10.10.0.2 from hq: 33% loss',
      'warn ping branch-tunnel to 10.10.0.2 from hq: 100% loss (critical at 50%)',
      'info ping branch-tunnel to 10.10.0.2 from hq recovered (0% loss)',
      'info set-up check address passes again on hq/wg-branch',
      // No wireguard collection since T0, but its handshake kept ageing: the verdict follows the clock.
      'warn peer branch-1 on hq/wg-branch stale since 2026-11-21T12:04:30.000Z (last handshake 5m50s ago)',
    ]);
  });

  it('says nothing of an interface while the wireguard collector fails, even when the set-up audit runs', () => {
    // Found by a hostile review: the audit alone knows the interface but not whether it runs ("unknown"), which
    // was logged as "running again", and its real state re-announced once wireguard answered again.
    const h = harness();
    const down = { ...WG_UP, running: 'false' };
    const records = { interfaces: [down], peers: [], addresses: [{ address: '10.10.0.1/24', interface: 'wg-branch' }], routes: [], filter: [] };
    h.record(systemOk(T0), T0);
    h.record(ping(router, 0, 0, T0), T0);
    h.record(wireguard(router, [down], [], T0), T0);
    h.record(failed('wireguard', 'wireguard', 'timeout', T0 + 30_000, T0), T0 + 30_000);
    h.record(setup(records, T0 + 40_000), T0 + 40_000);
    h.record(wireguard(router, [down], [], T0 + 60_000), T0 + 60_000);
    expect(h.messages().filter((line) => line.includes('interface'))).toEqual(['warn interface wg-branch on hq is enabled but not running']);
  });

  it('logs a peer that goes stale by the clock alone at the next run of any collector, once', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('4m'), T0), T0);
    // branch-2 passes 5m at T0 + 60 s; no wireguard run comes, only system runs.
    h.record(systemOk(T0 + 50_000), T0 + 50_000);
    expect(h.messages()).toEqual([]);
    // Past the bound, but the wireguard run that may show a newer handshake is not overdue yet (every 15 s, its reads
    // within three of the router's 10 s timeouts: by T0 + 105 s): a live peer that rekeyed after the read would be
    // called down (found by review).
    h.record(systemOk(T0 + 65_000), T0 + 65_000);
    h.record(systemOk(T0 + 80_000), T0 + 80_000);
    h.record(ping(router, 0, 0, T0 + 95_000), T0 + 95_000);
    expect(h.messages()).toEqual([]);
    h.record(systemOk(T0 + 110_000), T0 + 110_000);
    expect(h.messages()).toEqual([`warn peer branch-2 on hq/wg-branch stale since ${new Date(T0 + 60_000).toISOString()} (last handshake 5m50s ago)`]);
  });

  it('names two peers of one interface that share a name by their keys too, as /health does (their lines read alike)', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    const twins = [peerRecord('branch-2', '10m'), { ...peerRecord('branch-2', '10m'), 'public-key': 'Other-key-0000000000000000000000000000000=' }];
    h.record(wireguard(router, [WG_UP], twins, T0), T0);
    const lines = h.messages().filter((line) => line.includes('branch-2'));
    expect(lines).toHaveLength(2);
    expect(new Set(lines).size).toBe(2);
    expect(lines.join('\n')).toMatch(/peer branch-2 \(Other-ke…\) on hq\/wg-branch/);
  });

  it('forgets a peer removed from the router, and does not drop peers on runs that say nothing about them', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('10m'), T0), T0);
    h.record(ping(router, 0, 0, T0 + 5_000), T0 + 5_000);
    h.record(systemOk(T0 + 10_000), T0 + 10_000);
    h.record(wireguard(router, [WG_UP], [peerRecord('branch-1', '30s')], T0 + 15_000), T0 + 15_000);
    h.record(wireguard(router, [WG_UP], peers('10m'), T0 + 30_000), T0 + 30_000);
    const stale = h.messages().filter((line) => line.includes('branch-2'));
    // Once at start; the ping and system runs in between did not make it new; removed and back, it is new again.
    expect(stale).toHaveLength(2);
  });

  it('stops logging when unsubscribed', () => {
    const h = harness();
    h.stop();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers(undefined), T0), T0);
    expect(h.lines).toEqual([]);
  });
});

describe('verdict log of a large router', () => {
  /** 20,000 peers, branch-2 among them at `age`, the rest fresh: judging them is more than one slice's work. */
  const many = (age: string): ReturnType<typeof peers> => [...peers(age), ...Array.from({ length: 20_000 }, (_, i) => peerRecord(`site-${i}`, '30s'))];
  const staleSince = new Date(T0 + 360_000 - 600_000 + 300_000).toISOString();

  it('judges its runs in slices, after the turn they land in, and logs their changes in the order of the runs', async () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], many('4m'), T0), T0);
    // Lands while the run before is judged: waits for it.
    h.record(wireguard(router, [WG_UP], many('10m'), T0 + 360_000), T0 + 360_000);
    // Judged in one go, the line would be here already.
    expect(h.messages()).toEqual([]);
    await h.settled();
    expect(h.messages()).toEqual([`warn peer branch-2 on hq/wg-branch stale since ${staleSince} (last handshake 10m ago)`]);
    h.record(wireguard(router, [WG_UP], many('5s'), T0 + 390_000), T0 + 390_000);
    await h.settled();
    expect(h.messages()).toEqual([
      `warn peer branch-2 on hq/wg-branch stale since ${staleSince} (last handshake 10m ago)`,
      'info peer branch-2 on hq/wg-branch recovered (last handshake 5s ago)',
    ]);
    // Small runs again: judged in the turn they land, after the large ones are done.
    h.record(wireguard(router, [WG_UP], peers('10m'), T0 + 960_000), T0 + 960_000);
    expect(h.messages()).toHaveLength(3);
    h.stop();
  });

  it('keeps one run waiting behind the one being judged: runs landing faster than they are judged merge into the latest (found by review)', async () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], many('4m'), T0), T0);
    // Both land while the first is judged: only the latest is judged after it, so the stale spell between is
    // not seen, as a collection missed would not see it.
    h.record(wireguard(router, [WG_UP], many('10m'), T0 + 360_000), T0 + 360_000);
    h.record(wireguard(router, [WG_UP], many('5s'), T0 + 390_000), T0 + 390_000);
    await h.settled();
    expect(h.messages()).toEqual([]);
    h.stop();
  });

  it('logs nothing of a run still being judged for a router a reload removed (found by review)', async () => {
    let current = config;
    const h = harness(() => current);
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], many('10m'), T0 + 360_000), T0 + 360_000);
    current = testConfig({ defaults: { username: 'monitor', password: 'x' }, routers: [{ name: 'branch', url: 'https://192.0.2.2' }] });
    await h.settled();
    expect(h.messages()).toEqual([]);
    h.stop();
  });

  it('judges a router of more than JUDGED_AT_ONCE interfaces and peers in slices, and a smaller one in the turn it lands', () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    const sites = (count: number) => [...peers('10m'), ...Array.from({ length: count }, (_, i) => peerRecord(`site-${i}`, '30s'))];
    // Two peers of its own, one interface: JUDGED_AT_ONCE in all.
    h.record(wireguard(router, [WG_UP], sites(JUDGED_AT_ONCE - 3), T0 + 360_000), T0 + 360_000);
    expect(h.messages()).toHaveLength(1);
    h.record(wireguard(router, [WG_UP], sites(JUDGED_AT_ONCE - 2), T0 + 390_000), T0 + 390_000);
    h.record(wireguard(router, [WG_UP], peers('5s'), T0 + 420_000), T0 + 420_000);
    // The larger run is being judged, and the small one waits behind it.
    expect(h.messages()).toHaveLength(1);
    h.stop();
  });

  it(`logs the first ${MAX_LINES_PER_RUN} changes of a run one by one, and one line counting the rest`, async () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    const sites = (age: string) => Array.from({ length: 250 }, (_, i) => peerRecord(`site-${i}`, age));
    h.record(wireguard(router, [WG_UP], sites('30s'), T0), T0);
    h.record(wireguard(router, [WG_UP], sites('10m'), T0 + 360_000), T0 + 360_000);
    expect(h.lines).toHaveLength(MAX_LINES_PER_RUN + 1);
    expect(h.lines.slice(0, MAX_LINES_PER_RUN).every((line) => line.event === 'peer_stale')).toBe(true);
    expect(h.lines[MAX_LINES_PER_RUN]).toMatchObject({
      level: 'warn',
      event: 'more_changes',
      msg: `150 more changes on hq in this run (150 went bad, 0 recovered or stopped being a problem); only the first ${MAX_LINES_PER_RUN} are logged one by one, GET /health lists every peer, interface and check`,
    });
    // All 250 are kept as stale: none is announced again, and each recovery is news.
    h.record(wireguard(router, [WG_UP], sites('10m15s'), T0 + 375_000), T0 + 375_000);
    expect(h.lines).toHaveLength(MAX_LINES_PER_RUN + 1);
    h.record(wireguard(router, [WG_UP], sites('5s'), T0 + 390_000), T0 + 390_000);
    expect(h.lines).toHaveLength(2 * (MAX_LINES_PER_RUN + 1));
    expect(h.lines.at(-1)).toMatchObject({ level: 'info', event: 'more_changes', msg: expect.stringContaining('(0 went bad, 150 recovered') });
    h.stop();
  });

  it('logs nothing of a run still being judged once stopped', async () => {
    const h = harness();
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], many('10m'), T0 + 360_000), T0 + 360_000);
    h.stop();
    await h.settled();
    expect(h.messages()).toEqual([]);
  });
});

describe('out of a bad state into one not known (found by review)', () => {
  it('is said as not known, never as up again or running again', () => {
    const plain = testConfig({ defaults: { username: 'monitor', password: 'x' }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] }).routers[0] as RouterConfig;
    const words = (before: JobSnapshot[], after: JobSnapshot[]): string[] => {
      const first = evaluateRouter(plain, before, T0);
      const d0 = diff(undefined, observe(first, plain), first.seen, 'hq');
      const then = evaluateRouter(plain, after, T0 + 30_000);
      return diff(d0.next, observe(then, plain), then.seen, 'hq').lines.map((line) => `${line.level} ${String(line.fields['event'])} ${line.message}`);
    };
    const wg = (running: string, at: number): JobSnapshot => wireguard(plain, [{ ...WG_UP, running }], [], at);
    // Down, then its entry restarted by a reload and a wireguard run landing before the system run.
    expect(words([failed('system', 'system', 'timeout', T0), wg('true', T0)], [wg('true', T0 + 30_000)])).toEqual([
      'info router_unknown router hq: whether it is up is not known now (no run that tells has landed since it was down)',
    ]);
    // An interface not running, then its running unreadable: /health says it cannot tell, and so does the log.
    expect(words([systemOk(T0), wg('false', T0)], [systemOk(T0 + 30_000), wg('perhaps', T0 + 30_000)])).toEqual([
      'info interface_unknown interface wg-branch on hq: whether it runs is not known now (its running did not decode)',
    ]);
    // And the real recoveries still read as such.
    expect(words([systemOk(T0), wg('false', T0)], [systemOk(T0 + 30_000), wg('true', T0 + 30_000)])).toEqual(['info interface_up interface wg-branch on hq is running again']);
  });
});

describe('verdict log and reloads', () => {
  it('follows the config a reload put in place: a router no longer configured is not judged, a changed one by its new settings', () => {
    let current = config;
    const h = harness(() => current);
    h.record(systemOk(T0), T0);
    h.record(wireguard(router, [WG_UP], peers('10m'), T0), T0);
    expect(h.messages()).toHaveLength(1);
    // Reloaded without hq: its runs still landing are not judged (a stale lookup would log branch-2 again).
    current = { ...config, routers: [] };
    h.record(wireguard(router, [WG_UP], peers(undefined), T0 + 30_000), T0 + 30_000);
    expect(h.messages()).toHaveLength(1);
    // Back, with a longer stale bound: branch-2 at 10m is within it, so nothing is news.
    current = testConfig({
      defaults: { username: 'monitor', password: 'x', health: { handshake_stale_after: '1h', ...SITE_LINKS.health } },
      routers: [{ name: 'hq', url: 'https://192.0.2.1', collectors: { wireguard_setup: true }, ping: [{ target: '10.10.0.2', name: 'branch-tunnel' }] }],
    });
    h.record(wireguard(router, [WG_UP], peers('10m'), T0 + 60_000), T0 + 60_000);
    expect(h.messages()).toHaveLength(1);
    h.stop();
  });
});

describe('routers that leave the config', () => {
  it('a router no longer planned loses its states at the next reload seen, though no run of its own lands again: back later, it is news again (found by review)', () => {
    const withBranch = testConfig({
      defaults: { username: 'monitor', password: 'x' },
      routers: [
        { name: 'hq', url: 'https://192.0.2.1' },
        { name: 'branch', url: 'https://192.0.2.2' },
      ],
    });
    let current = withBranch;
    const h = harness(() => current);
    const jobs = (config: typeof withBranch, name: string) =>
      jobsFor(config.routers.find((each) => each.name === name) as RouterConfig).map((job) => ({ collector: job.collector, job: job.job }));
    const plan = (config: typeof withBranch): void => h.store.plan(new Map(config.routers.map((each) => [each.name, jobs(config, each.name)])));
    const land = (name: string, snapshot: JobSnapshot, at: number): void => {
      h.store.record({ router: name, collector: snapshot.collector, job: snapshot.job, ok: snapshot.ok, finishedAt: at, durationSeconds: 0.1, data: snapshot.data, ...(snapshot.reason === undefined ? {} : { reason: snapshot.reason }) });
    };
    plan(current);
    land('branch', failed('system', 'system', 'connect', T0), T0);
    const down = (): string[] => h.messages().filter((message) => message.startsWith('warn router branch down: '));
    expect(down()).toHaveLength(1);
    // Forgotten (a discovered target) or removed by a reload: the store plans it no more, so nothing of it lands,
    // and nothing else need land before it comes back (a review found the states kept for a quiet fleet).
    current = { ...withBranch, routers: withBranch.routers.filter((each) => each.name !== 'branch') };
    plan(current);
    h.reconfigured();
    // Back, still down: a new router, whose state is news.
    current = withBranch;
    plan(current);
    land('branch', failed('system', 'system', 'connect', T0 + 60_000), T0 + 60_000);
    expect(down()).toHaveLength(2);
    h.stop();
  });
});

describe('peer states kept between collections', () => {
  const peer = (name: string) => {
    const stored = wireguard(router, [WG_UP], [peerRecord(name, '30s')], T0).data;
    const first = (stored as { peers: { at(index: number): PeerJudgement['peer'] | undefined } }).peers.at(0);
    if (first === undefined) throw new Error('no peer');
    return first;
  };
  const judged = (name: string, verdict: Pick<PeerVerdict, 'judged' | 'healthy' | 'reason'>): PeerJudgement => ({
    peer: peer(name),
    verdict: { state: 'down', expected: true, because: 'keepalive', boundSeconds: 300, ...verdict },
    latestHandshake: T0 / 1000 - 600,
    ageSeconds: 600,
    bootedAt: undefined,
  });

  it('only bad states are kept: a fleet of healthy peers costs nothing between collections', () => {
    const healthy = Array.from({ length: 1000 }, (_, i) => judged(`p${i}`, { judged: true, healthy: true, reason: 'ok' }));
    const { next } = diffPeers(undefined, [...healthy, judged('dead', { judged: true, healthy: false, reason: 'stale' })], true, 'hq');
    expect([...next.values()].reduce((sum, kept) => sum + kept.size, 0)).toBe(1);
  });

  it('going bad is news even when the reason stays the same (a probe failing once a session is expected)', () => {
    const before = diffPeers(undefined, [judged('x', { judged: true, healthy: true, reason: 'probe_failed' })], true, 'hq');
    expect(before.lines).toEqual([]);
    const after = diffPeers(before.next, [judged('x', { judged: true, healthy: false, reason: 'probe_failed' })], true, 'hq');
    expect(after.lines.map((line) => `${line.level} ${line.fields['event']}`)).toEqual(['warn peer_probe_failed']);
    // Worded as the problem it is: it read "is no longer a problem (probe failed)" while the peer went critical.
    expect(after.lines[0]?.message).toBe('peer x on hq/wg-branch is blocked: handshake fresh but a ping through the tunnel got no reply (check allowed-address and routes)');
  });

  it('every bad reason is worded as a problem, never as one that ended', () => {
    const reasons: PeerVerdict['reason'][] = ['ok', 'idle', 'stale', 'never', 'never_since_boot', 'never_not_expected', 'disabled', 'excluded', 'interface_disabled', 'interface_not_running', 'handshake_unreadable', 'unreadable', 'probe_failed', 'probe_partial'];
    for (const reason of reasons) {
      const { lines } = diffPeers(undefined, [judged('x', { judged: true, healthy: false, reason })], true, 'hq');
      for (const line of lines) expect(line.message).not.toMatch(/no longer|recovered/);
    }
  });

  it('leaving a bad state under the same reason is news too, worded as what it is now', () => {
    const bad = diffPeers(undefined, [judged('x', { judged: true, healthy: false, reason: 'probe_failed' })], true, 'hq');
    const after = diffPeers(bad.next, [judged('x', { judged: true, healthy: true, reason: 'probe_failed' })], true, 'hq');
    expect(after.lines.map((line) => `${line.level} ${line.fields['event']} ${line.message}`)).toEqual([
      'info peer_recovered peer x on hq/wg-branch is no longer a problem (probe failed)',
    ]);
    expect(after.next.size).toBe(0);
    const again = diffPeers(bad.next, [judged('x', { judged: false, healthy: true, reason: 'interface_not_running' })], true, 'hq');
    expect(again.lines.map((line) => line.message)).toEqual(['peer x on hq/wg-branch is no longer judged (interface not running)']);
  });

  it('an unseen wireguard part keeps the last bad states; a seen one forgets peers no longer listed', () => {
    const bad = diffPeers(undefined, [judged('x', { judged: true, healthy: false, reason: 'never' })], true, 'hq');
    expect(diffPeers(bad.next, [], false, 'hq').next).toBe(bad.next);
    const gone = diffPeers(bad.next, [], true, 'hq');
    expect(gone.lines).toEqual([]);
    expect(gone.next.size).toBe(0);
  });

  it('any sequence of verdicts: a line exactly when a peer goes bad, changes its bad reason or recovers; only bad peers kept', () => {
    type Shape = Pick<PeerVerdict, 'judged' | 'healthy' | 'reason'>;
    const shapes: Shape[] = [
      { judged: true, healthy: true, reason: 'ok' },
      { judged: true, healthy: true, reason: 'idle' },
      { judged: true, healthy: false, reason: 'stale' },
      { judged: true, healthy: false, reason: 'never' },
      { judged: false, healthy: true, reason: 'handshake_unreadable' },
      { judged: true, healthy: true, reason: 'probe_failed' },
      { judged: true, healthy: false, reason: 'probe_failed' },
      { judged: false, healthy: true, reason: 'disabled' },
    ];
    const isBad = (shape: Shape): boolean => (shape.judged && !shape.healthy) || shape.reason === 'handshake_unreadable';
    const names = ['a', 'b', 'c'];
    const kept = new Map(names.map((name) => [name, peer(name)]));
    const step = fc.record({ seen: fc.boolean(), verdicts: fc.array(fc.option(fc.constantFrom(...shapes), { nil: undefined }), { minLength: 3, maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
        let previous: ReturnType<typeof diffPeers>['next'] | undefined;
        let model = new Map<string, string>(); // public key → bad reason
        for (const { seen, verdicts } of steps) {
          const judgements = names.flatMap((name, index) => {
            const shape = verdicts[index];
            const stored = kept.get(name);
            if (shape === undefined || stored === undefined) return [];
            return [{ peer: stored, verdict: { state: 'down', expected: true, because: 'keepalive', boundSeconds: 300, ...shape }, latestHandshake: T0 / 1000 - 600, ageSeconds: 600 } as PeerJudgement];
          });
          const { lines, next } = diffPeers(previous, judgements, seen, 'hq');
          const expected: string[] = [];
          if (seen) {
            const after = new Map<string, string>();
            for (const { peer: stored, verdict } of judgements) {
              const before = model.get(stored.publicKey);
              if (isBad(verdict)) {
                after.set(stored.publicKey, verdict.reason);
                if (before !== verdict.reason) expected.push(`warn ${stored.publicKey}`);
              } else if (before !== undefined) {
                expected.push(`info ${stored.publicKey}`);
              }
            }
            model = after;
          }
          expect(lines.map((line) => `${line.level} ${String(line.fields['public_key'])}`)).toEqual(expected);
          const keptKeys = [...next.values()].flatMap((byKey) => [...byKey].map(([key, state]) => `${key}=${state.state}`)).sort();
          expect(keptKeys).toEqual([...model].map(([key, reason]) => `${key}=${reason}`).sort());
          previous = next;
        }
      }),
      { numRuns: 500 },
    );
  });

  it(`any sequence of verdicts of up to 250 peers: the first ${MAX_LINES_PER_RUN} changes of a run worded, the rest counted in one line, every state kept`, () => {
    const stale = { judged: true, healthy: false, reason: 'stale' } as const;
    const ok = { judged: true, healthy: true, reason: 'ok' } as const;
    const run = (count: number) => fc.array(fc.boolean(), { minLength: count, maxLength: count });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 250 }).chain((count) => fc.tuple(fc.constant(count), fc.array(run(count), { minLength: 1, maxLength: 5 }))),
        ([count, runs]) => {
          const stored = Array.from({ length: count }, (_, i) => peer(`p${i}`));
          let previous: ReturnType<typeof diffPeers>['next'] | undefined;
          let bad = new Set<string>();
          for (const badness of runs) {
            const judgements = stored.map(
              (one, i) => ({ peer: one, verdict: { state: 'down', expected: true, because: 'keepalive', boundSeconds: 300, ...(badness[i] === true ? stale : ok) }, latestHandshake: T0 / 1000 - 600, ageSeconds: 600 }) as PeerJudgement,
            );
            const { lines, next } = diffPeers(previous, judgements, true, 'hq');
            const changes = stored.flatMap((one, i) => (badness[i] === true ? (bad.has(one.publicKey) ? [] : [`warn ${one.publicKey}`]) : bad.has(one.publicKey) ? [`info ${one.publicKey}`] : []));
            const rest = changes.slice(MAX_LINES_PER_RUN);
            const wentBad = rest.filter((line) => line.startsWith('warn')).length;
            const expected = [...changes.slice(0, MAX_LINES_PER_RUN), ...(rest.length === 0 ? [] : [`${wentBad > 0 ? 'warn' : 'info'} more_changes ${wentBad}/${rest.length - wentBad}`])];
            const seen = lines.map((line) =>
              line.fields['event'] === 'more_changes' ? `${line.level} more_changes ${String(line.fields['went_bad'])}/${String(line.fields['recovered'])}` : `${line.level} ${String(line.fields['public_key'])}`,
            );
            expect(seen).toEqual(expected);
            bad = new Set(stored.filter((_, i) => badness[i] === true).map((one) => one.publicKey));
            expect([...next.values()].flatMap((byKey) => [...byKey.keys()]).sort()).toEqual([...bad].sort());
            previous = next;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a peer a probe found down before its handshake was due (found by review)', () => {
  it('is logged without a "since" still to come, and says the probe decided it', async () => {
    const { mapWireguard } = await import('../../src/collectors/wireguard.js');
    const { probeKey } = await import('../../src/collectors/wireguard-probe.js');
    const { routerLabel } = await import('../../src/metrics/family.js');
    const { evaluateRouter } = await import('../../src/health/evaluate.js');
    const probed = testConfig({
      defaults: { username: 'u', password: 'pw-probe-log-1', health: { expect: { wg0: 'always' } } },
      routers: [{ name: 'hq', url: 'https://192.0.2.1' }],
    }).routers[0] as RouterConfig;
    const key = 'Fh0S3Hpyq8JQ5lqA3m2T0YpJmB5ycK1r6v9wqQ7cQ2E=';
    const row = { interface: 'wg0', 'public-key': key, name: 'branch', disabled: 'false', 'allowed-address': '10.10.0.2/32', rx: '1000', tx: '1000', 'persistent-keepalive': '25s', 'last-handshake': '190s' };
    const probes = new Map([[probeKey('wg0', key), { outcome: 'failed' as const, lossRatio: 1 }]]);
    const { data } = mapWireguard([{ name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' }], [row], routerLabel('hq'), probed.health, T0, new Map(), probes);
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data } as JobSnapshot;
    const { judgements } = evaluateRouter(probed, [systemOk(T0), snapshot], T0);
    const messages = diffPeers(undefined, judgements, true, 'hq').lines.map((line) => line.message);
    expect(messages).toEqual(['peer branch on hq/wg0 stale (last handshake 3m10s ago, down before its handshake was due: its tunnel probe lost every ping)']);
  });
});
