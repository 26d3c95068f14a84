/**
 * How a reply's text was read from its bytes (body.ts): as UTF-8, or, when the bytes were not UTF-8, as windows-1252.
 * RouterOS keeps names as bytes in whatever code page they were typed in and sends them unconverted (real-formats
 * §7.6), so `wg-büro` reads alike from the bytes `C3 BC` of a UTF-8 reply and `FC` of one that was not: only the
 * reading tells which bytes the router holds, which a command that names the entry must write (setup-fixes.ts).
 *
 * Kept on the reply's list of records itself (not enumerable, so it is no record and no copy carries it by chance):
 * the list a client returns is the very list the reply parsed to (records.ts fills it in place).
 */
export type ReplyDecoding = 'utf8' | 'cp1252';

const DECODED_AS = Symbol('routeros.reply-decoding');

/** Marks a parsed reply (a list) with how its text was read; anything else is left as it is. */
export function markDecoding<T>(value: T, decoding: ReplyDecoding): T {
  if (Array.isArray(value)) Object.defineProperty(value, DECODED_AS, { value: decoding, enumerable: false, configurable: true });
  return value;
}

/** How the reply a list of records came from was read; undefined when not known (records made otherwise, a copy). */
export function replyDecoding(records: readonly unknown[]): ReplyDecoding | undefined {
  const value = (records as { [DECODED_AS]?: unknown })[DECODED_AS];
  return value === 'utf8' || value === 'cp1252' ? value : undefined;
}

/** `kept` (a subset of `records`, FieldReader.keyed) marked as `records` was. */
export function withDecodingOf<T extends readonly unknown[]>(records: readonly unknown[], kept: T): T {
  const decoding = replyDecoding(records);
  return decoding === undefined ? kept : markDecoding(kept, decoding);
}
