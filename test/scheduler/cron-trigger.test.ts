/** The production trigger: node-cron with a seconds field, on a short real schedule (no sleeps: polled). */
import { describe, expect, it } from 'vitest';
import { cronTrigger } from '../../src/scheduler/trigger.js';

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
