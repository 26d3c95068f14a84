/**
 * The bench's reference workload (the machine's speed beside each fleet run's CPU) is the same work every time,
 * and is timed in CPU.
 */
import { describe, expect, it } from 'vitest';
import { referenceCpuMs, referenceWorkload } from '../../bench/reference.js';

describe('the reference workload', () => {
  it('computes the same checksum on every run, so the work cannot differ or be skipped', () => {
    const first = referenceWorkload();
    expect(Number.isInteger(first)).toBe(true);
    expect(first).not.toBe(0);
    expect(referenceWorkload()).toBe(first);
  });

  it('is timed in CPU, one figure per round', () => {
    const samples = referenceCpuMs(2);
    expect(samples).toHaveLength(2);
    for (const ms of samples) {
      expect(Number.isFinite(ms)).toBe(true);
      // At least some real work each round: the CPU clock's resolution is a microsecond.
      expect(ms).toBeGreaterThan(1);
    }
  });
});
