/**
 * What a collector run produces: sample lines rendered to text once, grouped by family,
 * so that a scrape only has to concatenate prepared bytes.
 */
import { FAMILIES, type Family } from './families.js';
import { formatValue } from './text.js';

export class SampleSet {
  readonly #parts: (string[] | undefined)[] = new Array<string[] | undefined>(FAMILIES.length);

  /**
   * Adds one sample. `labels` is the already escaped label list without braces
   * (`router="hq",interface="wg0"`), built once per object and reused across its families.
   */
  add(family: Family, labels: string, value: number): void {
    const line = `${family.name}{${labels}} ${formatValue(value)}\n`;
    const part = this.#parts[family.index];
    if (part === undefined) this.#parts[family.index] = [line];
    else part.push(line);
  }

  /** Rendered bytes per family index (undefined where the run had no sample of that family). */
  toChunks(): (Buffer | undefined)[] {
    return this.#parts.map((lines) => (lines === undefined ? undefined : Buffer.from(lines.join(''), 'utf8')));
  }

  /** The number of samples, for tests and self-metrics. */
  get size(): number {
    let count = 0;
    for (const lines of this.#parts) count += lines?.length ?? 0;
    return count;
  }
}
