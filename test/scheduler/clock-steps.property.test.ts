/**
 * The cron trigger under any sequence of clock events: ordinary time passing, the wall clock stepped forward or back
 * (by under a second, a few seconds, past a slot, past many slots, hours and days), and pauses of the process (both
 * clocks move on while no timer fires; the timers due meanwhile fire at the resume, in order). The trigger runs on
 * the real module, with its timers, the wall clock and the monotonic clock injected here (a timer waits on the
 * monotonic clock, as libuv's do), so nothing waits for real.
 *
 * What "the slots the wall clock reaches in order" means. The wall clock's path is cut into passes at every backward
 * step; within a pass it only moves forward, by passing time, a forward step or a pause. Every slot instant a move
 * carries the wall clock over (from just after where it was to where it is) is one crossing. A crossing beyond the
 * highest wall time seen so far is a fresh slot: it is reached for the first time. A crossing at or below that mark
 * is a slot crossed back over after a backward step. docs/configuration.md says what happens to those: "slots crossed
 * back over run again" (a clock set back an hour must not leave the schedule idle for the hour), once the trigger has
 * followed the step: within 5 s of the steps adding up to more than a second. Until then (or when the steps back add
 * up to a second or less) the timer still waits for the slot it had, so a slot crossed back over may also not run
 * again. "After a backward step no slot already run is run again" therefore holds as: a slot instant runs again only
 * once the wall clock has been set back below it, by steps adding up to more than a second (a step the trigger
 * follows), never twice in one pass and never for steps back it treats as drift. A fresh slot a jump reached that a
 * step back then took the wall clock behind again, before the trigger could see it, is ahead once more: it is owed
 * when the wall clock reaches it again, so only the fresh slots up to where the wall clock ends are owed.
 *
 * The properties, for every sequence:
 * - a run is for a slot the wall clock has reached: it fires at or after its slot, late by at most node-cron's
 *   tolerance (the slot's second and the next), never before;
 * - a slot instant runs again only after the wall clock went back below it, set back by more than a second in all;
 * - no fresh slot is dropped silently: each one never run is counted in the `scheduled ticks were missed` lines;
 * - nothing is counted missed that was run or never crossed: runs plus missed never exceed the crossings; with no
 *   backward step the two are equal (each slot run once or counted once), which is the exact missed count. A wake
 *   later than a day has the rest of its count reckoned from the first day's rate, so each such wake may be off by
 *   one (trigger.ts, #slotsFrom);
 * - no busy loop: the timers that fire in an event are bounded by the slots and watchdog looks it spans, and the
 *   timers armed by what fired;
 * - it never stops: after the sequence, once the watchdog has looked, every slot of the next few cycles runs.
 * And for sub-second steps forward, each seen by a watchdog look: a slot reached in order is run, never counted
 * missed (the steps add up, and the trigger follows their sum; counted as missed here, a slot run late by the steps
 * would still satisfy the first property).
 *
 * The sequences start anywhere in a year or near a change of UTC offset, in UTC and three zones with summer time
 * (Lord Howe's change is half an hour): the schedules here tick in absolute time through such changes.
 *
 * Schedules with a period of 5 s or more: a run is then tied to its slot by its wall time (a run is at most ~2 s
 * late). A per-second schedule runs two slots in one wake when the wake is 1–2 s late, which a run's time cannot tell
 * apart; next-slot-clock.property.test.ts covers per-second slots.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLOCK_WATCH_MS, cronTrigger, setTriggerLogger, sharedTaskCount } from '../../src/scheduler/trigger.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A wake up to this much after its slot runs it (trigger.ts LATE_TOLERANCE_MS, reckoned from the wake's second). */
const RUNS_UNTIL_MS = 2 * SECOND;
/** Far more fires than any event here needs: past it, the trigger is looping on its own timers. */
const RUNAWAY_FIRES = 100_000;

const SCHEDULES = [
  { expression: '*/5 * * * * *', period: 5 * SECOND },
  { expression: '*/15 * * * * *', period: 15 * SECOND },
  { expression: '*/30 * * * * *', period: 30 * SECOND },
  { expression: '0 */5 * * * *', period: 5 * MINUTE },
] as const;

type ClockEvent =
  | { readonly kind: 'pass'; readonly ms: number }
  | { readonly kind: 'step'; readonly ms: number }
  | { readonly kind: 'pause'; readonly ms: number };

interface FakeTimer {
  readonly id: number;
  due: number;
  readonly repeat: number | undefined;
  readonly callback: () => void;
  unref(): FakeTimer;
  ref(): FakeTimer;
  hasRef(): boolean;
}

/**
 * Timers on a monotonic clock, and a wall clock apart from it. Date is vitest's fake (node-cron reads `new Date()`),
 * set from `wall` whenever it moves; performance.now reads `monotonic`.
 */
class Clocks {
  wall: number;
  monotonic = 1_000_000;
  readonly #timers = new Map<number, FakeTimer>();
  #nextId = 1;
  /** Timers fired so far (all events). */
  fires = 0;
  /** Timers armed so far (all events). */
  arms = 0;

  constructor(wall: number) {
    this.wall = wall;
    vi.useFakeTimers({ toFake: ['Date'], now: wall });
    vi.spyOn(performance, 'now').mockImplementation(() => this.monotonic);
    vi.stubGlobal('setTimeout', (callback: () => void, ms = 0) => this.#add(callback, ms, undefined));
    vi.stubGlobal('setInterval', (callback: () => void, ms = 0) => this.#add(callback, ms, ms));
    const clear = (timer: FakeTimer | undefined): void => {
      if (timer !== undefined) this.#timers.delete(timer.id);
    };
    vi.stubGlobal('clearTimeout', clear);
    vi.stubGlobal('clearInterval', clear);
  }

  restore(): void {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    vi.useRealTimers();
  }

  #add(callback: () => void, ms: number, repeat: number | undefined): FakeTimer {
    // Node: a delay under 1 ms (or not a number) is 1 ms.
    const delay = Number.isFinite(ms) && ms >= 1 ? Math.floor(ms) : 1;
    this.arms++;
    const timer: FakeTimer = {
      id: this.#nextId++,
      due: this.monotonic + delay,
      repeat,
      callback,
      unref: () => timer,
      ref: () => timer,
      hasRef: () => false,
    };
    this.#timers.set(timer.id, timer);
    return timer;
  }

  #moveBoth(to: number): void {
    this.wall += to - this.monotonic;
    this.monotonic = to;
    vi.setSystemTime(this.wall);
  }

  /** Fires every timer due by `until` on the monotonic clock, each at its own due time (or now, if that is later). */
  #fireDue(until: number): void {
    let firedHere = 0;
    for (;;) {
      let first: FakeTimer | undefined;
      for (const timer of this.#timers.values()) if (first === undefined || timer.due < first.due || (timer.due === first.due && timer.id < first.id)) first = timer;
      if (first === undefined || first.due > until) return;
      if (first.due > this.monotonic) this.#moveBoth(first.due);
      if (first.repeat === undefined) this.#timers.delete(first.id);
      // Node re-arms a repeating timer from when it fired: after a pause it fires once, not once per period missed.
      else first.due = this.monotonic + first.repeat;
      this.fires++;
      if (++firedHere > RUNAWAY_FIRES) throw new Error('runaway: the trigger keeps arming timers that fire at once');
      first.callback();
    }
  }

  /** Time passes on both clocks, the timers firing as they fall due. */
  pass(ms: number): void {
    const end = this.monotonic + ms;
    this.#fireDue(end);
    this.#moveBoth(end);
  }

  /** The wall clock alone is set (NTP stepping it, an operator). */
  step(ms: number): void {
    this.wall += ms;
    vi.setSystemTime(this.wall);
  }

  /** The process is held: both clocks move on, nothing fires until the resume, then every timer due fires at once. */
  pause(ms: number): void {
    this.#moveBoth(this.monotonic + ms);
    this.#fireDue(this.monotonic);
  }
}

/** The slot instants in (from, to]. */
function slotsIn(from: number, to: number, period: number): number[] {
  const slots: number[] = [];
  for (let at = Math.floor(from / period) * period + period; at <= to; at += period) slots.push(at);
  return slots;
}

/** Sizes of clock moves: under a second, a few seconds, past a slot, past many slots, hours, past a day. */
function sized(period: number): fc.Arbitrary<number> {
  return fc.oneof(
    fc.integer({ min: 1, max: 999 }),
    fc.integer({ min: SECOND, max: period }),
    fc.integer({ min: period, max: 5 * period }),
    fc.integer({ min: 10 * period, max: 200 * period }),
    fc.integer({ min: HOUR, max: 20 * HOUR }),
    fc.integer({ min: DAY, max: 4 * DAY }),
  );
}

function clockEvent(period: number): fc.Arbitrary<ClockEvent> {
  return fc.oneof(
    // Ordinary time: up to a few cycles (every slot of it wakes the trigger: hours of it would only be slow).
    fc.record({ kind: fc.constant('pass' as const), ms: fc.oneof(fc.integer({ min: 1, max: 999 }), fc.integer({ min: SECOND, max: 3 * period + CLOCK_WATCH_MS })) }),
    fc.record({ kind: fc.constant('step' as const), ms: fc.tuple(sized(period), fc.boolean()).map(([ms, back]) => (back ? -ms : ms)) }),
    fc.record({ kind: fc.constant('pause' as const), ms: sized(period) }),
  );
}


/**
 * Local time zones: the schedules here have wildcard minute and hour fields, so they run in absolute time on both
 * passes of a repeated hour (next-slot.ts), and their slots are multiples of their period since the epoch in each of
 * these (offsets in whole quarter hours at most: Lord Howe's half-hour change).
 */
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'] as const;
/** 2026's changes of UTC offset in those zones, where a step lands across a change as often as not. */
const OFFSET_CHANGES = [
  Date.UTC(2026, 2, 8, 7), // New York, ahead
  Date.UTC(2026, 2, 29, 1), // Berlin, ahead
  Date.UTC(2026, 3, 4, 15), // Lord Howe, back half an hour
  Date.UTC(2026, 9, 3, 15, 30), // Lord Howe, ahead half an hour
  Date.UTC(2026, 9, 25, 1), // Berlin, back
  Date.UTC(2026, 10, 1, 6), // New York, back
];

/** A start anywhere in 2026, or within two hours of one of its offset changes. */
const startTime = fc.oneof(
  fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
  fc.tuple(fc.constantFrom(...OFFSET_CHANGES), fc.integer({ min: -2 * HOUR, max: 2 * HOUR })).map(([change, offset]) => change + offset),
);

/** A schedule, a time zone and a start, with what the property adds for the schedule. */
function scenario<T extends object>(more: (schedule: (typeof SCHEDULES)[number]) => fc.Arbitrary<T>) {
  return fc
    .constantFrom(...SCHEDULES)
    .chain((schedule) => fc.tuple(fc.constantFrom(...ZONES), startTime, more(schedule)).map(([zone, start, extra]) => ({ schedule, zone, start, ...extra })));
}

let zone: string | undefined;
beforeAll(() => {
  zone = process.env['TZ'];
});
afterAll(() => {
  if (zone === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zone;
});

describe('the cron trigger under any sequence of clock steps, pauses and passing time', () => {
  it('runs every slot reached once or counts it missed, never early, never twice in a pass, never in a loop, and goes on', () => {
    fc.assert(
      fc.property(
        scenario((schedule) => fc.record({ events: fc.array(clockEvent(schedule.period), { minLength: 1, maxLength: 12 }) })),
        ({ schedule, zone: local, start, events }) => {
          const { expression, period } = schedule;
          process.env['TZ'] = local;
          const clocks = new Clocks(start);
          /** The wall times of the runs. */
          const runs: number[] = [];
          let missed = 0;
          /** The lowest the wall clock has been since the last run (a set-back between two runs lands here). */
          let lowestSinceRun = start;
          /** Per run, the lowest the wall clock was since the run before it. */
          const lowestBefore: number[] = [];
          /** How far the wall clock has been set back since the last run, in all; per run, that before it. */
          let backSinceRun = 0;
          const backBefore: number[] = [];
          setTriggerLogger({ warn: (fields: unknown) => (missed += (fields as { missed: number }).missed), error: () => undefined });
          const trigger = cronTrigger(
            expression,
            () => {
              const at = Date.now();
              runs.push(at);
              lowestBefore.push(lowestSinceRun);
              lowestSinceRun = at;
              backBefore.push(backSinceRun);
              backSinceRun = 0;
            },
            'clock steps',
          );
          let crossings = 0;
          const fresh = new Set<number>();
          let highest = start;
          let backward = false;
          /** How far the wall clock moved forward in all: a late wake can span no more. */
          let forward = 0;
          let finalWall = start;
          const crossed = (from: number, to: number): void => {
            for (const at of slotsIn(from, to, period)) {
              crossings++;
              if (at > highest) fresh.add(at);
            }
            forward += to - from;
            highest = Math.max(highest, to);
          };
          try {
            for (const event of events) {
              const firesBefore = clocks.fires;
              const armsBefore = clocks.arms;
              const wallBefore = clocks.wall;
              if (event.kind === 'step') {
                if (event.ms < 0) backward = true;
                clocks.step(event.ms);
                if (event.ms > 0) crossed(wallBefore, clocks.wall);
                lowestSinceRun = Math.min(lowestSinceRun, clocks.wall);
                if (event.ms < 0) backSinceRun -= event.ms;
                continue;
              }
              // A pass is crossed slot by slot as the timers fire; a pause all at once. Both end at the same wall time.
              const monotonicBefore = clocks.monotonic;
              if (event.kind === 'pass') clocks.pass(event.ms);
              else clocks.pause(event.ms);
              crossed(wallBefore, clocks.wall);
              const spanned = clocks.monotonic - monotonicBefore;
              // Per slot the wall clock crosses: its wake, an early wake re-armed, a missed-log timer; per watchdog look
              // one fire and a re-arm; a re-check every hour of waiting (trigger.ts LONGEST_WAIT_MS).
              const bound = 3 * slotsIn(wallBefore, clocks.wall, period).length + 2 * Math.ceil(spanned / CLOCK_WATCH_MS) + Math.ceil(spanned / HOUR) + 4;
              expect(clocks.fires - firesBefore).toBeLessThanOrEqual(bound);
              // Each fire arms its own next wake and at most a missed-log timer.
              expect(clocks.arms - armsBefore).toBeLessThanOrEqual(2 * (clocks.fires - firesBefore));
            }
            // Settle: the watchdog looks (following any step not yet followed), then a few cycles of ordinary time.
            const settle = CLOCK_WATCH_MS + 2 * SECOND;
            const beforeSettle = clocks.wall;
            clocks.pass(settle);
            crossed(beforeSettle, clocks.wall);
            const tailStart = clocks.wall;
            const runsBeforeTail = runs.length;
            clocks.pass(3 * period);
            crossed(tailStart, clocks.wall);
            const tail = runs
              .slice(runsBeforeTail)
              .map((at) => Math.floor(at / period) * period)
              .filter((slot) => slot > tailStart);
            // It goes on: every slot of the tail runs, once (none at its very end may be still within its tolerance).
            const expectedTail = slotsIn(tailStart, clocks.wall - RUNS_UNTIL_MS, period);
            expect(tail.slice(0, expectedTail.length)).toEqual(expectedTail);
            finalWall = clocks.wall;
          } finally {
            trigger.stop();
            setTriggerLogger({ warn: () => undefined, error: () => undefined });
            clocks.restore();
          }
          expect(sharedTaskCount()).toBe(0);

          // How far the counts reckoned past a day may be off: one per wake later than a day; the wakes' spans add up to
          // at most the wall clock's forward moves.
          const reckoned = Math.floor(forward / DAY);
          const ranSlots = new Set<number>();
          const lastRunOf = new Map<number, number>();
          for (const [index, at] of runs.entries()) {
            const slot = Math.floor(at / period) * period;
            // Never early, never past the tolerance: the run is for a slot the wall clock has reached.
            expect(Math.floor(at / SECOND) * SECOND - slot).toBeLessThanOrEqual(SECOND);
            expect(at - slot).toBeLessThan(RUNS_UNTIL_MS);
            // Again only in a later pass: the wall clock went back below the slot since its last run.
            const last = lastRunOf.get(slot);
            if (last !== undefined) {
              const lowest = Math.min(...lowestBefore.slice(last + 1, index + 1));
              expect(lowest).toBeLessThan(slot);
              const back = backBefore.slice(last + 1, index + 1).reduce((sum, each) => sum + each, 0);
              expect(back).toBeGreaterThan(SECOND);
            }
            lastRunOf.set(slot, index);
            ranSlots.add(slot);
          }
          // A fresh slot past where the wall clock ends was reached by a jump and then stepped back from: it is still
          // ahead, to be crossed again, and owed nothing yet.
          const freshUnrun = [...fresh].filter((slot) => slot <= finalWall && !ranSlots.has(slot)).length;
          // Never silently dropped.
          expect(missed).toBeGreaterThanOrEqual(freshUnrun - reckoned);
          // Never counted for a slot run or not crossed; exact with no step back.
          expect(runs.length + missed).toBeLessThanOrEqual(crossings + reckoned);
          if (!backward) expect(Math.abs(runs.length + missed - crossings)).toBeLessThanOrEqual(reckoned);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the cron trigger under steps of the wall clock each under a second, each seen by a watchdog look', () => {
  it('runs every slot, in order, once, and counts none missed: the steps add up, and the trigger follows their sum', () => {
    fc.assert(
      fc.property(
        scenario((schedule) =>
          fc.record({
            // Forward only: a step back makes the timer wake early, which it mends itself; steps both ways can part the
            // timer from the wall clock by up to twice the threshold between two looks, which is the 5 s grace the
            // docs give a step.
            steps: fc.array(fc.record({ step: fc.integer({ min: 1, max: 999 }), then: fc.integer({ min: CLOCK_WATCH_MS, max: 3 * schedule.period + CLOCK_WATCH_MS }) }), { minLength: 1, maxLength: 12 }),
          }),
        ),
        ({ schedule, zone: local, start, steps }) => {
          const { expression, period } = schedule;
          process.env['TZ'] = local;
          const clocks = new Clocks(start);
          const runs: number[] = [];
          let missed = 0;
          setTriggerLogger({ warn: (fields: unknown) => (missed += (fields as { missed: number }).missed), error: () => undefined });
          const trigger = cronTrigger(expression, () => runs.push(Date.now()), 'sub-second steps');
          let end: number;
          try {
            for (const { step, then } of steps) {
              clocks.step(step);
              clocks.pass(then);
            }
            end = clocks.wall;
          } finally {
            trigger.stop();
            setTriggerLogger({ warn: () => undefined, error: () => undefined });
            clocks.restore();
          }
          expect(missed).toBe(0);
          // The last slots may still be within their tolerance, their wake not yet fired.
          const expected = slotsIn(start, end - RUNS_UNTIL_MS, period);
          expect(runs.map((at) => Math.floor(at / period) * period).slice(0, expected.length)).toEqual(expected);
          for (const at of runs) expect(Math.floor(at / SECOND) * SECOND - Math.floor(at / period) * period).toBeLessThanOrEqual(SECOND);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the missed count of a wake later than a day', () => {
  it('is the slots jumped over or one more, the first day counted one by one and the rest reckoned from its rate', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEDULES),
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
        // Each wake walks a day of minutes (~30 ms): few runs, each over up to two months.
        fc.integer({ min: DAY + 1, max: 60 * DAY }),
        ({ expression, period }, start, pause) => {
          process.env['TZ'] = 'UTC';
          const clocks = new Clocks(start);
          let missed = 0;
          setTriggerLogger({ warn: (fields: unknown) => (missed += (fields as { missed: number }).missed), error: () => undefined });
          const trigger = cronTrigger(expression, () => undefined, 'paused');
          let jumped: number;
          try {
            const before = clocks.wall;
            // The wake fires at the resume, past every slot of the pause: all of them are missed.
            clocks.pause(pause);
            jumped = slotsIn(before, clocks.wall, period).length;
          } finally {
            trigger.stop();
            setTriggerLogger({ warn: () => undefined, error: () => undefined });
            clocks.restore();
          }
          // Rounded up: never fewer than jumped over (it told about one a day too many).
          expect(missed).toBeGreaterThanOrEqual(jumped);
          expect(missed).toBeLessThanOrEqual(jumped + 1);
        },
      ),
      { numRuns: 40 },
    );
  });
});
