/**
 * The daemon bounds how far V8's old generation grows past its live data (src/util/heap-growth.ts): without it,
 * what each collection cycle keeps piled up as garbage to ~3 × the live data before V8 collected.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appliedHeapGrowingPercent, HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../src/util/heap-growth.js';
import { withIdleDaemon } from '../helpers/idle-daemon.js';

const MODULE = fileURLToPath(new URL('../../src/util/heap-growth.ts', import.meta.url));

/**
 * A program shaped like a collection cycle: a live set of small objects (peer state), a quarter of it replaced
 * each round after living through young collections (so it is promoted, and the replaced quarter is old garbage),
 * and short-lived garbage besides. Prints the old generation's largest committed size in MB.
 */
const CHURN = `
import { getHeapSpaceStatistics } from 'node:v8';
if (process.argv[1] === 'limited') (await import(process.argv[2])).limitHeapGrowth([]);
const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_size;
const block = (seed) => Array.from({ length: 1000 }, (_, i) => ({ n: seed + i, s: 'peer ' + (seed + i) }));
const blocks = Array.from({ length: 400 }, (_, i) => block(i * 1000));
let most = 0;
let sink = 0;
for (let round = 0; round < 40; round++) {
  for (let k = 0; k < 100; k++) blocks[(round * 100 + k) % blocks.length] = block(round * 1000 + k);
  for (let g = 0; g < 100000; g++) sink += [g, g].length;
  most = Math.max(most, oldSpace());
}
console.log(JSON.stringify({ oldMB: most / 1048576, blocks: blocks.length, sink: sink > 0 }));
`;

/** Runs CHURN in a child with the image's young generation (the Dockerfile's NODE_OPTIONS). */
function churn(mode: 'limited' | 'default'): number {
  const out = execFileSync(process.execPath, ['--max-semi-space-size=4', '--import', 'tsx', '--input-type=module', '-e', CHURN, mode, MODULE], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return (JSON.parse(out.trim().split('\n').pop() as string) as { oldMB: number }).oldMB;
}

describe("V8's heap growth", () => {
  // First: the other tests set the limit themselves.
  it('is limited once the daemon has started', async () => {
    await withIdleDaemon(() => {
      expect(appliedHeapGrowingPercent()).toBe(HEAP_GROWING_PERCENT);
    });
  });

  it('keeps the old generation near its live data where V8 would let garbage pile up to several times it', () => {
    const limited = churn('limited');
    const unlimited = churn('default');
    // The live set is ~40 MB: ~140 MB committed by default on Node 20 and 24, ~57–59 MB with the limit.
    expect(limited).toBeLessThan(unlimited * 0.6);
    expect(limited).toBeLessThan(90);
  }, 60_000);

  it("is left to an operator who started node with V8's own option, in either spelling", () => {
    expect(limitHeapGrowth(['--heap-growing-percent=50'])).toBeUndefined();
    expect(limitHeapGrowth(['--heap_growing_percent=50'])).toBeUndefined();
    expect(limitHeapGrowth(['--max-semi-space-size=4'])).toBe(HEAP_GROWING_PERCENT);
  });
});
