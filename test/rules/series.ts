/**
 * promtool's expanding notation for `input_series` values, read back into one entry per step, so a test can
 * check where a series ends: `1x3` is 4 samples, `0+10x2` is 0 10 20, `_x2` is 2 missing steps, `stale` a
 * staleness marker. Only what the shipped tests use; anything else throws rather than being misread.
 */

export type Step = number | 'missing' | 'stale';

const NUMBER = String.raw`[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?`;
const EXPANDING = new RegExp(`^(${NUMBER})(?:([+-])(\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?))?x(\\d+)$`);
const PLAIN = new RegExp(`^${NUMBER}$`);

export function expandValues(values: string): Step[] {
  const steps: Step[] = [];
  for (const token of values.trim().split(/\s+/)) {
    const missing = /^_(?:x(\d+))?$/.exec(token);
    const expanding = EXPANDING.exec(token);
    if (missing !== null) {
      for (let i = 0; i < Number(missing[1] ?? 1); i++) steps.push('missing');
    } else if (token === 'stale') {
      steps.push('stale');
    } else if (expanding !== null) {
      const [, start = '', sign, step = '0', times = ''] = expanding;
      const delta = (sign === '-' ? -1 : 1) * Number(step);
      // `a+bxN` is a, a+b, … a+N·b: N + 1 samples.
      for (let i = 0; i <= Number(times); i++) steps.push(Number(start) + i * delta);
    } else if (PLAIN.test(token)) {
      steps.push(Number(token));
    } else {
      throw new Error(`unsupported input_series value ${JSON.stringify(token)}`);
    }
  }
  return steps;
}

/** The values with their final `stale` marker (if any) removed: the same series, ending without markers. */
export function withoutFinalStale(values: string): string {
  return values.trim().replace(/\s+stale$/, '');
}
