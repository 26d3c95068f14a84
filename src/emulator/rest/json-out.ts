/**
 * Reply serialisation the way RouterOS writes it: compact, keys sorted alphabetically.
 * Menus build rows in sorted key order already, so the common case is a cheap order check and
 * JSON.stringify; anything else (error bodies, singletons) is re-ordered first. RouterOS keys are
 * never integer-like, so JSON.stringify keeps that insertion order.
 */

export type JsonObject = Readonly<Record<string, string | number>>;
export type JsonReply = JsonObject | readonly JsonObject[];

function sorted(obj: JsonObject): JsonObject {
  let previous: string | undefined;
  for (const key in obj) {
    if (previous !== undefined && key < previous) {
      const out: Record<string, string | number> = {};
      for (const k of Object.keys(obj).sort()) out[k] = obj[k] as string | number;
      return out;
    }
    previous = key;
  }
  return obj;
}

export function toJson(value: JsonReply): string {
  return JSON.stringify(isList(value) ? value.map(sorted) : sorted(value));
}

export function isList(value: JsonReply): value is readonly JsonObject[] {
  return Array.isArray(value);
}
