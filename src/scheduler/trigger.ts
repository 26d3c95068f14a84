/**
 * The clock seam of the scheduler: production uses cron expressions, tests use a manual trigger.
 *
 * One timer per distinct expression, not per job: a fleet of 2,000 routers with two jobs each on the same
 * schedule holds one (and a node-cron matcher) instead of 4,000, and every subscriber of an expression sees the
 * same tick. node-cron does the cron arithmetic (its matcher finds the next slot), so the semantics are its own;
 * the timer is ours. node-cron's own runner walked every slot between its last beat and now, one at a time: a
 * wall clock stepped forward a day held the event loop 6.5 s on a per-second schedule, and a host that boots in
 * 1970 and is then set right by NTP would have walked 1.7 billion slots. Here a wake finds the next slot from
 * the time as it is now, whatever lies between.
 *
 * A timer waits on the monotonic clock: with the wall clock set back an hour, a schedule would sleep for the
 * hour. A watchdog compares the wall clock with the monotonic one every few seconds; when they part by more than
 * a second (a step, not drift or a busy event loop, which move both alike), every schedule reckons its next slot
 * from the wall clock as it is now. Slots crossed back over run again; slots jumped over are missed.
 */
import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { LogThrottle } from '../util/log-throttle.js';
import { nextSlot, slotRules, type SlotRules } from './next-slot.js';

export interface Trigger {
  stop(): void;
}

export type TriggerFactory = (expression: string, onTick: () => void, name: string) => Trigger;

interface Shared {
  readonly clock: CronClock;
  /** Each subscription is its own entry, so one callback subscribed twice is called twice and stopped once. */
  readonly listeners: Set<{ readonly onTick: () => void }>;
}

/** Exported for tests: how many schedules the shared triggers hold now. */
export function sharedTaskCount(): number {
  return shared.size;
}

const shared = new Map<string, Shared>();

function tick(listeners: Shared['listeners']): void {
  // A copy: a tick may stop or add subscriptions (a reload), which must not disturb this round.
  for (const listener of [...listeners]) listener.onTick();
}

/** Where the schedules' messages go (a slot missed): the scheduler's logger; silent until set. */
let log: Pick<Logger, 'warn' | 'error'> | undefined;

/** The logger the schedules' messages go to (the scheduler's); silent until set. */
export function setTriggerLogger(logger: Pick<Logger, 'warn' | 'error'>): void {
  log = logger;
}

/** At most one line a minute per schedule about missed slots. */
const MISSED_LOG_EVERY_MS = 60_000;
/** Minutes walked one by one to count the slots a late wake missed (a day: ~35 ms of matching at most). */
const MISSED_WALK_MINUTES = 1_440;
/** How late a wake may be and still run its slot (node-cron's missed-execution tolerance). */
const LATE_TOLERANCE_MS = 1_000;
/**
 * The longest single wait: a yearly slot is waited for in steps (a timer holds at most ~24.8 days), and each
 * step asks for the next slot again, so a UTC offset change ahead is looked at when it is near (next-slot.ts).
 */
const LONGEST_WAIT_MS = 3_600_000;

/** One expression's timer: sleeps until its next slot, ticks, and finds the next one from the time it wakes. */
class CronClock {
  readonly #expression: string;
  readonly #matcher: ScheduledTask;
  readonly #rules: SlotRules;
  readonly #onTick: () => void;
  #timer: NodeJS.Timeout | undefined;
  #next = 0;
  /** Whether the slot waited for runs (a pinned schedule's slot on a repeated hour's second pass does not). */
  #nextRuns = false;
  #missed = 0;
  readonly #missedLog = new LogThrottle(MISSED_LOG_EVERY_MS, () => {
    log?.warn(
      { schedule: this.#expression, missed: this.#missed },
      'scheduled ticks were missed: the event loop was busy past their time, or the clock was stepped (the next tick runs as usual)',
    );
    this.#missed = 0;
  });

  constructor(expression: string, onTick: () => void) {
    this.#expression = expression;
    // Never started: only its matcher is used (getNextRuns), so node-cron runs no timer of its own. The local
    // zone is named, not left to node-cron's default: it keeps one formatter per zone name for the process, and
    // with none named, one of whatever zone was local when the first schedule was made.
    this.#matcher = createTask(expression, () => undefined, { name: `schedule ${expression}`, noOverlap: false, timezone: localZone() });
    this.#rules = slotRules(expression);
    this.#onTick = onTick;
    this.#arm();
  }

  /**
   * Finds the next slot from now again (the wall clock was stepped). A slot the wall clock has already reached is
   * woken for at once, as its timer would have: run if within the tolerance, else counted missed. Found from now, it
   * was passed over unrun and unlogged, even one the clock reached in order before the steps were seen.
   */
  rearm(): void {
    clearTimeout(this.#timer);
    if (this.#next <= Date.now()) this.#wake();
    else this.#arm();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#missedLog.close();
    // A throw here would stop a reload or a shutdown half-way (it did, with a zone node-cron could not read).
    try {
      void this.#matcher.destroy();
    } catch {
      /* the matcher holds no timer: nothing is left running */
    }
  }

  /** `now`: the wake's own read of the clock, when a wake arms (a second read could land past the slot it found early). */
  #arm(now = Date.now()): void {
    // No next slot (the loader refuses such schedules; the local time zone may still skip the one hour a schedule
    // names): a look again in an hour, which ticks nothing (#wake) until a slot is found. node-cron's matcher
    // throwing is no slot too (nextSlot): a throw here, in a load or a timer, would stop every job after this one.
    const slot = nextSlot(this.#matcher, this.#rules, now, LONGEST_WAIT_MS);
    this.#next = slot?.at ?? Number.POSITIVE_INFINITY;
    this.#nextRuns = slot?.runs ?? false;
    this.#sleep();
  }

  #sleep(): void {
    const wait = Math.min(Math.max(0, this.#next - Date.now()), LONGEST_WAIT_MS);
    this.#timer = setTimeout(() => this.#wake(), wait);
  }

  #wake(): void {
    const now = Date.now();
    if (this.#next === Number.POSITIVE_INFINITY) {
      this.#arm(now);
      return;
    }
    // Early (the wait was cut to LONGEST_WAIT_MS, or timers ran a little ahead of the wall clock): the next slot
    // asked for again, which finds the same one unless a UTC offset change has come near. Asked from this read, not
    // a new one: a pause between the two that put the second in the slot's second passed the slot over, unlogged.
    if (now < this.#next) {
      this.#arm(now);
      return;
    }
    // Armed first: a tick that throws or stops this schedule must find the next slot already set.
    // Late as node-cron reckoned it, from the start of the current second: a wake up to ~2 s after its slot
    // still runs it (a busy event loop at fleet scale must not lose a whole minute's run for 1.2 s).
    const slot = this.#next;
    const late = Math.floor(now / 1000) * 1000 - slot;
    const runs = this.#nextRuns;
    const inTime = late <= LATE_TOLERANCE_MS;
    // In time, the next slot is the first after this one, not after the wake: a wake 1.5 s late on a per-second
    // schedule passed the slot between over, neither run nor counted missed (found by review); it now runs at once,
    // late within the tolerance as well. A slot missed arms from the wake: those between are missed too.
    this.#arm(inTime ? slot : now);
    if (!runs) return;
    if (inTime) {
      try {
        this.#onTick();
      } catch (error) {
        log?.error({ schedule: this.#expression, err: error }, 'the schedule failed to run a tick');
      }
    } else {
      this.#noteMissed(this.#slotsFrom(slot, now));
    }
  }

  /**
   * The slots from `slot` (missed) to the wake at `now`: a wake late by a pause of the process (a VM paused,
   * SIGSTOP) or a step of the clock misses every slot in between, not one (a 10-minute pause on a 15 s schedule was
   * told as 1 missed). A minute at a time (does the minute run at all: one match), its allowed seconds counted, for
   * up to MISSED_WALK_MINUTES; past them the rest is reckoned from the rate of those (a step of decades walks a day).
   */
  #slotsFrom(slot: number, now: number): number {
    const seconds = this.#rules.seconds;
    const end = Math.floor(now / 1000) * 1000;
    let minute = Math.floor(slot / 60_000) * 60_000;
    const walkEnd = Math.min(end, minute + MISSED_WALK_MINUTES * 60_000);
    // Cut short, the walk counts [slot, walkEnd) and the rest [walkEnd, end] is reckoned: a walk that counted both of
    // its ends reckoned a rate one slot a day too high: about one slot too many told for every day past the first.
    const reckons = walkEnd < end;
    let count = 0;
    for (; minute <= walkEnd; minute += 60_000) {
      let runs: boolean;
      try {
        runs = this.#matcher.match(new Date(minute + (seconds[0] ?? 0) * 1000));
      } catch {
        runs = false;
      }
      if (!runs) continue;
      for (const second of seconds) {
        const at = minute + second * 1000;
        if (at >= slot && (at < walkEnd || (at === walkEnd && !reckons))) count++;
      }
    }
    // The seconds of [walkEnd, end] at the rate of those of [slot, walkEnd), both whole seconds; rounded up, so that a
    // slot is told one too many rather than one too few.
    if (reckons && walkEnd > slot) count += Math.ceil((count * (end - walkEnd + 1000)) / (walkEnd - slot));
    return Math.max(1, count);
  }

  #noteMissed(slots: number): void {
    this.#missed += slots;
    this.#missedLog.noted();
  }
}

/**
 * The zone local time is read in: the process's (TZ, or the system's), as Intl resolves it now; none when Intl
 * cannot name one it reads. An empty TZ (compose's `TZ: ${TZ}` with TZ unset) resolves to `Etc/Unknown`, which
 * node-cron's formatters refuse: every schedule found no slot, nothing ever ran, and stopping one threw (found by
 * review). node-cron then reads local time as Date does.
 */
function localZone(): string | undefined {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    // Throws for a zone Intl cannot read, Etc/Unknown among them.
    new Intl.DateTimeFormat('en-US', { timeZone: zone }).format(0);
    return zone;
  } catch {
    return undefined;
  }
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
    // From the last re-arm, not the last look: steps each under the threshold add up while a timer waits on the
    // monotonic clock (three of 0.7 s in one 30 s wait had it wake 2.1 s past its slot by the wall clock, the slot
    // counted missed though the wall clock had reached it in order: found by review). The two clocks are slewed
    // alike, so only steps part them.
    const step = nowWall - wall - (nowMonotonic - monotonic);
    if (Math.abs(step) <= CLOCK_STEP_MS) return;
    wall = nowWall;
    monotonic = nowMonotonic;
    for (const entry of shared.values()) entry.clock.rearm();
  }, CLOCK_WATCH_MS);
  watchdog.unref();
}

/** Cron expressions, seconds field allowed. Overlap is handled by the job runner, which knows about in-flight runs. */
export const cronTrigger: TriggerFactory = (expression, onTick) => {
  let entry = shared.get(expression);
  if (entry === undefined) {
    const listeners: Shared['listeners'] = new Set();
    entry = { clock: new CronClock(expression, () => tick(listeners)), listeners };
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
      own.clock.stop();
      if (shared.size === 0 && watchdog !== undefined) {
        clearInterval(watchdog);
        watchdog = undefined;
      }
    },
  };
};
