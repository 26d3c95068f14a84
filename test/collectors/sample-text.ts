/** The plain exposition lines of a run's samples, for assertions on what a mapping wrote. */
import { plainOf } from '../../src/metrics/gzip.js';
import type { SampleSet } from '../../src/metrics/samples.js';

export function sampleText(samples: SampleSet): string {
  return samples
    .toChunks()
    .filter((chunk) => chunk !== undefined)
    .map((chunk) => plainOf(chunk).toString('utf8'))
    .join('');
}
