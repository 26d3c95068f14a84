/**
 * Coercion of request values (already parsed JSON) into the normalised strings the emulator stores
 * and prints. Errors use RouterOS wording: `invalid value for argument x`, `value of x is out of range`.
 */
import { formatMicros, parseDurationMicros } from '../util/duration.js';
import { badRequest } from './errors.js';

export type Params = ReadonlyMap<string, unknown>;

export const invalidValue = (name: string): Error => badRequest(`invalid value for argument ${name}`);

/** Strings pass; numbers and booleans become their decimal / true-false text. */
export function asText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  throw invalidValue(name);
}

/** Integers: JSON numbers (any base the parser accepted) or decimal strings (spec §2.1). */
export function asInt(name: string, value: unknown, min: number, max: number): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) n = Number(value.trim());
  else throw invalidValue(name);
  if (!Number.isInteger(n)) throw invalidValue(name);
  if (n < min || n > max) throw badRequest(`value of ${name} is out of range (${min}..${max})`);
  return n;
}

const TRUE = new Set(['yes', 'true']);
const FALSE = new Set(['no', 'false']);

/** yes/no/true/false (any case) or a JSON boolean; output is always "true"/"false". */
export function asBool(name: string, value: unknown): 'true' | 'false' {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (TRUE.has(v)) return 'true';
    if (FALSE.has(v)) return 'false';
  }
  throw invalidValue(name);
}

/** A RouterOS time input (`25`, `25s`, `00:00:25`, `200ms`) → microseconds within [min, max] seconds. */
export function asDurationMicros(name: string, value: unknown, minS: number, maxS: number): number {
  const us =
    typeof value === 'number' && Number.isFinite(value)
      ? Math.round(value * 1_000_000)
      : typeof value === 'string'
        ? parseDurationMicros(value)
        : undefined;
  if (us === undefined) throw invalidValue(name);
  if (us < minS * 1_000_000 || us > maxS * 1_000_000) {
    throw badRequest(`value of ${name} is out of range (${formatMicros(minS * 1e6)}..${formatMicros(maxS * 1e6)})`);
  }
  return us;
}

export function asEnum<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  const text = asText(name, value);
  const hit = allowed.find((a) => a === text);
  if (hit === undefined) throw badRequest(`input does not match any value of ${name}`);
  return hit;
}

/** A list value: a comma-separated string or a JSON array of strings, stored comma-joined. */
export function asList(name: string, value: unknown): string[] {
  const items = Array.isArray(value) ? value.map((v) => asText(name, v)) : asText(name, value).split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

export function isTrueish(value: string): boolean {
  return TRUE.has(value.toLowerCase());
}

/** Boolean normalisation for comparisons (`disabled=yes` matches "true"). */
export function normaliseBool(value: string): string {
  const v = value.toLowerCase();
  return TRUE.has(v) ? 'true' : FALSE.has(v) ? 'false' : value;
}
