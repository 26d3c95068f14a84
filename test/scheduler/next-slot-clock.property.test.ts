/**
 * A schedule's next slot when node-cron's own read of the clock lands later than the one the scheduler made: a timer
 * woken a millisecond before its slot (libuv's clock is whole milliseconds) asks for the slot again, and a pause
 * between the scheduler's read and node-cron's (a busy machine) put node-cron's in the slot's second. It answered the
 * slot after, and the slot waited for never ran, with nothing logged: a whole cycle of every router on the schedule
 * (a test of four 4 s cycles missed one under load, about one run in six). Whatever the lag between the two reads,
 * the slot is the first the expression matches after the scheduler's read.
 */
import fc from 'fast-check';
import { createTask } from 'node-cron';
import { describe, expect, it, vi } from 'vitest';
import { nextSlot, slotRules } from '../../src/scheduler/next-slot.js';

const HOUR = 3_600_000;
/** Schedules whose minute and hour fields are wildcards (not pinned to a time of day): every match runs. */
const EXPRESSIONS = ['*/4 * * * * *', '* * * * * *', '*/15 * * * * *', '0 * * * * *', '5,7 * * * * *', '*/30 * * * * *', '0 */5 * * * *'];

/** The first whole second after `now`'s second that the task matches (every expression above matches within 5 minutes). */
function firstAfter(task: { match(date: Date): boolean }, now: number): number {
  for (let t = Math.floor(now / 1000) * 1000 + 1000; t < now + 600_000; t += 1000) if (task.match(new Date(t))) return t;
  throw new Error('no match within 10 minutes');
}

describe("a schedule's next slot", () => {
  it('is the first the expression matches after the scheduler read the clock, however late node-cron reads it', () => {
    const tasks = EXPRESSIONS.map((expression) => ({ expression, task: createTask(expression, () => undefined, { timezone: 'UTC' }) }));
    try {
      fc.assert(
        fc.property(
          fc.constantFrom(...tasks),
          fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
          // How much later node-cron's read is: mostly within the second, sometimes a second or two on.
          fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2_500 })),
          ({ expression, task }, now, lag) => {
            vi.useFakeTimers({ now: now + lag, toFake: ['Date'] });
            try {
              const expected = firstAfter(task, now);
              const slot = nextSlot(task, slotRules(expression), now, HOUR);
              // Passed over only where node-cron's read was already past it: then it is still the one returned (it
              // runs at once, or counts as missed if it is long gone), never the one after it.
              expect(slot).toEqual({ at: expected, runs: true });
            } finally {
              vi.useRealTimers();
            }
          },
        ),
        { numRuns: 600 },
      );
    } finally {
      for (const { task } of tasks) void task.destroy();
    }
  });

  it('a wake a millisecond before its slot, with node-cron reading the slot itself: the slot, not the one 4 s on', () => {
    const task = createTask('*/4 * * * * *', () => undefined, { timezone: 'UTC' });
    const slot = Date.UTC(2026, 11, 3, 21, 17, 56);
    vi.useFakeTimers({ now: slot, toFake: ['Date'] });
    try {
      expect(nextSlot(task, slotRules('*/4 * * * * *'), slot - 1, HOUR)).toEqual({ at: slot, runs: true });
      // Read at the slot itself (a wake on time), the next is the one after.
      expect(nextSlot(task, slotRules('*/4 * * * * *'), slot, HOUR)).toEqual({ at: slot + 4_000, runs: true });
    } finally {
      vi.useRealTimers();
      void task.destroy();
    }
  });
});
