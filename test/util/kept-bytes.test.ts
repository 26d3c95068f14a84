/**
 * Bytes kept for long own exactly their memory (src/util/kept-bytes.ts): whatever view of whatever block they
 * come as — a slice of Node's allocation pool, a part of a larger buffer, a plain Uint8Array — what is kept is
 * the same bytes in memory of their own, and bytes that already own theirs are kept as they are.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keptBytes, ownsItsMemory } from '../../src/util/kept-bytes.js';

/** The same bytes made the ways Node makes them: pooled, a view into a larger block, whole, not a Buffer. */
const views = fc.tuple(fc.uint8Array({ maxLength: 70_000 }), fc.constantFrom('pooled', 'view', 'whole', 'uint8array'), fc.nat(64)).map(([bytes, how, before]) => {
  if (how === 'pooled') return { bytes, view: Buffer.from(bytes) };
  if (how === 'view') {
    const block = Buffer.allocUnsafeSlow(before + bytes.length + 7);
    block.set(bytes, before);
    return { bytes, view: block.subarray(before, before + bytes.length) };
  }
  if (how === 'whole') {
    const whole = Buffer.allocUnsafeSlow(bytes.length);
    whole.set(bytes);
    return { bytes, view: whole };
  }
  return { bytes, view: new Uint8Array(bytes) };
});

describe('bytes kept for long', () => {
  it('are the same bytes in memory of their own, whatever view they came as', () => {
    fc.assert(
      fc.property(views, ({ bytes, view }) => {
        const kept = keptBytes(view);
        expect(Buffer.isBuffer(kept)).toBe(true);
        expect(ownsItsMemory(kept)).toBe(true);
        expect(kept.equals(bytes)).toBe(true);
        // Already its own memory and a Buffer: kept as it is, no copy.
        if (Buffer.isBuffer(view) && ownsItsMemory(view)) expect(kept).toBe(view);
        else expect(kept.buffer).not.toBe(view.buffer);
      }),
      { numRuns: 300 },
    );
  });

  it('a small Buffer from the pool does not own its memory (why the copy is needed)', () => {
    const pooled = Buffer.from('a small text');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    expect(ownsItsMemory(pooled)).toBe(false);
  });
});
