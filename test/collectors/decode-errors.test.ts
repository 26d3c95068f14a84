/**
 * What cannot be read is visible: values that did not decode are counted in
 * routeros_collector_decode_errors_total{router,collector}, logged once (not once per run), and a peer that
 * cannot be judged makes /health and `check` say degraded ("cannot judge N peers") instead of ok.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { mapPing } from '../../src/collectors/ping.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { peerRecord, pingJob, systemOk, T0, WG_UP } from '../health/snapshots.js';
import { testRouter } from '../helpers/config.js';
import { routerLabel } from '../../src/metrics/family.js';

/** Answers every menu from the given records: no socket, like the recorded-reply tests. */
class RecordsClient implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  constructor(readonly peers: RouterRecord[]) {}
  list(menu: string): Promise<RouterRecord[]> {
    if (menu === 'interface/wireguard') return Promise.resolve([WG_UP]);
    return Promise.resolve(menu === 'interface/wireguard/peers' ? this.peers : []);
  }
  getSingleton(): Promise<RouterRecord> {
    return Promise.resolve({ 'cpu-load': '3', uptime: '5m', version: '7.19.4 (stable)' });
  }
  run(): Promise<unknown> {
    return Promise.resolve([]);
  }
}

function setup(peers: RouterRecord[]) {
  const store = new SnapshotStore();
  const logs = captureLogs();
  const config = testConfig({
    defaults: { username: 'u', password: 'p' },
    routers: [{ name: 'hq', url: 'https://192.0.2.1' }],
  });
  const scheduler = new Scheduler({
    store,
    logger: logs.logger,
    clientFor: () => new RecordsClient(peers) as unknown as JobContext['client'],
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    now: () => T0,
  });
  scheduler.load(config);
  const text = (): string => new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
  return { store, scheduler, text, config, logs };
}

describe('routeros_collector_decode_errors_total', () => {
  it('counts the values that did not decode, by collector, across runs, from 0', async () => {
    const { scheduler, text } = setup([peerRecord('a', '14300000w'), peerRecord('b', 'soon'), peerRecord('c', '5s', { rx: '-5' })]);
    expect(text()).toContain('routeros_collector_decode_errors_total{router="hq",collector="wireguard"} 0\n');
    await scheduler.runAllOnce();
    expect(text()).toContain('# TYPE routeros_collector_decode_errors_total counter\n');
    expect(text()).toContain('routeros_collector_decode_errors_total{router="hq",collector="wireguard"} 3\n');
    expect(text()).toContain('routeros_collector_decode_errors_total{router="hq",collector="system"} 0\n');
    await scheduler.runAllOnce();
    expect(text()).toContain('routeros_collector_decode_errors_total{router="hq",collector="wireguard"} 6\n');
    await scheduler.stop();
  });

  it('logs the problems once while they last, bounded, not once per run', async () => {
    const many = Array.from({ length: 200 }, (_, i) => peerRecord(`p${i}`, `${'9'.repeat(500)}w`));
    const { scheduler, logs } = setup(many);
    await scheduler.runAllOnce();
    await scheduler.runAllOnce();
    const lines = logs.lines().filter((line) => String(line['msg']).includes('did not decode'));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.['count']).toBe(200);
    expect(JSON.stringify(lines[0]).length).toBeLessThan(2_000);
    await scheduler.stop();
  });
});

describe('peers that cannot be judged make the verdict degraded', () => {
  it('/health is not ok and check says WARNING "cannot judge N peers"', async () => {
    const { scheduler, store, config } = setup([peerRecord('a', 'soon'), peerRecord('b', '14300000w'), peerRecord('fine', '5s')]);
    await scheduler.runAllOnce();
    const evaluated = evaluateRouters(config.routers, store, T0);
    expect(evaluated.report.status).toBe('degraded');
    expect(evaluated.report.summary).toMatch(/cannot judge 2 peers/);
    expect(evaluated.report.routers[0]?.reasons.join()).toMatch(/hq\/wireguard: cannot judge 2 peers: their last-handshake did not decode \(wg-branch\/a, wg-branch\/b\)/);
    const check = formatCheck(evaluated, config.routers);
    expect(check.state).toBe('WARNING');
    expect(check.text).toMatch(/^ROUTEROS WARNING - .*cannot judge 2 peers/);
    await scheduler.stop();
  });

  it('a stale peer is still critical when another cannot be judged', () => {
    const router = testRouter();
    const wg = {
      collector: 'wireguard' as const, job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0, lastSuccessAt: T0, chunks: [],
      data: {
        collectedAt: T0,
        interfaces: [{ name: 'wg-branch', publicKey: 'S', running: true, disabled: false, listenPort: 13231 }],
        peers: [
          // A keepalive site link whose handshake is an hour old: down, whatever the other peer says.
          { interface: 'wg-branch', publicKey: 'k1', name: 'old', comment: undefined, disabled: false, latestHandshake: T0 / 1000 - 3600, handshakeUnreadable: false,
            keepaliveSeconds: 25, hasEndpoint: true, rxMoved: false, txMoved: false },
          { interface: 'wg-branch', publicKey: 'k2', name: 'odd', comment: undefined, disabled: false, latestHandshake: undefined, handshakeUnreadable: true,
            keepaliveSeconds: 25, hasEndpoint: true, rxMoved: false, txMoved: false },
        ],
      },
    };
    const evaluation = evaluateRouter(router, [systemOk(), wg], T0);
    expect(evaluation.health.status).toBe('critical');
    expect(evaluation.problems.map((problem) => problem.kind).sort()).toEqual(['peer-stale', 'peer-unjudged']);
  });
});

describe('a ping reply without sent/received totals', () => {
  const router = testRouter({ ping: [{ target: '10.0.0.1', count: 3, name: 't' }] });
  const target = router.ping[0];
  if (target === undefined) throw new Error('config');

  it('is not 100 % loss: loss left out, the problem counted', () => {
    const result = mapPing([{ host: '10.0.0.1', seq: '2', status: 'timeout' }], target, routerLabel('hq'), new Map());
    expect(result.data.lossRatio).toBeUndefined();
    expect(result.data.success).toBeUndefined();
    expect(result.decodeErrors).toBe(1);
    expect(result.problems.join()).toMatch(/no sent\/received/);
  });

  it('makes the ping degraded with "loss unreadable", not critical', () => {
    const data = mapPing([{ host: '10.0.0.1', seq: '2', status: 'timeout' }], target, routerLabel('hq'), new Map()).data;
    const snapshot = { collector: 'ping' as const, job: pingJob(router, 0), ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0, lastSuccessAt: T0, chunks: [], data };
    const evaluation = evaluateRouter(router, [systemOk(), snapshot], T0, { wireguard: false, setup: false, pings: true });
    expect(evaluation.health.pings[0]?.status).toBe('degraded');
    expect(evaluation.health.pings[0]?.lossRatio).toBeNull();
    expect(evaluation.problems[0]?.brief).toBe('loss unreadable');
  });
});
