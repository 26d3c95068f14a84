/**
 * Text a reply carried, in an error only where it cannot be the credentials echoed back. A router's failure message,
 * a Content-Type or Content-Encoding, a JSON field's name: each may come from something answering in the router's
 * place (a proxy, a captive portal), which is where the request's credentials are echoed, in forms no redaction
 * knows them by (HTML entities, percent-encoded twice, reversed, base64 at another offset; redact.ts knows the
 * registered spellings only). So such text is shown only when it is written as its kind is (RouterOS's wording, a
 * media type, a field name), is short, and shares no run of characters with a secret (redact.ts sharesSecretRun);
 * otherwise the error says it was withheld. What the text is needed for (that it is not JSON, not data) is said
 * either way.
 */
import { sharesSecretRun } from '../util/redact.js';
import { safeText } from '../util/text.js';

/** Said in place of a text not shown. */
export const WITHHELD = 'text withheld: it may echo the credentials';

/** The longest message or detail shown: RouterOS's own are a few words (`no such command or directory (wireguard)`). */
const SHOWN_TEXT_CHARS = 200;

/**
 * What RouterOS writes its error texts with: ASCII letters, digits, spaces and plain punctuation. No escape of
 * any encoding (`&#33;`, `%2521`, `\u0021`, `+` and `=` of base64), no line break, no markup.
 */
const ROUTEROS_WORDING = /^[A-Za-z0-9 ().,:'"_*/-]*$/;

/**
 * Media types or content codings as HTTP writes them (RFC 9110 tokens: `text/html; charset=utf-8`, `gzip`), with
 * parameters, a header sent twice joined by commas; no quoted strings, no escapes. Bounded by MEDIA_TEXT_CHARS.
 */
const MEDIA_ITEM = String.raw`[A-Za-z0-9!#$&^_.+-]+(?:/[A-Za-z0-9!#$&^_.+-]+)?(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=[A-Za-z0-9!#$&^_.+-]+)*`;
const MEDIA_WORDING = new RegExp(`^${MEDIA_ITEM}(?:\\s*,\\s*${MEDIA_ITEM})*$`);
const MEDIA_TEXT_CHARS = 60;

/** A field name as RouterOS writes one (`.id`, `public-key`, `last-handshake`). Bounded by FIELD_NAME_CHARS. */
const FIELD_WORDING = /^[A-Za-z0-9._-]+$/;
const FIELD_NAME_CHARS = 64;

function shown(text: string, wording: RegExp, maxChars: number): string | undefined {
  if (text.length > maxChars || !wording.test(text) || sharesSecretRun(text)) return undefined;
  return safeText(text, maxChars);
}

/** A RouterOS failure's message or detail as an error shows it, or undefined when withheld. */
export function shownRouterText(text: string): string | undefined {
  return shown(text, ROUTEROS_WORDING, SHOWN_TEXT_CHARS);
}

/** A Content-Type or Content-Encoding as an error shows it, or a phrase saying it was withheld. */
export function shownMediaText(text: string): string {
  return shown(text.trim(), MEDIA_WORDING, MEDIA_TEXT_CHARS) ?? `[${WITHHELD}]`;
}

/** A JSON field's name as an error shows it, quoted, or a phrase saying it was withheld. */
export function shownFieldName(name: string): string {
  const text = shown(name, FIELD_WORDING, FIELD_NAME_CHARS);
  return text === undefined ? `(name ${WITHHELD})` : `"${text}"`;
}
