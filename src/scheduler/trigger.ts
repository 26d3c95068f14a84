/**
 * The clock seam of the scheduler: production uses node-cron, tests use a manual trigger.
 *
 * One node-cron task per distinct expression, not per job: a fleet of 2,000 routers with two jobs each on the
 * same schedule holds one task (about 4 KiB and a timer each) instead of 4,000, and every subscriber of an
 * expression sees the same tick. node-cron still does all the cron arithmetic, so the semantics are its own.
 *
 * node-cron reckons the wait until the next slot on the wall clock once, then keeps to it: with the wall clock
 * set back an hour every schedule slept for the hour, and setting the clock right again did not wake them. A
 * watchdog compares the wall clock with the monotonic one every few seconds; when they part by more than a
 * second (a step, not drift or a busy event loop, which move both alike), every task is made again and reckons
 * its next slot from the wall clock as it is now. Slots crossed back over run again; slots jumped over are missed.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

export interface Trigger {
  stop(): void;
}

export type TriggerFactory = (expression: string, onTick: () => void, name: string) => Trigger;

interface Shared {
  /** Made again after a wall-clock step (the watchdog); the entry itself stays, so subscriptions keep it. */
  task: ScheduledTask;
  /** Each subscription is its own entry, so one callback subscribed twice is called twice and stopped once. */
  readonly listeners: Set<{ readonly onTick: () => void }>;
}

/** Exported for tests: how many node-cron tasks the shared triggers hold now. */
export function sharedTaskCount(): number {
  return shared.size;
}

const shared = new Map<string, Shared>();

function tick(listeners: Shared['listeners']): void {
  // A copy: a tick may stop or add subscriptions (a reload), which must not disturb this round.
  for (const listener of [...listeners]) listener.onTick();
}

/**
 * Where node-cron's own messages go. Left to itself it writes coloured, non-JSON lines to the console (a missed
 * tick when the event loop was busy past its time): into the exporter's JSON log instead, in its words.
 */
let log: Pick<Logger, 'warn' | 'error'> | undefined;

/** The logger node-cron's messages go to (the scheduler's); silent until set. */
export function setTriggerLogger(logger: Pick<Logger, 'warn' | 'error'>): void {
  log = logger;
}

/** At most one line a minute per schedule: a clock stepped a day forward makes node-cron report every slot. */
const MISSED_LOG_EVERY_MS = 60_000;

function cronLogger(expression: string): { info(message: string): void; warn(message: string): void; error(message: unknown, error?: unknown): void; debug(message: string): void } {
  let loggedAt = Number.NEGATIVE_INFINITY;
  let missed = 0;
  return {
    info: () => undefined,
    debug: () => undefined,
    warn: () => {
      missed++;
      const now = performance.now();
      if (now - loggedAt < MISSED_LOG_EVERY_MS) return;
      log?.warn({ schedule: expression, missed }, 'scheduled ticks were missed: the event loop was busy past their time, or the clock was stepped (the next tick runs as usual)');
      loggedAt = now;
      missed = 0;
    },
    error: (message, error) => log?.error({ schedule: expression, err: error ?? message }, 'the schedule failed to run a tick'),
  };
}

function schedule(expression: string, listeners: Shared['listeners']): ScheduledTask {
  return cron.schedule(expression, () => tick(listeners), { name: `schedule ${expression}`, noOverlap: false, logger: cronLogger(expression) });
}

/** How often the watchdog looks, and how far the two clocks may part before it counts as a step. */
export const CLOCK_WATCH_MS = 5_000;
const CLOCK_STEP_MS = 1_000;
let watchdog: NodeJS.Timeout | undefined;

function watchClock(): void {
  if (watchdog !== undefined) return;
  let wall = Date.now();
  let monotonic = performance.now();
  watchdog = setInterval(() => {
    const nowWall = Date.now();
    const nowMonotonic = performance.now();
    const step = nowWall - wall - (nowMonotonic - monotonic);
    wall = nowWall;
    monotonic = nowMonotonic;
    if (Math.abs(step) <= CLOCK_STEP_MS) return;
    for (const [expression, entry] of shared) {
      void entry.task.destroy();
      entry.task = schedule(expression, entry.listeners);
    }
  }, CLOCK_WATCH_MS);
  watchdog.unref();
}

/** node-cron, seconds field allowed. Overlap is handled by the job runner, which knows about in-flight runs. */
export const cronTrigger: TriggerFactory = (expression, onTick) => {
  let entry = shared.get(expression);
  if (entry === undefined) {
    const listeners: Shared['listeners'] = new Set();
    entry = { task: schedule(expression, listeners), listeners };
    shared.set(expression, entry);
    watchClock();
  }
  const subscription = { onTick };
  const own = entry;
  own.listeners.add(subscription);
  return {
    stop: () => {
      if (!own.listeners.delete(subscription) || own.listeners.size > 0) return;
      if (shared.get(expression) === own) shared.delete(expression);
      void own.task.destroy();
      if (shared.size === 0 && watchdog !== undefined) {
        clearInterval(watchdog);
        watchdog = undefined;
      }
    },
  };
};
