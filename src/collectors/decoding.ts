/**
 * Field readers for collectors: absent fields are undefined, odd values are recorded as problems and
 * left out, so one odd value never costs the whole run nor puts NaN into a metric.
 */
import type { RouterRecord } from '../routeros/records.js';
import {
  parseRouterBool,
  parseRouterDuration,
  parseRouterInteger,
  parseRouterNumber,
} from '../routeros/decode.js';

export class FieldReader {
  readonly problems: string[] = [];
  readonly #where: string;

  constructor(where: string) {
    this.#where = where;
  }

  integer(record: RouterRecord, key: string): number | undefined {
    return this.#read(record, key, parseRouterInteger);
  }

  number(record: RouterRecord, key: string): number | undefined {
    return this.#read(record, key, parseRouterNumber);
  }

  bool(record: RouterRecord, key: string): boolean | undefined {
    return this.#read(record, key, parseRouterBool);
  }

  duration(record: RouterRecord, key: string): number | undefined {
    return this.#read(record, key, parseRouterDuration);
  }

  #read<T>(record: RouterRecord, key: string, parse: (value: string) => T): T | undefined {
    const raw = record[key];
    if (raw === undefined || raw === '') return undefined;
    try {
      return parse(raw);
    } catch (error) {
      // Bounded: a reply full of odd values must not turn into an unbounded log line.
      if (this.problems.length < 20) this.problems.push(`${this.#where} ${key}: ${(error as Error).message}`);
      return undefined;
    }
  }
}
