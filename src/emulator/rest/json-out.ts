/**
 * Reply serialisation the way RouterOS writes it: compact, keys sorted alphabetically.
 * Hand-rolled because JSON.stringify keeps insertion order (and puts integer-like keys first).
 */

export type JsonObject = Readonly<Record<string, string | number>>;
export type JsonReply = JsonObject | readonly JsonObject[];

function objectJson(obj: JsonObject): string {
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = obj[key];
    if (i > 0) out += ',';
    out += `${JSON.stringify(key)}:${typeof value === 'number' ? String(value) : JSON.stringify(value)}`;
  }
  return `${out}}`;
}

export function toJson(value: JsonReply): string {
  if (!isList(value)) return objectJson(value);
  const parts: string[] = [];
  for (const obj of value) parts.push(objectJson(obj));
  return `[${parts.join(',')}]`;
}

export function isList(value: JsonReply): value is readonly JsonObject[] {
  return Array.isArray(value);
}
