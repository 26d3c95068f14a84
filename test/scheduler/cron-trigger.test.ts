/** The production trigger: node-cron with a seconds field, on a short real schedule (no sleeps: polled). */
import { describe, expect, it, vi } from 'vitest';
import { cronTrigger, sharedTaskCount } from '../../src/scheduler/trigger.js';

describe('cron trigger', () => {
  it('fires every second on a seconds-field expression and stops when told', async () => {
    const ticks: number[] = [];
    const trigger = cronTrigger('* * * * * *', () => ticks.push(Date.now()), 'test/every-second');
    try {
      await expect.poll(() => ticks.length, { timeout: 5_000, interval: 100 }).toBeGreaterThanOrEqual(2);
      const [first = 0, second = 0] = ticks;
      // Consecutive ticks of a per-second schedule are about a second apart.
      expect(second - first).toBeGreaterThan(500);
      expect(second - first).toBeLessThan(1_600);
    } finally {
      trigger.stop();
    }
    const stoppedAt = ticks.length;
    await expect.poll(() => Date.now(), { timeout: 3_000, interval: 1_200 }).toBeGreaterThan((ticks.at(-1) ?? 0) + 2_000);
    expect(ticks.length).toBe(stoppedAt);
  });
});

describe('a schedule node-cron finds no next run for', () => {
  it('arms without throwing (the loader refuses it; a throw in a load stopped every job after it) and never ticks, hour after hour (it ticked hourly: found by review)', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 30, 0, 0, 0) });
    let ticks = 0;
    try {
      const trigger = cronTrigger('0 0 0 30W 2 *', () => ticks++, 'test/never');
      vi.advanceTimersByTime(5 * 3_600_000 + 1_000);
      trigger.stop();
    } finally {
      vi.useRealTimers();
    }
    expect(ticks).toBe(0);
  });
});

describe('shared cron triggers', () => {
  it('holds one node-cron task per expression, ticks every subscriber, and ends the task with the last one', async () => {
    // An expression no other test uses, so the count is this test's own.
    const expression = '*/1 * * * * *';
    const before = sharedTaskCount();
    const seen = { a: 0, b: 0, c: 0 };
    const a = cronTrigger(expression, () => seen.a++, 'r1/system');
    const b = cronTrigger(expression, () => seen.b++, 'r1/wireguard');
    const c = cronTrigger(expression, () => seen.c++, 'r2/system');
    expect(sharedTaskCount()).toBe(before + 1);
    try {
      await expect.poll(() => Math.min(seen.a, seen.b, seen.c), { timeout: 5_000, interval: 100 }).toBeGreaterThanOrEqual(1);
      a.stop();
      // Stopping twice is harmless and does not end the others' subscriptions.
      a.stop();
      expect(sharedTaskCount()).toBe(before + 1);
      const stoppedAt = seen.a;
      const bAt = seen.b;
      await expect.poll(() => seen.b, { timeout: 5_000, interval: 100 }).toBeGreaterThan(bAt);
      expect(seen.a).toBe(stoppedAt);
    } finally {
      b.stop();
      c.stop();
    }
    expect(sharedTaskCount()).toBe(before);
  });
});
