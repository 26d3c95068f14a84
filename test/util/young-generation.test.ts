/**
 * The daemon caps V8's young generation (src/util/young-generation.ts): by default Node 20 lets a semi-space grow
 * to 16 MiB and Node 24 to 64 MiB, and keeps it committed.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capYoungGeneration, SEMI_SPACE_MIB, youngGenerationCapped, youngGenerationChosen } from '../../src/util/young-generation.js';
import { withIdleDaemon } from '../helpers/idle-daemon.js';

const MODULE = fileURLToPath(new URL('../../src/util/young-generation.ts', import.meta.url));

/**
 * A program shaped like collection: short-lived objects, a third of which live through a few rounds (decoded
 * replies, label strings, peer state), with the event loop turning between rounds as between a router's replies.
 * Prints the young generation's semi-space capacity in MiB after each round, by its median and its largest.
 */
const CHURN = `
import { getHeapSpaceStatistics } from 'node:v8';
if (process.argv[1] === 'capped') (await import(process.argv[2])).capYoungGeneration([], '');
const capacity = () => {
  const space = getHeapSpaceStatistics().find((entry) => entry.space_name === 'new_space');
  return (space.space_used_size + space.space_available_size) / 1048576;
};
const kept = [];
const seen = [];
for (let round = 0; round < 120; round++) {
  const live = [];
  for (let i = 0; i < 50000; i++) {
    const peer = { n: i, key: 'peer ' + i, counters: [i, i + 1] };
    if (i % 3 === 0) live.push(peer);
  }
  kept.push(live);
  if (kept.length > 5) kept.shift();
  seen.push(capacity());
  await new Promise((resolve) => setImmediate(resolve));
}
seen.sort((a, b) => a - b);
console.log(JSON.stringify({ median: seen[seen.length >> 1], most: seen[seen.length - 1], kept: kept.length }));
`;

/** Runs CHURN in a child without any young-generation option. */
function churn(mode: 'capped' | 'default'): { median: number; most: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHURN, mode, MODULE], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as { median: number; most: number };
}

describe("V8's young generation", () => {
  it('stays at the cap where V8 would let it grow to two or eight times it', () => {
    const capped = churn('capped');
    const uncapped = churn('default');
    // Node 20: 7.9 against 15.7 MiB; Node 24: 8 against 64. Node 24 also holds pages being promoted in the new space
    // for a moment (its largest reading is ~3 × the cap either way), so the median is what is compared.
    expect(capped.median).toBeLessThanOrEqual(SEMI_SPACE_MIB);
    expect(capped.median).toBeGreaterThan(SEMI_SPACE_MIB / 2);
    expect(uncapped.median).toBeGreaterThan(SEMI_SPACE_MIB * 1.5);
  }, 60_000);

  it('is capped while the daemon runs, and given back to V8 when it stops', async () => {
    expect(youngGenerationCapped()).toBe(false);
    await withIdleDaemon(() => {
      // Unless this test process itself was started with a young-generation option.
      expect(youngGenerationCapped()).toBe(!youngGenerationChosen());
    });
    expect(youngGenerationCapped()).toBe(false);
  });

  it("is left to an operator who chose the young generation, on node's command line or in NODE_OPTIONS", () => {
    expect(youngGenerationChosen(['--max-semi-space-size=4'], '')).toBe(true);
    expect(youngGenerationChosen(['--max_semi_space_size=4'], '')).toBe(true);
    expect(youngGenerationChosen([], '--max-semi-space-size=4')).toBe(true);
    expect(youngGenerationChosen([], '--enable-source-maps  --min-semi-space-size=2')).toBe(true);
    expect(youngGenerationChosen(['--semi-space-growth-factor=3'], undefined)).toBe(true);
    expect(youngGenerationChosen(['--heap-growing-percent=50'], '--max-old-space-size=512')).toBe(false);
    expect(youngGenerationChosen([], undefined)).toBe(false);
    expect(capYoungGeneration([], '--max-semi-space-size=4')).toBeUndefined();
  });
});
