/**
 * Typed reads of raw YAML values. Each reader either returns the value or records a problem at the
 * value's path and returns undefined, so one pass reports every mistake. Numbers and booleans may also
 * arrive as strings, because `${ENV}` interpolation always produces strings.
 */
import { cronProblem } from './cron.js';
import { formatDuration, parseDuration } from './duration.js';
import { joinPath, type Problems } from './problems.js';
import { suggest } from './suggest.js';
import { ConfigValueError, quoteValue } from './value-error.js';
import { compilePattern, PatternError, type PeerPattern } from '../util/pattern.js';

export type RawMap = Record<string, unknown>;

/** Stands in for a value whose problem was already reported (a failed `${ENV}`), so readers stay quiet. */
export const REPORTED: unique symbol = Symbol('already reported');

function describe(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'string' ? quoteValue(value) : String(value);
}

/** Keys whose value is a secret (the mappings of routers, defaults, profiles and bandwidth tests). */
/** Keys whose value is a secret: what follows one in a `{ … }` mapping may be its rest (here and config/yaml.ts). */
export const SECRET_KEYS: readonly string[] = ['password', 'password_env', 'password_file'];

/** A key JavaScript orders before every other (an array index): its place in the source is not known. */
const INTEGER_KEY = /^(?:0|[1-9]\d{0,9})$/;

/** A mapping whose keys must all be known; unknown keys are problems, with a suggestion when close. */
export function readMap(
  value: unknown,
  path: string,
  problems: Problems,
  known: readonly string[],
  explain: (key: string) => string | undefined = () => undefined,
): RawMap | undefined {
  if (value === REPORTED) return undefined;
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.add(path, `must be a mapping of keys to values, not ${describe(value)}`);
    return undefined;
  }
  const map = value as RawMap;
  // In `{ …, password: Tr0ub4dor,horse }` an unquoted comma ends the password and makes its rest a key (with a
  // value too: `…,horse: staple`): an unknown key after a secret's key is never named (it may be the secret's
  // rest, even one that looks like a typo of a known key); a near miss still gets its suggestion (`timout`).
  // Object.keys gives integer-like keys first, whatever their place in the file: `password: hunter,998877` lists
  // 998877 before password, so such a key counts as after the secret whenever the mapping has one.
  const keys = Object.keys(map);
  const hasSecret = keys.some((key) => SECRET_KEYS.includes(key));
  let afterSecret = false;
  for (const key of keys) {
    if (SECRET_KEYS.includes(key)) afterSecret = true;
    if (known.includes(key)) continue;
    const reason = explain(key);
    const guess = suggest(key, known);
    if ((afterSecret || (hasSecret && INTEGER_KEY.test(key))) && reason === undefined) {
      problems.add(
        path,
        guess === undefined
          ? 'an unknown key after the password, not named in case it is the password\'s rest: in { … }, an unquoted comma ends a value and makes its rest a key (put the password in quotes)'
          : `an unknown key after the password, not named in case it is the password's rest (an unquoted comma in { … } makes one); did you mean "${guess}"?`,
      );
      continue;
    }
    problems.add(joinPath(path, key), reason ?? `unknown key${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`);
  }
  return map;
}

/** A list (null reads as empty: `ping:` with everything commented out means no targets). */
export function readList(value: unknown, path: string, problems: Problems): unknown[] | undefined {
  if (value === REPORTED) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(path, `must be a list, not ${describe(value)}`);
    return undefined;
  }
  return value;
}

export function readString(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  problems.add(path, value === '' ? 'must not be empty' : `must be a string, not ${describe(value)}`);
  return undefined;
}

/**
 * The longest password taken. Each is registered for redaction in a dozen encoded forms, so a megabyte-long one
 * (a password_file pointing at the wrong file) cost seconds and a gigabyte; RouterOS passwords are far shorter.
 */
export const MAX_SECRET_CHARS = 1024;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A name written as a label value (a ping's or bandwidth test's `name`): a string without control characters or
 * lone surrogates. The exposition format has no escape for those and writes each as U+FFFD, so `b\tc` and `b\rc`
 * would be one series twice, which Prometheus refuses.
 */
export function readLabelName(value: unknown, path: string, problems: Problems): string | undefined {
  const text = readString(value, path, problems);
  if (text === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(text) || LONE_SURROGATE.test(text)) {
    problems.add(path, 'must not hold control characters (tab, line breaks…) or unpaired surrogates: a label value cannot carry them');
    return undefined;
  }
  return text;
}

/** A secret: may be empty, and the value never appears in a message. */
export function readSecret(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value !== 'string') {
    problems.add(path, 'must be a string (quote it in YAML)');
    return undefined;
  }
  const problem = secretProblem(value);
  if (problem === undefined) return value;
  problems.add(path, problem);
  return undefined;
}


/** Why a password cannot be one, in words that never quote it; undefined when it can. */
export function secretProblem(text: string): string | undefined {
  if (text.length > MAX_SECRET_CHARS) return `is longer than ${MAX_SECRET_CHARS} characters: not a password (check what it names)`;
  if (LONE_SURROGATE.test(text)) return 'is not valid Unicode (a lone surrogate, such as the escape \\ud800): it cannot be sent to a router';
  // Basic authentication carries no control characters (RFC 7617), and RouterOS takes none in a password: a file of
  // two lines, or a value with a tab or CR in it, loaded and every login failed (found by review).
  if (CONTROL.test(text)) return 'holds a control character (a line break inside it, a tab, a CR): a password cannot, and Basic authentication could not send it';
  return undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

export function readStringList(value: unknown, path: string, problems: Problems): string[] | undefined {
  if (value === REPORTED) return undefined;
  const list = readList(value, path, problems);
  if (list === undefined) return undefined;
  const strings = list.map((item, i) => readString(item, joinPath(path, i), problems));
  return strings.every((item) => item !== undefined) ? strings : undefined;
}

export function readBoolean(value: unknown, path: string, problems: Problems): boolean | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  problems.add(path, `must be true or false, not ${describe(value)}`);
  return undefined;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

export function readInteger(
  value: unknown,
  path: string,
  problems: Problems,
  range: { min: number; max: number },
): number | undefined {
  if (value === REPORTED) return undefined;
  const n = toNumber(value);
  if (n === undefined || !Number.isInteger(n)) {
    problems.add(path, `must be a whole number, not ${describe(value)}`);
  } else if (n < range.min || n > range.max) {
    problems.add(path, `must be between ${range.min} and ${range.max}, not ${n}`);
  } else {
    return n;
  }
  return undefined;
}

export function readNumber(value: unknown, path: string, problems: Problems): number | undefined {
  if (value === REPORTED) return undefined;
  const n = toNumber(value);
  if (n !== undefined && Number.isFinite(n)) return n;
  problems.add(path, `must be a number, not ${describe(value)}`);
  return undefined;
}

export interface DurationLimits {
  /** The shortest allowed; without it a duration must merely be longer than 0. */
  atLeast?: number;
  /** The longest allowed (inclusive) or the bound to stay below, and why, for the message. */
  atMost?: { seconds: number; exclusive?: boolean; why: string };
}

/**
 * The longest duration any setting takes where it sets no bound of its own: ten years. Longer ones read, and
 * made figures no reader takes (`forget_after: 1000000000000000000h` answered a full profile's probes with
 * `Retry-After: 3.6e+21`, and `handshake_stale_after` showed a bound of 3.6e20 s in /health: found by a hostile
 * tester).
 */
export const MAX_DURATION_SECONDS = 10 * 365 * 86_400;
const AT_MOST_TEN_YEARS: DurationLimits['atMost'] & object = { seconds: MAX_DURATION_SECONDS, why: 'is longer than any setting takes: at most 10y' };

/** A Prometheus-style duration string (`15s`, `1h30m`) → seconds, within limits (at most MAX_DURATION_SECONDS). */
export function readDuration(
  value: unknown,
  path: string,
  problems: Problems,
  limits: DurationLimits = {},
): number | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value !== 'string') {
    problems.add(path, `must be a duration with a unit, like 15s or 5m, not ${describe(value)}`);
    return undefined;
  }
  let seconds: number;
  try {
    seconds = parseDuration(value);
  } catch (error) {
    problems.add(path, error instanceof ConfigValueError ? error.message : String(error));
    return undefined;
  }
  const { atLeast, atMost = AT_MOST_TEN_YEARS } = limits;
  const tooLong = atMost !== undefined && (atMost.exclusive === true ? seconds >= atMost.seconds : seconds > atMost.seconds);
  if (atLeast === undefined && seconds <= 0) {
    problems.add(path, 'must be longer than 0s');
  } else if (atLeast !== undefined && seconds < atLeast) {
    problems.add(path, `${value} is too short: the minimum is ${formatDuration(atLeast)}`);
  } else if (tooLong) {
    problems.add(path, `${value} ${atMost.why}`);
  } else {
    return seconds;
  }
  return undefined;
}

export function readEnum<T extends string>(
  value: unknown,
  path: string,
  problems: Problems,
  allowed: readonly T[],
): T | undefined {
  if (value === REPORTED) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  problems.add(path, `must be one of ${allowed.join(', ')}, not ${describe(value)}`);
  return undefined;
}

/** A node-cron expression, 5 fields or 6 with seconds. */
export function readCron(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === REPORTED) return undefined;
  const text = readString(value, path, problems);
  if (text === undefined) return undefined;
  const problem = cronProblem(text);
  if (problem === undefined) return text;
  problems.add(path, problem);
  return undefined;
}

/**
 * A name pattern, matched in full like Prometheus regexes (`lab-.*`, not every name containing "lab-"). Compiled
 * to the linear-time matcher (src/util/pattern.ts), never a backtracking RegExp: a pattern like `(a+)+b` must not
 * let one peer or interface name block the event loop. What it cannot run is refused here.
 */
export function readPattern(value: unknown, path: string, problems: Problems): PeerPattern | undefined {
  const text = readString(value, path, problems);
  if (text === undefined) return undefined;
  try {
    return compilePattern(text);
  } catch (error) {
    // Anything else thrown is the matcher's limit, not the config's fault, but still a problem of this value
    // rather than the end of the loader (a reload must keep running what it has).
    const reason = error instanceof PatternError ? error.message : `it cannot be compiled (${error instanceof Error ? error.name : 'error'})`;
    problems.add(path, `${quoteValue(text)} is not a valid regular expression: ${reason}`);
    return undefined;
  }
}
