/**
 * Pure decoders for RouterOS REST values (spec routeros-real-formats.md §7): every value arrives as a
 * JSON string, so the collectors turn strings into numbers here, in one tested place. Each reader returns a
 * finite value or an `Unreadable` naming the offending text, and each `parse…` returns the value or throws
 * `DecodeError` quoting it; none returns NaN.
 */
import { DecodeError } from './errors.js';
import { quoteRouterText } from '../util/text.js';

/** Quote a router value for an error message, bounded so a huge or hostile value cannot flood a log. */
function quote(value: string): string {
  return quoteRouterText(value, 64);
}

/**
 * A value that did not decode: what it should have been and the router's text. It is worded only when someone
 * reads it, since a hostile reply can hold millions of odd values of which a run keeps a few words (FieldReader);
 * wording each (quoting, redacting) and throwing for each would hold the event loop for seconds.
 */
export class Unreadable {
  constructor(
    readonly kind: string,
    readonly value: string,
    readonly hint: string,
  ) {}

  /** The problem in words, the router's text quoted and bounded. */
  words(): string {
    return `not a RouterOS ${this.kind}: ${quote(this.value)}${this.hint === '' ? '' : ` (${this.hint})`}`;
  }
}

/** What a reader makes of one value: the value, or why it is none. */
export type Read<T> = T | Unreadable;

/** The value, or a DecodeError worded from why it is none: for callers that treat a bad value as a failure. */
export function orThrow<T>(read: Read<T>): T {
  if (read instanceof Unreadable) throw new DecodeError(read.words());
  return read;
}

const MICROS_PER_UNIT = { w: 604_800e6, d: 86_400e6, h: 3_600e6, m: 60e6, s: 1e6, ms: 1e3, us: 1 } as const;
type DurationUnit = keyof typeof MICROS_PER_UNIT;
const UNIT_ORDER: readonly DurationUnit[] = ['w', 'd', 'h', 'm', 's', 'ms', 'us'];

// The unit form: units in their fixed output order, each at most once, every one after digits — as the regular
// expression `^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?(?:(\d+)us)?$` reads it, "5ms"
// as five milliseconds, not "5m" and a stray "s" (the ambiguity mktxp had to work around). Read by unitFormMicros.
// Clock forms from input echoes and scripting: "00:01:05", "1d02:03:04", "1d 00:00:00", "2735w1d21:41:43.48".
const CLOCK_FORM = /^(?:(\d+)w)?(?:(\d+)d ?)?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$/;
// Bare seconds, as RouterOS accepts on input: "25", "0.12".
const SECONDS_FORM = /^(\d+)(?:\.(\d+))?$/;

/** Fraction digits ("5", "481891543") → microseconds; precision below 1 µs is dropped. */
function fractionMicros(digits: string | undefined): number {
  return digits === undefined ? 0 : Math.round(Number(`0.${digits}`) * 1e6);
}

function finiteSeconds(micros: number, value: string): Read<number> {
  return Number.isFinite(micros) ? micros / 1e6 : new Unreadable('duration', value, 'out of range');
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Digits that always make an exact integer in a double when added up one by one (10^15 < 2^53). */
const EXACT_DIGITS = 15;

/** The unit at `at` (`ms` and `us` before `m` and `s`) as its place in UNIT_ORDER; -1 for none. */
function unitAt(value: string, at: number): number {
  switch (value.charCodeAt(at)) {
    case 0x77: // w
      return 0;
    case 0x64: // d
      return 1;
    case 0x68: // h
      return 2;
    case 0x6d: // m, or ms
      return value.charCodeAt(at + 1) === 0x73 ? 5 : 3;
    case 0x73: // s
      return 4;
    case 0x75: // us
      return value.charCodeAt(at + 1) === 0x73 ? 6 : -1;
    default:
      return -1;
  }
}

/**
 * The unit form (above) read without the regex: microseconds, or undefined when `value` is not of that form (the empty string
 * included). Every handshake age and keepalive of every peer is one, and a match made an array and a string per
 * unit (~30 MB a cycle at 100 routers × 1,000 peers); the digits are added up in place, and longer runs than a
 * double holds exactly go through Number as the regex's did. A property test holds the two to the same results.
 */
function unitFormMicros(value: string): number | undefined {
  let micros = 0;
  let previous = -1;
  let at = 0;
  while (at < value.length) {
    const start = at;
    let digits = 0;
    for (let code = value.charCodeAt(at); code >= DIGIT_0 && code <= DIGIT_9; code = value.charCodeAt(++at)) digits = digits * 10 + (code - DIGIT_0);
    if (at === start) return undefined;
    const unit = unitAt(value, at);
    if (unit <= previous) return undefined;
    const count = at - start > EXACT_DIGITS ? Number(value.slice(start, at)) : digits;
    micros += count * MICROS_PER_UNIT[UNIT_ORDER[unit] as DurationUnit];
    at += unit >= 5 ? 2 : 1;
    previous = unit;
  }
  return previous < 0 ? undefined : micros;
}

/** A RouterOS duration (`1w2d3h4m5s`, `56ms639us`, `0s`, `1d02:03:04`, `25`, `0.12`) → seconds. */
export function readRouterDuration(value: string): Read<number> {
  const micros = unitFormMicros(value);
  if (micros !== undefined) return finiteSeconds(micros, value);
  const clock = CLOCK_FORM.exec(value);
  if (clock !== null) {
    const [, weeks, days, hours = '0', minutes = '0', seconds = '0', fraction] = clock;
    const hasDays = weeks !== undefined || days !== undefined;
    if (Number(minutes) > 59 || Number(seconds) > 59 || (hasDays && Number(hours) > 23)) {
      return new Unreadable('duration', value, 'clock field out of range');
    }
    const micros =
      Number(weeks ?? 0) * MICROS_PER_UNIT.w +
      Number(days ?? 0) * MICROS_PER_UNIT.d +
      Number(hours) * MICROS_PER_UNIT.h +
      Number(minutes) * MICROS_PER_UNIT.m +
      Number(seconds) * MICROS_PER_UNIT.s +
      fractionMicros(fraction);
    return finiteSeconds(micros, value);
  }
  const bare = SECONDS_FORM.exec(value);
  if (bare !== null) {
    return finiteSeconds(Number(bare[1]) * 1e6 + fractionMicros(bare[2]), value);
  }
  return new Unreadable('duration', value, 'expected e.g. 1w2d3h4m5s, 56ms639us, 1d02:03:04 or bare seconds');
}

export function parseRouterDuration(value: string): number {
  return orThrow(readRouterDuration(value));
}

/** `true`/`false` (REST output) and `yes`/`no` (enum-like fields, CLI notation). Absence is the caller's. */
export function readRouterBool(value: string): Read<boolean> {
  if (value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  return new Unreadable('boolean', value, 'expected true, false, yes or no');
}

/** Whether a field says true (`true` or `yes`), as readRouterBool reads it; absent or unreadable is not. */
export function saysTrue(value: string | undefined): boolean {
  return value !== undefined && readRouterBool(value) === true;
}

/**
 * Whether a peer's `persistent-keepalive` is off: absent (RouterOS leaves it out when 0), empty, or a duration of
 * 0 in any form RouterOS writes (`0s`, `00:00:00`, `0ms`). One reading for every place that asks: three had their
 * own patterns, and `00:00:00` or `0ms` was off to one and on to another (found by review). A value that does not
 * read is not off: it is judged where it is read.
 */
export function keepaliveOff(value: string | undefined): boolean {
  return value === undefined || value === '' || readRouterDuration(value) === 0;
}

/** Whether a field says false (`false` or `no`); absent or unreadable is not. */
export function saysFalse(value: string | undefined): boolean {
  return value !== undefined && readRouterBool(value) === false;
}

export function parseRouterBool(value: string): boolean {
  return orThrow(readRouterBool(value));
}

function finiteNumber(kind: string, value: string): Read<number> {
  const n = Number(value);
  if (!Number.isFinite(n)) return new Unreadable(kind, value, 'out of range');
  // "-0" is a real ping packet-loss rendering risk; a negative zero would print as "-0" in metrics.
  return n === 0 ? 0 : n;
}

/**
 * A decimal integer, optionally negative (ping packet-loss can be, for duplicate replies). Byte counters
 * are 64-bit: beyond 2^53 the result loses precision, which Prometheus' float64 would lose anyway.
 */
const INTEGER_FORM = /^-?\d+$/;
const NUMBER_FORM = /^-?\d+(?:\.\d+)?$/;

export function readRouterInteger(value: string): Read<number> {
  // A pattern of the module's, not a literal here: a literal is a new RegExp object every time it is evaluated.
  if (!INTEGER_FORM.test(value)) return new Unreadable('integer', value, 'expected decimal digits without units');
  return finiteNumber('integer', value);
}

export function parseRouterInteger(value: string): number {
  return orThrow(readRouterInteger(value));
}

/** A plain decimal number (`0.2`, `42`, `-3`); no exponent, units, spaces or empty strings. */
export function readRouterNumber(value: string): Read<number> {
  if (!NUMBER_FORM.test(value)) return new Unreadable('number', value, 'expected a plain decimal number');
  return finiteNumber('number', value);
}

export function parseRouterNumber(value: string): number {
  return orThrow(readRouterNumber(value));
}

/** Inclusive bounds of what a field can be (the range rules in src/collectors/decoding.ts). */
export interface ValueRange {
  readonly min: number;
  readonly max: number;
}

/**
 * `n` when it lies within `range`, else an `Unreadable` naming the router's text: a value that reads but
 * cannot be (a negative counter, a load of 250 %) is as much a decode problem as one that does not read.
 */
export function inRange(kind: string, n: Read<number>, value: string, range: ValueRange): Read<number> {
  if (n instanceof Unreadable || (n >= range.min && n <= range.max)) return n;
  return new Unreadable(kind, value, `out of range ${range.min}–${range.max}`);
}

/** A comma-joined list (`10.0.0.0/24,10.1.0.0/24`); items trimmed defensively, empty items dropped. */
export function parseRouterList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The first `max` items of a comma-joined list as parseRouterList reads them, and whether it holds more; read no
 * further than that (nor past 4 × `max` + 4 pieces, empty ones included). A peer's 30 MB allowed-address of 2 million
 * items, split whole, held the event loop for ~2 s (a hostile-router review).
 */
export function routerListHead(value: string, max: number): { items: string[]; more: boolean } {
  // Most lists are one item (a peer's allowed-address): one array of one, not an array grown by pushing.
  if (max > 0 && !value.includes(',')) {
    const only = value.trim();
    return { items: only === '' ? [] : [only], more: false };
  }
  const items: string[] = [];
  let pieces = 0;
  for (let from = 0; from <= value.length; ) {
    if (++pieces > 4 * max + 4) return { items, more: true };
    const comma = value.indexOf(',', from);
    const to = comma < 0 ? value.length : comma;
    const item = value.slice(from, to).trim();
    if (item !== '') {
      if (items.length === max) return { items, more: true };
      items.push(item);
    }
    from = to + 1;
  }
  return { items, more: false };
}
