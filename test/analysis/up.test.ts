/** routeros_up and /health's `up` come from one function (analysis/up.ts) over the same planned jobs. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { routerUp, runStateOf, saysSilent, type RunState } from '../../src/analysis/up.js';
import type { ErrorReason, RouterOsErrorCode } from '../../src/routeros/errors.js';
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
  // Runs by their place in the order they finished (the store's `seq`); a silent failure carries the start of its streak.
  const ok = (collector: string, seq: number): RunState => ({ collector, ok: true, seq });
  const failed = (collector: string, seq: number): RunState => ({ collector, ok: false, seq });
  const silent = (collector: string, seq: number, since = seq): RunState => ({ collector, ok: false, seq, silentSince: since });

  it('follows system when it runs', () => {
    expect(routerUp([{ collector: 'system', ok: false }, ok('wireguard', 1)])).toBe(false);
    expect(routerUp([{ collector: 'system', ok: undefined }, ok('wireguard', 1)])).toBeUndefined();
    expect(routerUp([{ collector: 'system', ok: true }, silent('wireguard', 2)])).toBe(true);
    expect(routerUp([])).toBeUndefined();
  });

  it('tells a silent router by its error: no connection, TLS or reply, a 5xx, a redirect, or its credentials refused', () => {
    for (const code of ['ROS_ERR_TIMEOUT', 'ROS_ERR_CONNECT', 'ROS_ERR_DNS', 'ROS_ERR_TLS', 'ROS_ERR_AUTH', 'ROS_ERR_HTTP_5XX', 'ROS_ERR_REDIRECT'] as const) {
      expect(saysSilent(code, 'timeout'), code).toBe(true);
    }
    // A missing policy is one job's, though its reason is `auth` as a wrong password's is.
    for (const code of ['ROS_ERR_PERMISSION', 'ROS_ERR_HTTP_4XX', 'ROS_ERR_NOT_FOUND', 'ROS_ERR_UNSUPPORTED', 'ROS_ERR_PARSE', 'ROS_ERR_SHAPE'] as const) {
      expect(saysSilent(code, 'auth'), code).toBe(false);
    }
    expect(saysSilent(undefined, 'auth')).toBe(false);
    expect(saysSilent(undefined, 'connect')).toBe(true);
  });

  it('without system: up once a job succeeded, unless the router went silent after it', () => {
    expect(routerUp([ok('wireguard', 1)])).toBe(true);
    expect(routerUp([ok('wireguard', 1), { collector: 'ping', ok: undefined }])).toBe(true);
    // One job refused (a ping target the router answers 400 to, a ping refused for its policy) is that job's
    // failure: the router answered. It made the router down, firing RouterOSDown and silencing RouterOSCollectorFailing.
    expect(routerUp([ok('wireguard', 1), failed('ping', 2)])).toBe(true);
    // Silent failures begun after the newest success: down, however long ago the rarest job last succeeded.
    expect(routerUp([ok('bandwidth_test', 1), silent('wireguard', 2)])).toBe(false);
    // ... begun before a success of another job: that job's alone (a reply too large for its timeout).
    expect(routerUp([silent('wireguard', 9, 3), ok('ping', 4)])).toBe(true);
  });

  it('without system: unknown until a job has run; down while nothing has succeeded and a job has failed', () => {
    expect(routerUp([{ collector: 'ping', ok: undefined }, { collector: 'wireguard', ok: undefined }])).toBeUndefined();
    // A job not run yet (a daily bandwidth test) does not hold a router whose every answer was a refusal at unknown.
    expect(routerUp([failed('ping', 1), { collector: 'bandwidth_test', ok: undefined }])).toBe(false);
    expect(routerUp([failed('ping', 1), failed('wireguard', 2)])).toBe(false);
    // A silent router is down at its first failure, whatever has not run yet (check finds it down early).
    expect(routerUp([silent('wireguard', 1), { collector: 'ping', ok: undefined }])).toBe(false);
  });

  it('does not flap: a job that fails silently every cycle beside one that succeeds leaves the router up at every step', () => {
    // Any order of the two jobs' runs within each cycle, any number of cycles: once the succeeding job has
    // succeeded after the failing one's streak began, every verdict after is up.
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 30 }), (cycles) => {
        let seq = 0;
        let failing: RunState | undefined;
        let succeeding: RunState | undefined;
        let settled = false;
        const verdict = (): boolean | undefined => routerUp([failing ?? { collector: 'wireguard', ok: undefined }, succeeding ?? { collector: 'ping', ok: undefined }]);
        for (const failFirst of cycles) {
          const fail = (): void => {
            seq++;
            failing = silent('wireguard', seq, failing?.silentSince ?? seq);
          };
          const succeed = (): void => {
            seq++;
            succeeding = ok('ping', seq);
          };
          for (const step of failFirst ? [fail, succeed] : [succeed, fail]) {
            step();
            if (settled) expect(verdict()).toBe(true);
            if (succeeding?.seq !== undefined && failing?.silentSince !== undefined && succeeding.seq > failing.silentSince) settled = true;
          }
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
    const wireguard = (at: number, ok: boolean, failure: { reason: ErrorReason; code: RouterOsErrorCode } = { reason: 'timeout', code: 'ROS_ERR_TIMEOUT' }): void =>
      store.record({ router: 'hq', collector: 'wireguard', job: 'wireguard', ok, ...(ok ? {} : failure), finishedAt: at, durationSeconds: 0.1, samples: new SampleSet(), data: { collectedAt: at, interfaces: [], peers: [] } });
    const silentSince = (): number | undefined => store.snapshots('hq').find((s) => s.job === 'wireguard')?.silentSince;

    // Nothing has run: unknown in both.
    expect(text()).not.toContain('routeros_up{');
    expect(health(T).up).toBeNull();

    // The ping target refused (400) before wireguard ran: nothing the router answered was data yet.
    store.record({ router: 'hq', collector: 'ping', job: ping, ok: false, reason: 'http_4xx', finishedAt: T, durationSeconds: 0.05 });
    expect(text()).toContain('routeros_up{router="hq"} 0');
    expect(health(T).up).toBe(false);

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

    // Still silent a cycle later, with the wall clock stepped back an hour: the streak began at the first failure,
    // and runs are ordered as they were recorded, not by a clock that steps.
    const first = silentSince();
    wireguard(T - 3_600_000, false);
    expect(silentSince()).toBe(first);
    expect(text()).toContain('routeros_up{router="hq"} 0');

    // Back: up again at its first success.
    wireguard(T + 91_000, true);
    expect(silentSince()).toBeUndefined();
    expect(text()).toContain('routeros_up{router="hq"} 1');
    expect(health(T + 91_000).up).toBe(true);

    // The password rotated on the router: a 401 refuses every request alike, so the router is down at once,
    // while a policy refused (reason auth as well) is that job's, with the ping job answering.
    store.record({ router: 'hq', collector: 'ping', job: ping, ok: true, finishedAt: T + 100_000, durationSeconds: 0.05, samples: new SampleSet(), data: undefined });
    wireguard(T + 121_000, false, { reason: 'auth', code: 'ROS_ERR_PERMISSION' });
    expect(text()).toContain('routeros_up{router="hq"} 1');
    wireguard(T + 151_000, false, { reason: 'auth', code: 'ROS_ERR_AUTH' });
    expect(text()).toContain('routeros_up{router="hq"} 0');
    expect(health(T + 151_000).reasons.join(' ')).toContain('(auth)');
  });

  it('starts a job\'s silent streak at its first silent failure, not at a failure of another kind before it', () => {
    const store = new SnapshotStore();
    store.plan(new Map([['hq', [{ collector: 'wireguard' as const, job: 'wireguard' }, { collector: 'firmware' as const, job: 'firmware' }]]]));
    const record = (job: 'wireguard' | 'firmware', ok: boolean, failure?: { reason: ErrorReason; code: RouterOsErrorCode }): void =>
      store.record({ router: 'hq', collector: job, job, ok, ...(failure ?? {}), finishedAt: T, durationSeconds: 0.1 });
    record('wireguard', false, { reason: 'http_4xx', code: 'ROS_ERR_HTTP_4XX' });
    record('firmware', true);
    // The router goes silent after firmware's (hourly) success: wireguard's first silent failure starts the streak.
    record('wireguard', false, { reason: 'timeout', code: 'ROS_ERR_TIMEOUT' });
    expect(routerUp(store.snapshots('hq').map((snapshot) => runStateOf(snapshot.collector, snapshot)))).toBe(false);
  });

  it('a slow job beside answering ones in the same look is that job\'s failure, not the router\'s (check looks once)', () => {
    const store = new SnapshotStore();
    const jobs = ['interface', 'wireguard', 'wireguard_setup'] as const;
    store.plan(new Map([['hq', jobs.map((job) => ({ collector: job, job }))]]));
    const up = (): boolean | undefined => routerUp(store.snapshots('hq').map((snapshot) => runStateOf(snapshot.collector, snapshot)));
    // One tick: all three start before any is recorded; the set-up audit's runs after the others on the router's
    // connection and times out.
    const start = store.recorded;
    for (const job of ['interface', 'wireguard'] as const) store.record({ router: 'hq', collector: job, job, ok: true, finishedAt: T, durationSeconds: 0.3, startedAfter: start });
    store.record({ router: 'hq', collector: 'wireguard_setup', job: 'wireguard_setup', ok: false, reason: 'timeout', code: 'ROS_ERR_TIMEOUT', finishedAt: T + 10_000, durationSeconds: 10, startedAfter: start });
    expect(up()).toBe(true);
    // The router goes silent: the next tick's runs start after those successes and time out. Down at the first.
    const next = store.recorded;
    store.record({ router: 'hq', collector: 'interface', job: 'interface', ok: false, reason: 'timeout', code: 'ROS_ERR_TIMEOUT', finishedAt: T + 40_000, durationSeconds: 10, startedAfter: next });
    expect(up()).toBe(false);
  });
});
