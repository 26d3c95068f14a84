/**
 * How far V8 lets its old generation grow past what was live after a full collection before it collects again.
 * By default the factor follows how fast the collector runs against the program, up to 4, and for this daemon it
 * came out near 3: each collection cycle moves what a run keeps until the next one (peer state, public keys, the
 * wrappers of the new deflated chunks) into the old generation, where the previous cycle's becomes garbage, and
 * the heap climbed cycle after cycle before V8 collected. At 100 routers × 1,000 peers (Node 20, no options) RSS
 * went 250 → 300 → 350 → 385 MB over four cycles, back to 315 after a full collection, and up again; the Buffers
 * that garbage held outside the heap went with it, and glibc kept the high mark.
 *
 * A fixed factor of 1.5 makes V8 collect once half as much again as the live data has come in. Measured with
 * `npm run bench` (docs/performance.md, thirteenth round), on Node 20: at 100 × 1,000, RSS as Prometheus scrapes
 * 253–258 MB (peak 255–258) against 271–304 (peak 279–384), at 2,000 × 4 a median of 330–349 MB against
 * 331–379, for the same collection CPU at both shapes; on the image's Node 24, 254 MB against 341–370 at
 * 100 × 1,000, and at 2,000 × 4 the same memory for ~0.8 s more CPU per 30 s cycle (`node
 * --heap-growing-percent=0` gives V8 its own factor back). 1.25 held 100 × 1,000 at 240–243 MB but, at fleet
 * shape, made V8 collect ten times a cycle as 2,000 routers' runs landed: 0.7 s more CPU per cycle on Node 20.
 *
 * V8 reads the factor each time it sets the next limit, so it can be set from inside the process, unlike the
 * young generation's largest size (young-generation.ts caps that through its growth instead). V8 also lets the old
 * generation grow by at least the young generation's capacity, so the factor shows most where that is small (the
 * daemon's cap, or the image's `--max-semi-space-size=4`).
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/**
 * The V8 option, spelled either way V8 takes it, given on the command line (`node --heap-growing-percent=N`):
 * the only place it can come from, as Node refuses it in NODE_OPTIONS.
 */
const OPTION = /^--heap[-_]growing[-_]percent(=|$)/;

let applied: number | undefined;

/**
 * Sets V8's heap growing factor to 1 + HEAP_GROWING_PERCENT / 100, unless `node` was started with its own
 * (`execArgv`): an operator's choice wins. Returns the percent this process now runs with as far as this
 * module knows (undefined when the command line chose).
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): number | undefined {
  if (execArgv.some((argument) => OPTION.test(argument))) return undefined;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  applied = HEAP_GROWING_PERCENT;
  return applied;
}

/** The percent limitHeapGrowth set in this process, if it set one (for tests). */
export function appliedHeapGrowingPercent(): number | undefined {
  return applied;
}
