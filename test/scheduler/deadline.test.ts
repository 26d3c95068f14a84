import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { DEADLINE_GRACE_SECONDS, JobRunner, PATIENCE_SECONDS } from '../../src/scheduler/runner.js';
import { Semaphore, type Lane } from '../../src/scheduler/semaphore.js';
import { ReadTurn } from '../../src/scheduler/read-turn.js';
import { RouterStanding } from '../../src/scheduler/standing.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { DEFAULT_BACKOFF } from '../../src/scheduler/backoff.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { SampleSet } from '../../src/metrics/samples.js';
import type { JobContext, JobDefinition } from '../../src/collectors/types.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testRouter } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { routerLabel } from '../../src/metrics/family.js';

const router = testRouter({ name: 'hq', url: 'https://192.0.2.1', username: 'u', password: 'p' });

/** The standing of the runner's router and the silent routers' cap (runner.ts), when a test gives them. */
interface Silence {
  standing: RouterStanding;
  silentSemaphore: Semaphore;
}

function runner(run: (context: JobContext) => Promise<void>, deadlineSeconds: number, semaphore = new Semaphore(1), readTurn?: ReadTurn, silence?: Silence) {
  const store = new SnapshotStore();
  store.plan(new Map([['hq', [{ collector: 'system' as const, job: 'system' }]]]));
  const definition: JobDefinition = {
    collector: 'system',
    job: 'system',
    schedule: '* * * * * *',
    deadlineSeconds,
    connection: 'reads',
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
    semaphore,
    readTurn,
    standing: silence?.standing,
    silentSemaphore: silence?.silentSemaphore,
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

  it('gives runs that end in time one signal, kept from run to run (no controller per run)', async () => {
    const signals: AbortSignal[] = [];
    const { job } = runner(async (context) => {
      signals.push(context.signal);
    }, 30);
    for (let run = 0; run < 3; run++) expect(await job.trigger()).toBe('ok');
    expect(signals).toHaveLength(3);
    expect(new Set(signals).size).toBe(1);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('gives the run after one stopped at its deadline a new signal, not the aborted one', async () => {
    const signals: AbortSignal[] = [];
    let hang = true;
    const { job } = runner((context) => {
      signals.push(context.signal);
      return hang ? new Promise<void>(() => undefined) : Promise.resolve();
    }, 5);
    vi.useFakeTimers();
    expect(await pastDeadline(job, 5)).toBe('failed');
    hang = false;
    expect(await job.trigger()).toBe('ok');
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toMatchObject({ code: 'ROS_ERR_TIMEOUT' });
    expect(signals[1]).not.toBe(signals[0]);
    expect(signals[1]?.aborted).toBe(false);
  });

  it('aborts the signal of the run in flight when the job is stopped', async () => {
    let signal: AbortSignal | undefined;
    const { job } = runner((context) => {
      signal = context.signal;
      return new Promise<void>((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason as Error)));
    }, 30);
    const result = job.trigger();
    await vi.waitFor(() => expect(signal).toBeDefined());
    job.abort();
    expect(await result).toBe('skipped');
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error).message).toBe('job stopped');
  });

  it('holds one AbortController for its runs and its stop, not one more for the stop (4,000 kept at 2,000 routers)', async () => {
    const made: AbortController[] = [];
    const Counting = class extends AbortController {
      constructor() {
        super();
        made.push(this);
      }
    };
    vi.stubGlobal('AbortController', Counting);
    try {
      const signals: AbortSignal[] = [];
      const { job } = runner((context) => {
        signals.push(context.signal);
        return Promise.resolve();
      }, 5);
      for (let run = 0; run < 5; run++) expect(await job.trigger()).toBe('ok');
      job.abort();
      expect(made).toHaveLength(1);
      expect(new Set(signals).size).toBe(1);
      expect(signals[0]?.aborted).toBe(true);
      expect(await job.trigger()).toBe('skipped');
      expect(signals).toHaveLength(5);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a job stopped while its run waits for a permit skips that run and never starts it', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    let started = 0;
    const { job } = runner(() => {
      started++;
      return Promise.resolve();
    }, 5, semaphore);
    const result = job.trigger();
    await vi.waitFor(() => expect(semaphore.waiting).toBe(1));
    job.abort();
    expect(await result).toBe('skipped');
    expect(semaphore.waiting).toBe(0);
    semaphore.release();
    expect(await job.trigger()).toBe('skipped');
    expect(started).toBe(0);
  });

  it('over random runs (in time, past the deadline, listening), every run starts with an unaborted signal no one listens to, aborted only by its deadline or a stop', async () => {
    const kinds = ['in time', 'late', 'listening'] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), { minLength: 2, maxLength: 9 }), async (runs) => {
        let kind: (typeof kinds)[number] | 'stoppable' = 'in time';
        const seen: { signal: AbortSignal; abortedAtStart: boolean; listenersAtStart: number }[] = [];
        // Faked before the runner takes Date.now, so that a failed run's backoff passes with the fake clock.
        vi.useFakeTimers();
        try {
          const { job } = runner((context) => {
            seen.push({ signal: context.signal, abortedAtStart: context.signal.aborted, listenersAtStart: getEventListeners(context.signal, 'abort').length });
            if (kind === 'late') return new Promise<void>(() => undefined);
            if (kind === 'stoppable') return new Promise<void>((_, reject) => context.signal.addEventListener('abort', () => reject(new Error('stopped'))));
            if (kind === 'listening') {
              const onAbort = (): void => undefined;
              context.signal.addEventListener('abort', onAbort, { once: true });
              return Promise.resolve().then(() => context.signal.removeEventListener('abort', onAbort));
            }
            return Promise.resolve();
          }, 5);
          for (const next of runs) {
            kind = next;
            const result = await pastDeadline(job, 5);
            expect(result).toBe(kind === 'late' ? 'failed' : 'ok');
            const last = seen.at(-1);
            expect(last?.abortedAtStart).toBe(false);
            expect(last?.listenersAtStart).toBe(0);
            expect(last?.signal.aborted).toBe(kind === 'late');
            // Past any backoff a timeout earns, so the next tick runs.
            await vi.advanceTimersByTimeAsync(DEFAULT_BACKOFF.otherMaxSeconds * 1000);
          }
          kind = 'stoppable';
          const stopped = job.trigger();
          await vi.advanceTimersByTimeAsync(1);
          job.abort();
          expect(await stopped).toBe('skipped');
          expect(seen.at(-1)?.abortedAtStart).toBe(false);
          expect(seen.at(-1)?.signal.aborted).toBe(true);
          // Whatever ran before, a stopped job starts no run again.
          const runsSeen = seen.length;
          expect(await job.trigger()).toBe('skipped');
          expect(seen).toHaveLength(runsSeen);
        } finally {
          vi.useRealTimers();
        }
      }),
      { numRuns: 40 },
    );
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
      // Interfaces, peers, and the uptime when a peer has no handshake.
      wireguard: full.timeoutSeconds * 3,
      wireguard_setup: full.timeoutSeconds * 7,
      ping: 5 + full.timeoutSeconds,
      bandwidth_test: 10 + full.timeoutSeconds,
      health: full.timeoutSeconds,
      firmware: full.timeoutSeconds * 2,
    });
  });
});

/** A semaphore that counts the permits held of it, and notes a release of one it did not grant. */
class CountingSemaphore extends Semaphore {
  held = 0;
  overReleased = false;
  /** Runs carried past the capacity (force): counted in `held`, holding none of the capacity's permits. */
  carried = 0;
  /** A permit granted while `capacity` or more of the permits were held: the cap did not hold. */
  grantedPastCap = false;

  override async acquire(signal?: AbortSignal, lane?: Lane): Promise<void> {
    await super.acquire(signal, lane);
    if (this.held - this.carried >= this.capacity) this.grantedPastCap = true;
    this.held++;
  }

  override tryAcquire(): boolean {
    const taken = super.tryAcquire();
    if (taken) this.held++;
    return taken;
  }

  override force(): void {
    super.force();
    this.held++;
    this.carried++;
  }

  override dropCarried(): void {
    super.dropCarried();
    this.held--;
    this.carried--;
    if (this.held < 0) this.overReleased = true;
  }

  override release(): void {
    this.held--;
    if (this.held < 0) this.overReleased = true;
    super.release();
  }
}

/** A run that holds on until released: `running` resolves once it has started. */
function heldRun(): { run: () => Promise<void>; running: Promise<void>; release: () => void } {
  let started: () => void = () => undefined;
  const held = { running: new Promise<void>((resolve) => (started = resolve)), release: (): void => undefined };
  return {
    ...held,
    run: () => {
      started();
      return new Promise<void>((resolve) => (held.release = resolve));
    },
    release: () => held.release(),
  };
}

/**
 * A run of a router that has answered so far and now does not (nothing says so before its run ends), holding the
 * one permit of the common cap, and another router's run waiting for that permit. The silent cap has one permit,
 * free or taken. `end` lets the run finish and checks that both caps are whole.
 */
async function slowRunBesideWaiter(silentPermitFree: boolean) {
  const permits = new Semaphore(1);
  const silence = { standing: new RouterStanding(), silentSemaphore: new Semaphore(1) };
  if (!silentPermitFree) expect(silence.silentSemaphore.tryAcquire()).toBe(true);
  const held = heldRun();
  const pending = runner(held.run, 30, permits, undefined, silence).job.trigger();
  await held.running;
  const waiting = runner(async () => undefined, 30, permits).job.trigger();
  const end = async (): Promise<void> => {
    held.release();
    expect(await pending).toBe('ok');
    // The run gave back the permit it held at its end, of the silent cap: both caps are whole.
    expect([permits.tryAcquire(), silence.silentSemaphore.tryAcquire()]).toEqual([true, true]);
  };
  return { permits, silence, waiting, end };
}

describe("a router's read turn", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts a run, and its deadline, only when the run ahead of it on the router has ended', async () => {
    vi.useFakeTimers();
    const turn = new ReadTurn();
    const permits = new Semaphore(4);
    let secondStarted = false;
    // The first holds the router for 8 s of its 10 s deadline; the second has 2 s, which a clock started when it
    // fired would spend waiting.
    const first = runner(() => new Promise<void>((resolve) => setTimeout(resolve, 8_000)), 10, permits, turn);
    const second = runner(async () => {
      secondStarted = true;
    }, 2, permits, turn);
    const results = [first.job.trigger(), second.job.trigger()];
    await vi.advanceTimersByTimeAsync(7_999);
    expect(secondStarted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await Promise.all(results)).toEqual(['ok', 'ok']);
    expect(secondStarted).toBe(true);
  });

  it('passes the turn on when a run fails at its deadline, and holds no global permit while waiting for it', async () => {
    vi.useFakeTimers();
    const turn = new ReadTurn();
    const permits = new Semaphore(1);
    const hanging = runner(() => new Promise<void>(() => undefined), 5, permits, turn);
    const waiting = runner(async () => undefined, 5, permits, turn);
    // Another router's run, with no turn to wait for, takes the one permit while `waiting` waits for its turn.
    const other = runner(async () => undefined, 5, new Semaphore(1));
    const pending = [hanging.job.trigger(), waiting.job.trigger()];
    await vi.advanceTimersByTimeAsync(0);
    expect(permits.waiting).toBe(0);
    expect(await other.job.trigger()).toBe('ok');
    await vi.advanceTimersByTimeAsync((5 + DEADLINE_GRACE_SECONDS) * 1000 + 1);
    expect(await Promise.all(pending)).toEqual(['failed', 'ok']);
    expect(waiting.store.snapshots('hq')[0]).toMatchObject({ ok: true });
  });

  it('a run stopped while it waits for its turn is skipped, and the turn goes on to the next', async () => {
    const turn = new ReadTurn();
    const held = heldRun();
    const holding = runner(held.run, 30, new Semaphore(4), turn);
    const stopped = runner(async () => undefined, 30, new Semaphore(4), turn);
    const next = runner(async () => undefined, 30, new Semaphore(4), turn);
    const results = [holding.job.trigger(), stopped.job.trigger(), next.job.trigger()];
    stopped.job.abort();
    expect(turn.waiting).toBe(1);
    await held.running;
    held.release();
    expect(await Promise.all(results)).toEqual(['ok', 'skipped', 'ok']);
    expect(turn.waiting).toBe(0);
  });

  it("hands its permit to the router's next reading run, ahead of other routers' runs waiting for one", async () => {
    const turn = new ReadTurn();
    const permits = new Semaphore(1);
    const order: string[] = [];
    const held = heldRun();
    const first = runner(held.run, 30, permits, turn);
    const second = runner(async () => {
      order.push('same router');
    }, 30, permits, turn);
    const other = runner(async () => {
      order.push('other router');
    }, 30, permits);
    const results = [first.job.trigger(), second.job.trigger()];
    await held.running;
    // The other router's run waits for the one permit before the router's second run is done waiting its turn.
    results.push(other.job.trigger());
    expect([permits.waiting, turn.waiting]).toEqual([1, 1]);
    held.release();
    expect(await Promise.all(results)).toEqual(['ok', 'ok', 'ok']);
    expect(order).toEqual(['same router', 'other router']);
    // Every permit is back: one run can take it at once.
    expect(permits.waiting).toBe(0);
    expect(await other.job.trigger()).toBe('ok');
  });

  it('gives the permit back to the answering routers when the run that would hand it over found its router silent', async () => {
    const turn = new ReadTurn();
    const permits = new Semaphore(1);
    const silence = { standing: new RouterStanding(), silentSemaphore: new Semaphore(1) };
    const order: string[] = [];
    let fail = (error: Error): void => void error;
    let started = (): void => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const timingOut = runner(() => {
      started();
      return new Promise<void>((_, reject) => (fail = reject));
    }, 30, permits, turn, silence);
    const held = heldRun();
    const next = runner(held.run, 30, permits, turn, silence);
    const other = runner(async () => {
      order.push('other router');
    }, 30, permits);
    const results = [timingOut.job.trigger(), next.job.trigger()];
    await running;
    results.push(other.job.trigger());
    expect([permits.waiting, turn.waiting]).toEqual([1, 1]);
    fail(new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/x: no complete answer within the timeout'));
    // The router's next run waits for the router on a permit of the silent cap; the other router's run is not
    // held up behind it.
    await held.running;
    await expect.poll(() => order).toEqual(['other router']);
    expect(silence.standing.silent).toBe(true);
    held.release();
    expect(await Promise.all(results)).toEqual(['failed', 'ok', 'ok']);
    expect(silence.standing.silent).toBe(false);
    // Every permit of both caps is back.
    const onSilentCap = runner(async () => undefined, 30, silence.silentSemaphore);
    expect(await Promise.all([other.job.trigger(), onSilentCap.job.trigger()])).toEqual(['ok', 'ok']);
    expect([permits.waiting, silence.silentSemaphore.waiting]).toEqual([0, 0]);
  });

  it("lets the router's next read take its own permit after a slow run carried on the silent cap answered", async () => {
    vi.useFakeTimers();
    const turn = new ReadTurn();
    const permits = new Semaphore(1);
    const silence = { standing: new RouterStanding(), silentSemaphore: new Semaphore(4) };
    const slow = heldRun();
    const first = runner(slow.run, 30, permits, turn, silence);
    let nextRan = false;
    const next = runner(async () => {
      nextRan = true;
    }, 30, permits, turn, silence);
    const otherHeld = heldRun();
    const other = runner(otherHeld.run, 30, permits);
    const results = [first.job.trigger()];
    await slow.running;
    results.push(next.job.trigger(), other.job.trigger());
    // The slow run moves to the silent cap, and the other router's run takes the common permit.
    await vi.advanceTimersByTimeAsync(PATIENCE_SECONDS * 1000);
    await otherHeld.running;
    slow.release();
    expect(await results[0]).toBe('ok');
    await vi.advanceTimersByTimeAsync(0);
    // The router answered; the carried run held no permit to hand on, so its next read waits for the quick one
    // the other router holds, and runs once that is released.
    expect(nextRan).toBe(false);
    expect(silence.silentSemaphore.inUse).toBe(0);
    otherHeld.release();
    expect(await Promise.all(results)).toEqual(['ok', 'ok', 'ok']);
    expect(nextRan).toBe(true);
    expect([permits.tryAcquire(), silence.silentSemaphore.tryAcquire()]).toEqual([true, true]);
  });

  it("moves a run that has held an answering routers' permit for PATIENCE_SECONDS to the silent cap, freeing the permit", async () => {
    vi.useFakeTimers();
    const { permits, waiting, end } = await slowRunBesideWaiter(true);
    await vi.advanceTimersByTimeAsync(PATIENCE_SECONDS * 1000 - 1);
    expect(permits.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(permits.waiting).toBe(0);
    expect(await waiting).toBe('ok');
    await end();
  });

  it('moves past a full silent cap at once, carried without a permit: the runs queued there are granted as before', async () => {
    vi.useFakeTimers();
    const permits = new Semaphore(1);
    const silence = { standing: new RouterStanding(), silentSemaphore: new Semaphore(1) };
    expect(silence.silentSemaphore.tryAcquire()).toBe(true);
    const held = heldRun();
    const pending = runner(held.run, 30, permits, undefined, silence).job.trigger();
    await held.running;
    const waiting = runner(async () => undefined, 30, permits).job.trigger();
    await vi.advanceTimersByTimeAsync(PATIENCE_SECONDS * 1000);
    // It used to keep the answering routers' permit while the silent cap had none free (found by review: in a mass
    // outage none ever came free); now it moves at once, one past the silent cap.
    expect(await waiting).toBe('ok');
    expect(silence.silentSemaphore.inUse).toBe(2);
    let granted = false;
    const granting = silence.silentSemaphore.acquire().then(() => (granted = true));
    // The permit held before it is released: the waiter gets it at once. (When carried runs took permits to pay
    // back first, a stream of them kept such a waiter queued for good: found by review.)
    silence.silentSemaphore.release();
    await granting;
    expect(granted).toBe(true);
    held.release();
    expect(await pending).toBe('ok');
    expect(silence.silentSemaphore.inUse).toBe(1);
    silence.silentSemaphore.release();
    expect([permits.tryAcquire(), silence.silentSemaphore.tryAcquire(), silence.silentSemaphore.tryAcquire()]).toEqual([true, true, false]);
  });

  it("takes a silent router's run under the silent cap, and the run of one that answered again under the common cap", async () => {
    vi.useFakeTimers();
    const permits = new Semaphore(1);
    const silence = { standing: new RouterStanding(), silentSemaphore: new Semaphore(1) };
    const other = runner(async () => undefined, 30, permits);
    for (const [outcome, otherWaits] of [['timeout', false], ['ok', true], ['connect', false], ['auth', true]] as const) {
      silence.standing.ran(outcome);
      const held = heldRun();
      const pending = runner(held.run, 30, permits, undefined, silence).job.trigger();
      await held.running;
      const waiting = other.job.trigger();
      await vi.advanceTimersByTimeAsync(0);
      expect(permits.waiting).toBe(otherWaits ? 1 : 0);
      held.release();
      expect(await Promise.all([pending, waiting])).toEqual(['ok', 'ok']);
    }
  });

  it('over random routers, runs, outcomes and stops, no two reads of a router overlap, the caps hold, and every permit comes back', async () => {
    const codes = { timeout: 'ROS_ERR_TIMEOUT', connect: 'ROS_ERR_CONNECT', auth: 'ROS_ERR_AUTH' } as const;
    const run = fc.record({
      at: fc.integer({ min: 0, max: 5_000 }),
      // Up to past the 10 s deadline and its grace.
      lasts: fc.integer({ min: 0, max: 12_000 }),
      outcome: fc.constantFrom('ok', 'timeout', 'connect', 'auth'),
      stopAfter: fc.option(fc.integer({ min: 0, max: 12_000 })),
    });
    const plan = fc.record({
      permits: fc.integer({ min: 1, max: 3 }),
      silentPermits: fc.integer({ min: 1, max: 3 }),
      routers: fc.array(fc.array(run, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ permits, silentPermits, routers }) => {
        vi.useFakeTimers();
        try {
          const common = new CountingSemaphore(permits);
          const silent = new CountingSemaphore(silentPermits);
          let running = 0;
          let most = 0;
          let overlaps = 0;
          let settled = 0;
          const results: Promise<string>[] = [];
          for (const jobs of routers) {
            const turn = new ReadTurn();
            const silence = { standing: new RouterStanding(), silentSemaphore: silent };
            let reading = 0;
            for (const planned of jobs) {
              const { job } = runner((context) => {
                reading++;
                running++;
                if (reading > 1) overlaps++;
                most = Math.max(most, running);
                return new Promise<void>((resolve, reject) => {
                  const end = (): void => {
                    reading--;
                    running--;
                  };
                  const timer = setTimeout(() => {
                    context.signal.removeEventListener('abort', onAbort);
                    end();
                    if (planned.outcome === 'ok') resolve();
                    else reject(new RouterOsError(codes[planned.outcome], 'GET /rest/x: planned'));
                  }, planned.lasts);
                  const onAbort = (): void => {
                    clearTimeout(timer);
                    end();
                    reject(context.signal.reason as Error);
                  };
                  context.signal.addEventListener('abort', onAbort, { once: true });
                });
              }, 10, common, turn, silence);
              setTimeout(() => results.push(job.trigger().finally(() => settled++)), planned.at);
              if (planned.stopAfter !== null) setTimeout(() => job.abort(), planned.at + planned.stopAfter);
            }
          }
          await vi.advanceTimersByTimeAsync(200_000);
          expect(results).toHaveLength(routers.flat().length);
          expect(settled).toBe(results.length);
          expect(overlaps).toBe(0);
          expect(running).toBe(0);
          // Runs moved off the common cap may take the silent one past its size (Semaphore.force), so runs in flight
          // are bounded by what the caps let start; no permit is ever granted while a cap is full.
          expect(most).toBeGreaterThan(0);
          expect([common.grantedPastCap, silent.grantedPastCap]).toEqual([false, false]);
          expect([common.held, silent.held, common.overReleased, silent.overReleased]).toEqual([0, 0, false, false]);
          for (const [semaphore, count] of [[common, permits], [silent, silentPermits]] as const) {
            for (let i = 0; i < count; i++) expect(semaphore.tryAcquire()).toBe(true);
            expect(semaphore.tryAcquire()).toBe(false);
          }
        } finally {
          vi.useRealTimers();
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('a run a reload starts despite a backoff', () => {
  it('is let through once per backoff, however often reloads ask (a login each before: found by review)', async () => {
    let calls = 0;
    const { job } = runner(async () => {
      calls++;
      throw new RouterOsError('ROS_ERR_AUTH', 'GET /rest/x: HTTP 401');
    }, 10);
    expect(await job.trigger()).toBe('failed');
    expect(await job.trigger()).toBe('skipped');
    expect(await job.trigger({ despiteBackoff: true })).toBe('failed');
    for (let reload = 0; reload < 5; reload++) expect(await job.trigger({ despiteBackoff: true })).toBe('skipped');
    expect(calls).toBe(2);
    job.abort();
  });
});
