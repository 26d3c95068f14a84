/** routeros_up and /health's `up` come from one function (analysis/up.ts) over the same planned jobs. */
import { describe, expect, it } from 'vitest';
import { routerUp } from '../../src/analysis/up.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testRouter } from '../helpers/config.js';
import { SITE_LINKS } from '../health/snapshots.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';

describe('routeros_up', () => {
  it('follows system when it runs, else every job; unknown while a deciding job has not run', () => {
    expect(routerUp([{ collector: 'system', ok: false }, { collector: 'wireguard', ok: true }])).toBe(false);
    expect(routerUp([{ collector: 'system', ok: undefined }, { collector: 'wireguard', ok: true }])).toBeUndefined();
    expect(routerUp([{ collector: 'wireguard', ok: true }, { collector: 'ping', ok: undefined }])).toBeUndefined();
    expect(routerUp([{ collector: 'wireguard', ok: true }, { collector: 'ping', ok: false }])).toBe(false);
    // One failed run settles it without system, whatever has not run yet (it was unknown until all had run).
    expect(routerUp([{ collector: 'wireguard', ok: false }, { collector: 'ping', ok: undefined }])).toBe(false);
    expect(routerUp([{ collector: 'wireguard', ok: true }])).toBe(true);
    expect(routerUp([])).toBeUndefined();
  });

  it('says the same in /metrics and /health for a router without the system collector', () => {
    // Only wireguard and ping: every other collector (system among them) off, so each job below is one of theirs.
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'wireguard' || name === 'ping']));
    const router = testRouter({ collectors, ping: [{ target: '192.0.2.9' }] }, SITE_LINKS);
    const jobs = jobsFor(router);
    expect(jobs.map((job) => job.collector)).toEqual(['wireguard', 'ping']);
    const store = new SnapshotStore();
    store.plan(new Map([['hq', jobs.map((job) => ({ collector: job.collector, job: job.job }))]]));
    const at = Date.UTC(2026, 10, 21, 12);
    const text = (): string => new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
    const healthUp = (): boolean | null => evaluateRouter(router, store.snapshots('hq'), at).health.up;

    // Only wireguard has run: the ping job could still fail, so neither calls the router up yet.
    store.record({ router: 'hq', collector: 'wireguard', job: 'wireguard', ok: true, finishedAt: at, durationSeconds: 0.1, samples: new SampleSet(), data: { collectedAt: at, interfaces: [], peers: [] } });
    expect(text()).not.toContain('routeros_up{');
    expect(healthUp()).toBeNull();

    const ping = jobs[1]?.job ?? '';
    store.record({ router: 'hq', collector: 'ping', job: ping, ok: false, reason: 'timeout', finishedAt: at, durationSeconds: 3 });
    expect(text()).toContain('routeros_up{router="hq"} 0');
    expect(healthUp()).toBe(false);
  });
});
