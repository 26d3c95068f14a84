/** Field definitions shared by the record menus: how each writable property is parsed and shown. */
import { badRequest } from '../rest/errors.js';
import { asBool, asDurationMicros, asEnum, asInt, asList, asText, invalidValue } from '../rest/values.js';
import { formatMicros } from '../util/duration.js';
import { formatPrefix, networkPrefix, parsePrefix } from '../util/ip.js';
import type { Prefix } from '../util/ip.js';

export interface FieldDef {
  /** Request value → the normalised string stored and printed. Throws a RestError. */
  parse(value: unknown, name: string): string;
  /** Stored at creation when the client does not give the field; absent otherwise. */
  def?: string;
  /** Printed as absent while the stored value equals this (unset comment, keepalive 0…). */
  hideIf?: string;
  /** Only users with the `sensitive` policy see it. */
  sensitive?: boolean;
  /** Version window [since, until) in which the router knows the field. */
  since?: string;
  until?: string;
}

export const text = (extra: Partial<FieldDef> = {}): FieldDef => ({ parse: (v, n) => asText(n, v), ...extra });

export const comment = (): FieldDef => text({ hideIf: '' });

export const bool = (def: 'true' | 'false', extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => asBool(n, v),
  def,
  ...extra,
});

export const int = (min: number, max: number, def?: number, extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => String(asInt(n, v, min, max)),
  ...(def === undefined ? {} : { def: String(def) }),
  ...extra,
});

export const oneOf = (values: readonly string[], def?: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => asEnum(n, v, values),
  ...(def === undefined ? {} : { def }),
  ...extra,
});

/** A time in whole seconds within [0, max], printed `25s`, absent while 0. */
export const seconds = (max: number, extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => formatMicros(Math.floor(asDurationMicros(n, v, 0, max) / 1e6) * 1e6),
  def: '0s',
  hideIf: '0s',
  ...extra,
});

export function prefixOf(name: string, value: unknown, family?: 4 | 6): Prefix {
  const p = parsePrefix(asText(name, value));
  if (p === undefined || (family !== undefined && p.family !== family)) throw invalidValue(name);
  return p;
}

/** An IP prefix list (allowed-address): each normalised to its network, comma-joined. */
export const prefixList = (extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) =>
    asList(n, v)
      .map((item) => formatPrefix(networkPrefix(prefixOf(n, item))))
      .join(','),
  def: '',
  ...extra,
});

/** A name that must be one of `names()` (interfaces, for instance). */
export const reference = (names: () => string[], extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => {
    const name = asText(n, v);
    if (!names().includes(name)) throw badRequest(`input does not match any value of ${n}`);
    return name;
  },
  ...extra,
});

/** Firewall-style address: `[!]ip[/len]` or an `a-b` range; kept as given. */
export const matchAddress = (): FieldDef =>
  text({
    hideIf: '',
    parse: (v, n) => {
      const raw = asText(n, v).trim();
      const body = raw.startsWith('!') ? raw.slice(1) : raw;
      const parts = body.split('-');
      if (raw !== '' && !parts.every((p) => parsePrefix(p) !== undefined)) throw invalidValue(n);
      return raw;
    },
  });

/** Port list like `13231`, `80,443`, `1000-2000`, optionally negated. */
export const portList = (): FieldDef =>
  text({
    hideIf: '',
    parse: (v, n) => {
      const raw = asText(n, v).trim();
      const ok = /^!?\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/.test(raw);
      if (raw !== '' && (!ok || raw.split(/[,-]/).some((p) => Number(p.replace('!', '')) > 65535))) {
        throw invalidValue(n);
      }
      return raw;
    },
  });

export const base64Key = (extra: Partial<FieldDef> = {}): FieldDef => ({
  parse: (v, n) => {
    const key = asText(n, v).trim();
    // 43 base64 characters and one '=' always decode to exactly 32 bytes.
    if (key !== '' && !/^[A-Za-z0-9+/]{43}=$/.test(key)) {
      throw invalidValue(n);
    }
    return key;
  },
  ...extra,
});
