/** The sample-line writer: exact bytes, and scratch buffers reused by size so that steady collection allocates none. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { dropScratchBuffers, keptScratchBytes, LineWriter } from '../../src/metrics/lines.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Writes `bytes` of sample-like text in lines of about 100 bytes; returns the writer unreleased. */
function fill(bytes: number): LineWriter {
  const writer = new LineWriter();
  const line = Buffer.from(`routeros_wireguard_peer_receive_bytes_total{router="r",interface="wg0",name="peer"} `);
  while (writer.length < bytes) {
    writer.bytes(line);
    writer.integer(writer.length);
    writer.newline();
  }
  return writer;
}

describe('LineWriter', () => {
  it('writes exactly the UTF-8 of what it is given, whatever sizes it grows through', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 3000 }).map((text) => ({ kind: 'text' as const, text })),
      fc.maxSafeInteger().map((value) => ({ kind: 'integer' as const, value })),
      fc.integer({ min: 0, max: 255 }).map((value) => ({ kind: 'byte' as const, value })),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const writer = new LineWriter();
        let expected = '';
        const raw: number[] = [];
        const flush = (): void => {
          if (expected.length > 0) raw.push(...Buffer.from(expected, 'utf8'));
          expected = '';
        };
        for (const item of pieces) {
          if (item.kind === 'text') {
            writer.text(item.text);
            expected += item.text;
          } else if (item.kind === 'integer') {
            writer.integer(item.value);
            expected += String(item.value);
          } else {
            flush();
            writer.byte(item.value);
            raw.push(item.value);
          }
        }
        flush();
        expect(writer.view().equals(Buffer.from(raw))).toBe(true);
        writer.release();
      }),
      { numRuns: 300 },
    );
  });

  it('drops every kept scratch buffer when told (before each test file: files share a worker process)', () => {
    for (const writer of [fill(200_000), fill(40_000)]) writer.release();
    expect(keptScratchBytes()).toBeGreaterThan(0);
    dropScratchBuffers();
    expect(keptScratchBytes()).toBe(0);
  });

  it('in steady state a run of families of mixed sizes allocates no scratch buffer', () => {
    // A wireguard run at 1,000 peers: big families (200 KiB) and small ones, released in the order they started, as
    // a SampleSet's usually are. A free list of mixed sizes then hands the first writer the last one's buffer.
    const sizes = [200_000, 3_000, 180_000, 500, 220_000, 40_000, 200_000, 1_000, 90_000, 210_000, 2_000, 150_000];
    // Families start in the order of first samples and finish in family order, which differ from run to run.
    const run = (order: readonly number[]): void => {
      const writers = order.map((index) => fill(sizes[index] as number));
      for (const writer of writers) writer.release();
    };
    const rotated = (by: number): number[] => sizes.map((_, index) => (index + by) % sizes.length);
    run(rotated(0));
    const allocations = vi.spyOn(Buffer, 'allocUnsafeSlow');
    for (let by = 1; by < sizes.length; by++) run(rotated(by));
    expect(allocations).not.toHaveBeenCalled();
    // And what is kept stays bounded.
    expect(keptScratchBytes()).toBeLessThanOrEqual(8 * 1024 * 1024);
  });
});
