/** routeros_up and /health's `up` come from one function (analysis/up.ts) over the same planned jobs. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { routerUp, type RunState } from '../../src/analysis/up.js';
import { ERROR_REASONS, type ErrorReason } from '../../src/routeros/errors.js';
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
  const T = Date.UTC(2026, 10, 21, 12);
  const ok = (collector: string, at: number): RunState => ({ collector, ok: true, finishedAt: at });
  const failed = (collector: string, reason: ErrorReason, at: number, since = at): RunState => ({ collector, ok: false, reason, finishedAt: at, failingSince: since });

  it('follows system when it runs', () => {
    expect(routerUp([{ collector: 'system', ok: false }, ok('wireguard', T)])).toBe(false);
    expect(routerUp([{ collector: 'system', ok: undefined }, ok('wireguard', T)])).toBeUndefined();
    expect(routerUp([{ collector: 'system', ok: true }, failed('wireguard', 'timeout', T + 1)])).toBe(true);
    expect(routerUp([])).toBeUndefined();
  });

  it('without system: up once a job succeeded, unless the router went silent after it', () => {
    expect(routerUp([ok('wireguard', T)])).toBe(true);
    expect(routerUp([ok('wireguard', T), { collector: 'ping', ok: undefined }])).toBe(true);
    // One job refused (a ping target the router answers 400 to, a ping refused for its policy) is that job's
    // failure: the router answered. It made the router down, firing RouterOSDown and silencing RouterOSCollectorFailing.
    expect(routerUp([ok('wireguard', T), failed('ping', 'http_4xx', T + 5)])).toBe(true);
    expect(routerUp([ok('wireguard', T), failed('ping', 'auth', T + 5)])).toBe(true);
    expect(routerUp([ok('wireguard', T), failed('ping', 'unsupported', T + 5)])).toBe(true);
    // A failure that says the router does not answer, begun after the newest success: down.
    for (const reason of ['timeout', 'connect', 'tls', 'http_5xx', 'redirect'] as const) {
      expect(routerUp([ok('bandwidth_test', T - 3_600_000), failed('wireguard', reason, T)])).toBe(false);
    }
    // ... begun before a success of another job: that job's alone (a reply too large for its timeout).
    expect(routerUp([failed('wireguard', 'timeout', T + 60_000, T - 60_000), ok('ping', T)])).toBe(true);
  });

  it('without system: unknown while only a job\'s own failures are known; down when every job failed', () => {
    expect(routerUp([failed('ping', 'http_4xx', T), { collector: 'wireguard', ok: undefined }])).toBeUndefined();
    expect(routerUp([failed('ping', 'http_4xx', T), failed('wireguard', 'auth', T + 1)])).toBe(false);
    // A silent router is down at its first failure, whatever has not run yet (check finds it down early).
    expect(routerUp([failed('wireguard', 'connect', T), { collector: 'ping', ok: undefined }])).toBe(false);
  });

  it('does not flap: a job that times out every cycle beside one that succeeds leaves the router up at every step', () => {
    // Any order of the two jobs' runs within each cycle, any number of cycles: once the succeeding job has
    // succeeded after the failing one's streak began, every verdict after is up.
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 29_000 })), { minLength: 2, maxLength: 30 }), fc.constantFrom(...ERROR_REASONS), (cycles, reason) => {
        let failing: RunState | undefined;
        let succeeding: RunState | undefined;
        let settled = false;
        for (const [index, [failFirst, gap]] of cycles.entries()) {
          const start = T + index * 30_000;
          const fail = (at: number): void => {
            failing = failed('wireguard', reason, at, failing?.failingSince ?? at);
          };
          const succeed = (at: number): void => {
            succeeding = ok('ping', at);
          };
          const steps = failFirst ? [fail, succeed] : [succeed, fail];
          steps[0]?.(start);
          if (settled) expect(routerUp([failing ?? { collector: 'wireguard', ok: undefined }, succeeding ?? { collector: 'ping', ok: undefined }])).toBe(true);
          steps[1]?.(start + gap);
          const up = routerUp([failing ?? { collector: 'wireguard', ok: undefined }, succeeding ?? { collector: 'ping', ok: undefined }]);
          if (settled) expect(up).toBe(true);
          if (succeeding !== undefined && failing?.failingSince !== undefined && (succeeding.finishedAt ?? 0) > failing.failingSince) settled = true;
        }
      }),
    );
  });

  it('says the same in /metrics and /health for a router without the system collector', () => {
    // Only wireguard and ping: every other collector (system among them) off, so each job below is one of theirs.
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'wireguard' || name === 'ping']));
    const router = testRouter({ collectors, ping: [{ target: '192.0.2.9' }] }, SITE_LINKS);
    const jobs = jobsFor(router);
    expect(jobs.map((job) => job.collector)).toEqual(['wireguard', 'ping']);
    const store = new SnapshotStore();
    store.plan(new Map([['hq', jobs.map((job) => ({ collector: job.collector, job: job.job }))]]));
    const text = (): string => new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
    const health = (at: number) => evaluateRouter(router, store.snapshots('hq'), at).health;
    const ping = jobs[1]?.job ?? '';
    const wireguard = (at: number, ok: boolean): void =>
      store.record({ router: 'hq', collector: 'wireguard', job: 'wireguard', ok, ...(ok ? {} : { reason: 'timeout' as const }), finishedAt: at, durationSeconds: 0.1, samples: new SampleSet(), data: { collectedAt: at, interfaces: [], peers: [] } });

    // Nothing has run: unknown in both.
    expect(text()).not.toContain('routeros_up{');
    expect(health(T).up).toBeNull();

    // The ping target refused (400) before wireguard ran: the router answered, but nothing says it serves data yet.
    store.record({ router: 'hq', collector: 'ping', job: ping, ok: false, reason: 'http_4xx', finishedAt: T, durationSeconds: 0.05 });
    expect(text()).not.toContain('routeros_up{');
    expect(health(T).up).toBeNull();

    // Wireguard answers: up, with the ping collector failing on its own (RouterOSCollectorFailing's case).
    wireguard(T + 1_000, true);
    expect(text()).toContain('routeros_up{router="hq"} 1');
    expect(text()).toContain('routeros_collector_success{router="hq",collector="ping"} 0');
    expect(health(T + 1_000).up).toBe(true);

    // The router goes silent: wireguard's next run times out, after the newest success. Down, for that reason.
    wireguard(T + 31_000, false);
    expect(text()).toContain('routeros_up{router="hq"} 0');
    const down = health(T + 31_000);
    expect(down.up).toBe(false);
    expect(down.reasons.join(' ')).toContain('(timeout)');

    // Still silent a cycle later: the streak began at the first failure, not at this one.
    wireguard(T + 61_000, false);
    expect(store.snapshots('hq').find((s) => s.job === 'wireguard')?.failingSince).toBe(T + 31_000);
    expect(text()).toContain('routeros_up{router="hq"} 0');

    // Back: up again at its first success.
    wireguard(T + 91_000, true);
    expect(store.snapshots('hq').find((s) => s.job === 'wireguard')?.failingSince).toBeUndefined();
    expect(text()).toContain('routeros_up{router="hq"} 1');
    expect(health(T + 91_000).up).toBe(true);
  });
});
