import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { DEADLINE_GRACE_SECONDS, JobRunner } from '../../src/scheduler/runner.js';
import { Semaphore } from '../../src/scheduler/semaphore.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { SampleSet } from '../../src/metrics/samples.js';
import type { JobContext, JobDefinition } from '../../src/collectors/types.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testRouter } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { routerLabel } from '../../src/metrics/family.js';

const router = testRouter({ name: 'hq', url: 'https://192.0.2.1', username: 'u', password: 'p' });

function runner(run: (context: JobContext) => Promise<void>, deadlineSeconds: number) {
  const store = new SnapshotStore();
  store.plan(new Map([['hq', [{ collector: 'system' as const, job: 'system' }]]]));
  const definition: JobDefinition = {
    collector: 'system',
    job: 'system',
    schedule: '* * * * * *',
    deadlineSeconds,
    settings: null,
    async run(context) {
      await run(context);
      return { samples: new SampleSet(), data: undefined, problems: [], decodeErrors: 0 };
    },
  };
  const job = new JobRunner({
    router,
    definition,
    client: new FakeClient(),
    store,
    semaphore: new Semaphore(1),
    logger: pino({ level: 'silent' }),
    now: Date.now,
    routerLabel: routerLabel('hq'),
  });
  return { job, store };
}

/** Triggers the run and moves the fake clock past its deadline (and the grace), then returns the result. */
async function pastDeadline(job: JobRunner, deadlineSeconds: number): Promise<string> {
  const result = job.trigger();
  await vi.advanceTimersByTimeAsync((deadlineSeconds + DEADLINE_GRACE_SECONDS) * 1000 + 1);
  return result;
}

describe('run deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts a run that outlives its deadline through its signal, and records it failed with reason timeout', async () => {
    let aborted: unknown;
    const { job, store } = runner(
      (context) =>
        new Promise<void>((_, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = context.signal.reason;
            reject(context.signal.reason as Error);
          });
        }),
      5,
    );
    vi.useFakeTimers();
    expect(await pastDeadline(job, 5)).toBe('failed');
    expect(aborted).toMatchObject({ code: 'ROS_ERR_TIMEOUT' });
    expect(store.snapshots('hq')[0]).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('ends a run that ignores its signal at the deadline all the same', async () => {
    const { job, store } = runner(() => new Promise<void>(() => undefined), 5);
    vi.useFakeTimers();
    expect(await pastDeadline(job, 5)).toBe('failed');
    expect(store.snapshots('hq')[0]).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('gives the run its deadline and the grace in full before stopping it', async () => {
    let aborted = false;
    const { job } = runner(
      (context) =>
        new Promise<void>((resolve) => {
          context.signal.addEventListener('abort', () => {
            aborted = true;
          });
          setTimeout(resolve, (5 + DEADLINE_GRACE_SECONDS) * 1000 - 10);
        }),
      5,
    );
    vi.useFakeTimers();
    const result = job.trigger();
    await vi.advanceTimersByTimeAsync((5 + DEADLINE_GRACE_SECONDS) * 1000 - 5);
    expect(await result).toBe('ok');
    expect(aborted).toBe(false);
  });

  it('leaves a run that finishes in time alone', async () => {
    const { job, store } = runner(async () => undefined, 30);
    expect(await job.trigger()).toBe('ok');
    expect(store.snapshots('hq')[0]).toMatchObject({ ok: true });
  });

  it('every job of the catalog has a deadline of at least its router timeout', () => {
    const full = testRouter(
      {
        name: 'hq',
        url: 'https://192.0.2.1',
        username: 'u',
        password: 'p',
        collectors: { wireguard_setup: true },
        ping: [{ target: '192.0.2.9', count: 5, interval: '1s' }],
        bandwidth_test: [{ target: '192.0.2.10', duration: '10s' }],
      },
      {},
    );
    const deadlines = Object.fromEntries(jobsFor(full).map((job) => [job.collector, job.deadlineSeconds]));
    expect(deadlines).toEqual({
      system: full.timeoutSeconds,
      interface: full.timeoutSeconds * 2,
      wireguard: full.timeoutSeconds * 2,
      wireguard_setup: full.timeoutSeconds * 5,
      ping: 5 + full.timeoutSeconds,
      bandwidth_test: 10 + full.timeoutSeconds,
      health: full.timeoutSeconds,
      firmware: full.timeoutSeconds * 2,
    });
  });
});
