/**
 * A schedule's timer woken a moment before its slot reads the clock once to see it is early, and the slot it waits
 * for must be found from that read: a pause between that read and the next (a busy machine) must not put the next
 * read in the slot's second and pass the slot over, unrun and unlogged.
 */
import { describe, expect, it, vi } from 'vitest';
import { cronTrigger, setTriggerLogger } from '../../src/scheduler/trigger.js';

const TIMERS_AND_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] };

/**
 * The process paused right after the wall clock read `readAt`: the next read finds the clock at `resumeAt`. Returns
 * the spy (restore it) and the real clock reader.
 */
function pauseAfterRead(readAt: number, resumeAt: number): { restore: () => void; realNow: () => number } {
  const realNow = Date.now.bind(Date);
  let pauseNext = false;
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => {
    if (pauseNext) {
      pauseNext = false;
      vi.setSystemTime(resumeAt);
      return realNow();
    }
    const t = realNow();
    if (t === readAt) pauseNext = true;
    return t;
  });
  return { restore: () => spy.mockRestore(), realNow };
}

describe('a timer that wakes a millisecond before its slot', () => {
  it('runs the slot when the process is paused right after the read that found it early', async () => {
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    const slot = Date.UTC(2026, 10, 25, 12, 0, 4);
    vi.setSystemTime(slot - 2_500);
    const ticks: number[] = [];
    const trigger = cronTrigger('*/4 * * * * *', () => ticks.push(Math.floor(Date.now() / 1000) * 1000), 'early wake');
    // The wake's own read, a millisecond early as libuv's whole-millisecond clock lets it; the pause puts the next
    // read of the clock on the slot itself.
    const { restore, realNow } = pauseAfterRead(slot - 1, slot);
    try {
      await vi.advanceTimersByTimeAsync(1_000);
      // The wall clock a millisecond behind the timers: the timer for the slot fires at slot - 1 by the wall clock.
      vi.setSystemTime(realNow() - 1);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(ticks).toEqual([slot]);
    } finally {
      restore();
      trigger.stop();
      vi.useRealTimers();
    }
  });

  it('a wake late within its second, paused before the next read, runs the following per-second slot too', async () => {
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    const slot = Date.UTC(2026, 10, 25, 12, 0, 4);
    vi.setSystemTime(slot - 1_500);
    const ticks: number[] = [];
    const trigger = cronTrigger('* * * * * *', () => ticks.push(Math.floor(Date.now() / 1000) * 1000), 'late wake');
    const { restore } = pauseAfterRead(slot + 999, slot + 1_000);
    try {
      await vi.advanceTimersByTimeAsync(1_000);
      // The wall clock 999 ms ahead of the timers: the slot's timer fires at slot + 999 by the wall clock.
      vi.setSystemTime(slot + 999 - 500);
      await vi.advanceTimersByTimeAsync(500);
      await vi.advanceTimersByTimeAsync(1_500);
      // The slot's own tick runs after the pause, in the next second's; then that second's slot runs too, not only
      // the one after it.
      expect(ticks.filter((t) => t >= slot).slice(0, 3)).toEqual([slot + 1_000, slot + 1_000, slot + 2_000]);
    } finally {
      restore();
      trigger.stop();
      vi.useRealTimers();
    }
  });
});

describe('a wake late within the tolerance', () => {
  it('on a per-second schedule runs the slot it woke for and the one it passed, then the next on time (found by review)', async () => {
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    const slot = Date.UTC(2026, 10, 25, 12, 0, 4);
    vi.setSystemTime(slot - 500);
    const missed: unknown[] = [];
    setTriggerLogger({ warn: (fields: unknown) => missed.push(fields), error: () => undefined });
    const ticks: number[] = [];
    const trigger = cronTrigger('* * * * * *', () => ticks.push(Date.now()), 'late within tolerance');
    try {
      // The event loop busy 1.5 s: the slot's timer fires with the wall clock at slot + 1.5 s.
      vi.setSystemTime(slot + 1_000);
      await vi.advanceTimersByTimeAsync(500);
      await vi.advanceTimersByTimeAsync(1_000);
    } finally {
      trigger.stop();
      setTriggerLogger({ warn: () => undefined, error: () => undefined });
      vi.useRealTimers();
    }
    // The slot (1.5 s late), the one it passed (0.5 s late), both at once, then the next on time; none missed.
    expect(missed).toEqual([]);
    expect(ticks.map((t) => Math.round((t - slot) / 100) * 100)).toEqual([1_500, 1_500, 2_000]);
  });
});
