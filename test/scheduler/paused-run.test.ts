/**
 * A run in flight when the process is paused (a VM paused, SIGSTOP, a held loop): its request timer and deadline run
 * on through the pause and fire late, at the resume, before the reply (in the socket, or resent by the router once
 * the VM runs again) is read. A timeout that the time the process ran could not have reached (within the run's deadline) is not the router's
 * silence: nothing is recorded, no backoff; the next run tells. It was recorded as a failure: router_down, then
 * router_up at the next run, a flap no router had.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/scheduler/runner.js';
import { Semaphore } from '../../src/scheduler/semaphore.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import type { JobDefinition } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { testRouter } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';

/** The run's deadline: a ping of 10 pings 1 s apart and a 10 s timeout, say (its requests' timeouts added up). */
const DEADLINE_MS = 25_000;
const router = testRouter({ name: 'hq' }, { timeout: '10s' });

interface Case {
  /** ms the run ran before the pause, and after the resume until its timer fired. */
  before: number;
  after: number;
  /** The pause (ms); 0: none. */
  pause: number;
}

/** A system run that times out as `drawn` says, after one run that succeeded; what it returned and the router's up state. */
async function timedOutRun({ before, after, pause }: Case): Promise<{ result: string; up: boolean | null; backoff: boolean }> {
  const store = new SnapshotStore();
  store.plan(new Map([['hq', [{ collector: 'system' as const, job: 'system' }]]]));
  let elapsed = 1_000_000;
  let pausedFrom: number | undefined;
  const paused = (since: number): number => (pausedFrom === undefined ? 0 : Math.max(0, pausedFrom + pause - Math.max(since, pausedFrom)));
  let calls = 0;
  const definition: JobDefinition = {
    collector: 'system',
    job: 'system',
    schedule: '*/15 * * * * *',
    deadlineSeconds: DEADLINE_MS / 1000,
    connection: 'reads',
    settings: null,
    run: () => {
      calls++;
      if (calls === 1) return Promise.resolve({ samples: new SampleSet(), data: { version: '7.19.4 (stable)' }, problems: [], decodeErrors: 0 });
      // Ran `before`, paused, ran `after`: its request timer fires then.
      elapsed += before;
      if (pause > 0) pausedFrom = elapsed;
      elapsed += pause + after;
      return Promise.reject(new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/system/resource: request timeout'));
    },
  };
  const job = new JobRunner({ router, definition, client: new FakeClient(), store, semaphore: new Semaphore(1), logger: pino({ level: 'silent' }), now: () => Date.UTC(2026, 11, 4, 12) + elapsed, elapsed: () => elapsed, paused, routerLabel: routerLabel('hq') });
  expect(await job.trigger()).toBe('ok');
  const result = await job.trigger();
  const { health } = evaluateRouter(router, store.snapshots('hq'), Date.UTC(2026, 11, 4, 12) + elapsed, { wireguard: false, setup: false, pings: false });
  return { result, up: health.up, backoff: job.backoff.active(elapsed) };
}

describe('a run that timed out across a pause of the process', () => {
  it('is recorded only when the time the process ran reached its deadline: a timer the pause made fire records nothing (property)', async () => {
    const cases = fc.record({ before: fc.integer({ min: 0, max: 30_000 }), after: fc.integer({ min: 0, max: 30_000 }), pause: fc.oneof(fc.constant(0), fc.integer({ min: 1_000, max: 3_600_000 })) });
    await fc.assert(
      fc.asyncProperty(cases, async (drawn) => {
        const outcome = await timedOutRun(drawn);
        const ranOut = drawn.pause === 0 || drawn.before + drawn.after >= DEADLINE_MS;
        expect(outcome).toEqual(ranOut ? { result: 'failed', up: false, backoff: false } : { result: 'skipped', up: true, backoff: false });
      }),
      { numRuns: 300 },
    );
  });

  it('a 10-minute pause 200 ms into a run: the router stays up (it read down: no answer, timeout)', async () => {
    expect(await timedOutRun({ before: 200, after: 0, pause: 600_000 })).toEqual({ result: 'skipped', up: true, backoff: false });
  });

  it('a run 12 s into its 25 s deadline (a ping still pinging, past the router\'s 10 s timeout) when paused: not recorded (it was, by the timeout)', async () => {
    expect(await timedOutRun({ before: 12_000, after: 0, pause: 600_000 })).toEqual({ result: 'skipped', up: true, backoff: false });
  });
});
