/**
 * Field readers for collectors: absent fields are undefined, odd values are recorded as problems and
 * left out, so one odd value never costs the whole run nor puts NaN into a metric.
 *
 * The range rules live here, once, as field kinds: every number a collector reads goes through one of them,
 * so a value that reads but cannot be what its field is (a counter at -5, a load of 250 %, a port past
 * 65535, a handshake before 2015) is a problem like an unreadable one — never a sample, never a verdict.
 */
import type { RouterRecord } from '../routeros/records.js';
import { RouterOsError } from '../routeros/errors.js';
import { finish, type Steps } from '../util/slices.js';
import {
  inRange,
  readRouterBool,
  readRouterDuration,
  readRouterInteger,
  readRouterNumber,
  Unreadable,
  type Read,
  type ValueRange,
} from '../routeros/decode.js';

/** RouterOS counters are 64-bit; a float64 holds 2^64 - 1 as 2^64. */
const U64: ValueRange = { min: 0, max: 2 ** 64 };

interface FieldKind {
  /** How a problem names the value: "not a RouterOS port: …". */
  readonly what: string;
  readonly read: (value: string) => Read<number>;
  readonly range: ValueRange;
}

/** What each kind of field can be (docs/health.md, "Range rules"). */
export const FIELD_KINDS = {
  /** Traffic and packet counters: rx, tx, ping sent/received, bandwidth-test lost-packets. */
  counter: { what: 'counter', read: readRouterInteger, range: U64 },
  /** Memory and disk sizes. */
  bytes: { what: 'byte size', read: readRouterInteger, range: U64 },
  /** How many CPUs a router has (cpu-count): at least the one that answers. */
  count: { what: 'count', read: readRouterInteger, range: { min: 1, max: 2 ** 32 } },
  /** cpu-frequency: up to 1 THz. */
  megahertz: { what: 'frequency', read: readRouterInteger, range: { min: 0, max: 1e6 } },
  /** cpu-load, packet-loss: a percentage. */
  percent: { what: 'percentage', read: readRouterNumber, range: { min: 0, max: 100 } },
  /** listen-port, endpoint ports. */
  port: { what: 'port', read: readRouterInteger, range: { min: 0, max: 65_535 } },
  /** An IP packet is at most 64 KiB. */
  mtu: { what: 'MTU', read: readRouterInteger, range: { min: 0, max: 65_536 } },
  /** Bandwidth-test averages. */
  bitsPerSecond: { what: 'bit rate', read: readRouterInteger, range: U64 },
  /** persistent-keepalive: WireGuard's interval is a 16-bit number of seconds (at most 65535 s, about 18 h). */
  keepalive: { what: 'keepalive interval', read: readRouterDuration, range: { min: 0, max: 65_535 } },
  /** A ping round trip: a request lasts at most the router's 60 s REST limit, so no reply in it came later. */
  rtt: { what: 'round-trip time', read: readRouterDuration, range: { min: 0, max: 60 } },
  /** system/health temperatures: what electronics can report and survive; a reading past it is a broken sensor. */
  celsius: { what: 'temperature', read: readRouterNumber, range: { min: -60, max: 150 } },
  /** system/health voltages: 12–57 V DC inputs and PoE; 1 kV leaves room for any mains-fed supply's report. */
  volts: { what: 'voltage', read: readRouterNumber, range: { min: 0, max: 1_000 } },
  /** system/health current: a router or switch draws tens of amperes at most. */
  amperes: { what: 'current', read: readRouterNumber, range: { min: 0, max: 1_000 } },
  /** system/health power-consumption (and PoE budgets): a few kilowatts for the largest chassis. */
  watts: { what: 'power', read: readRouterNumber, range: { min: 0, max: 10_000 } },
  /** system/health fan speeds: small fans top out near 30,000 RPM. */
  rpm: { what: 'fan speed', read: readRouterNumber, range: { min: 0, max: 100_000 } },
} as const satisfies Record<string, FieldKind>;

export type FieldKindName = keyof typeof FIELD_KINDS;

/** Records checked for their key fields between two possible pauses. */
const KEYED_PER_STEP = 4096;

/** Problems kept word for word per run: a reply full of odd values must not turn into an unbounded log line. */
const KEPT_PROBLEMS = 20;

/**
 * The earliest time a router's figure can name, Unix seconds: 2015-01-01. WireGuard dates from 2015 and
 * RouterOS 7 from 2021, so no handshake or boot of a router this exporter reads is older; a time before it is a
 * bad value, not history. (It also keeps a real time apart from 0, which the exposition uses for "never".)
 */
export const ERA_START_SECONDS = Date.UTC(2015, 0, 1) / 1000;

/** The router sent the field with a value (RouterOS leaves defaults out, or sends them empty). */
export function given(record: RouterRecord, key: string): boolean {
  const raw = record[key];
  return raw !== undefined && raw !== '';
}

export class FieldReader {
  /** The first few problems, worded; `errors` counts them all. */
  readonly problems: string[] = [];
  #errors = 0;
  readonly #where: string;
  #era: (ValueRange & { readonly nowSeconds: number }) | undefined;

  constructor(where: string) {
    this.#where = where;
  }

  /** How many values did not decode or were out of range. */
  get errors(): number {
    return this.#errors;
  }

  /** A number of the given kind, within its range. */
  value(kind: FieldKindName, record: RouterRecord, key: string): number | undefined {
    const raw = record[key];
    if (raw === undefined || raw === '') return undefined;
    const { what, read, range } = FIELD_KINDS[kind];
    return this.#accepted(key, inRange(what, read(raw), raw, range));
  }

  counter(record: RouterRecord, key: string): number | undefined {
    return this.value('counter', record, key);
  }

  bytes(record: RouterRecord, key: string): number | undefined {
    return this.value('bytes', record, key);
  }

  port(record: RouterRecord, key: string): number | undefined {
    return this.value('port', record, key);
  }

  mtu(record: RouterRecord, key: string): number | undefined {
    return this.value('mtu', record, key);
  }

  rtt(record: RouterRecord, key: string): number | undefined {
    return this.value('rtt', record, key);
  }

  /** A percentage (0–100) as a ratio (0–1). */
  ratioFromPercent(record: RouterRecord, key: string): number | undefined {
    const percent = this.value('percent', record, key);
    return percent === undefined ? undefined : percent / 100;
  }

  /**
   * An age in seconds (a duration such as `last-handshake` or `uptime`) that keeps its start inside the era:
   * `nowSeconds - age` is never before ERA_START_SECONDS. An age is never negative (durations carry no sign).
   */
  age(record: RouterRecord, key: string, nowSeconds: number): number | undefined {
    const raw = record[key];
    if (raw === undefined || raw === '') return undefined;
    return this.#accepted(key, inRange('age within the era (since 2015)', readRouterDuration(raw), raw, this.#eraAt(nowSeconds)));
  }

  bool(record: RouterRecord, key: string): boolean | undefined {
    const raw = record[key];
    if (raw === undefined || raw === '') return undefined;
    return this.#accepted(key, readRouterBool(raw));
  }

  /** The ages that keep a start inside the era at `nowSeconds`: made once per clock reading, not once per field. */
  #eraAt(nowSeconds: number): ValueRange {
    if (this.#era?.nowSeconds !== nowSeconds) this.#era = { nowSeconds, min: 0, max: Math.max(0, Math.floor(nowSeconds - ERA_START_SECONDS)) };
    return this.#era;
  }

  /**
   * The records that hold every one of the menu's key fields (`name`; a peer's `interface` and `public-key`),
   * each one without counted as a problem: a record without them is no interface or peer, and as one it would
   * make series with empty labels. A reply of records none of which holds them is not the menu's data (an
   * `{"status":"ok"}` from something in between): a shape error, never "no peers".
   */
  keyed(records: readonly RouterRecord[], keys: readonly string[]): RouterRecord[] {
    return finish(this.keyedSteps(records, keys));
  }

  /** keyed as steps: a reply may list up to a million records (MAX_RECORDS), a pause possible every 4,096. */
  *keyedSteps(records: readonly RouterRecord[], keys: readonly string[]): Steps<RouterRecord[]> {
    const kept: RouterRecord[] = [];
    for (let index = 0; index < records.length; index++) {
      if (index % KEYED_PER_STEP === KEYED_PER_STEP - 1) yield;
      const record = records[index] as RouterRecord;
      if (holdsAll(record, keys)) kept.push(record);
    }
    if (kept.length === records.length) return kept;
    if (kept.length === 0) {
      throw new RouterOsError('ROS_ERR_SHAPE', `${this.#where}: none of the ${records.length} records holds ${keys.join(' and ')}; the reply is not this menu's data`);
    }
    // Counted once per record left out, as an unreadable value is.
    const left = records.length - kept.length;
    this.#note(`${this.#where} ${left} of ${records.length} records lack ${keys.join(' or ')} and were left out`, left);
    return kept;
  }

  /**
   * A problem between fields (e.g. free above total), found by the collector itself. One a reply can repeat per
   * record is given as a function, worded only while problems are kept.
   */
  problem(text: string | (() => string)): void {
    this.#note(() => `${this.#where} ${typeof text === 'string' ? text : text()}`);
  }

  /** Counted always; worded only while fewer than KEPT_PROBLEMS are kept (wording quotes and redacts router text). */
  #note(words: string | (() => string), count = 1): void {
    this.#errors += count;
    if (this.problems.length < KEPT_PROBLEMS) this.problems.push(typeof words === 'string' ? words : words());
  }

  /**
   * A value read from a given field, or undefined with the problem noted. The readers above read the field
   * themselves rather than hand a function to one reading place: that made a closure per field read (a peer's rx,
   * tx, handshake, keepalive and flags, every run).
   */
  #accepted<T>(key: string, value: Read<T>): T | undefined {
    if (!(value instanceof Unreadable)) return value;
    this.#note(() => `${this.#where} ${key}: ${value.words()}`);
    return undefined;
  }
}

/** Whether the record gives every one of `keys` (a loop, not `every` with a function made per record). */
function holdsAll(record: RouterRecord, keys: readonly string[]): boolean {
  for (let index = 0; index < keys.length; index++) if (!given(record, keys[index] as string)) return false;
  return true;
}

/** The problems of several readers, as one job result reports them. */
export function problemsOf(...readers: FieldReader[]): { problems: string[]; decodeErrors: number } {
  return {
    problems: readers.flatMap((reader) => reader.problems).slice(0, KEPT_PROBLEMS),
    decodeErrors: readers.reduce((sum, reader) => sum + reader.errors, 0),
  };
}
