/**
 * One rule for every log line about floods: the first at once, then at most one line an interval with the count
 * since, and a count left after a burst told when its interval ends or its owner stops, never lost.
 */
import fc from 'fast-check';
import { afterEach, expect, it, vi } from 'vitest';
import { LogThrottle } from '../../src/util/log-throttle.js';

afterEach(() => {
  vi.useRealTimers();
});

it('says the first at once, holds the rest for the interval, then says them without another event', async () => {
  vi.useFakeTimers();
  let clock = 0;
  const said: number[] = [];
  let count = 0;
  const throttle = new LogThrottle(60_000, () => {
    said.push(count);
    count = 0;
  }, () => clock);
  count++;
  throttle.noted();
  expect(said).toEqual([1]);
  clock += 10_000;
  await vi.advanceTimersByTimeAsync(10_000);
  count += 2;
  throttle.noted();
  throttle.noted();
  expect(said).toEqual([1]);
  clock += 49_999;
  await vi.advanceTimersByTimeAsync(49_999);
  expect(said).toEqual([1]);
  clock += 1;
  await vi.advanceTimersByTimeAsync(1);
  expect(said).toEqual([1, 2]);
  // Nothing counted since: nothing more is said, however long the silence.
  clock += 600_000;
  await vi.advanceTimersByTimeAsync(600_000);
  throttle.close();
  expect(said).toEqual([1, 2]);
});

it('says what is pending when its owner stops, and nothing when nothing is', () => {
  let clock = 0;
  const said: string[] = [];
  const throttle = new LogThrottle(60_000, () => said.push(`at ${String(clock)}`), () => clock);
  throttle.close();
  expect(said).toEqual([]);
  throttle.noted();
  clock = 5;
  throttle.noted();
  throttle.close();
  expect(said).toEqual(['at 0', 'at 5']);
});

it('never says more than one line an interval, and says every event within one interval of it (property)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 40 }), async (gaps) => {
      vi.useFakeTimers();
      try {
        let clock = 0;
        let counted = 0;
        const lines: { at: number; count: number }[] = [];
        const throttle = new LogThrottle(60_000, () => {
          lines.push({ at: clock, count: counted });
          counted = 0;
        }, () => clock);
        for (const gap of gaps) {
          clock += gap;
          await vi.advanceTimersByTimeAsync(gap);
          counted++;
          throttle.noted();
        }
        clock += 60_000;
        await vi.advanceTimersByTimeAsync(60_000);
        for (let i = 1; i < lines.length; i++) expect((lines[i]?.at ?? 0) - (lines[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(60_000);
        expect(lines.reduce((sum, line) => sum + line.count, 0)).toBe(gaps.length);
        expect(counted).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    }),
    { numRuns: 100 },
  );
});
