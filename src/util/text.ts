/**
 * Text from outside (a router's error detail, a value it sent, a proxy's page) made safe to print: characters
 * that steer a terminal or reorder what a reader sees are removed, secrets redacted, and the length bounded, so
 * one hostile or broken reply can neither rewrite an operator's terminal nor fill a log.
 */
import { longestSecretLength, redactSecrets, redactSecretsDistinct } from './redact.js';
import { stripControls } from './controls.js';

/** The most characters of one piece of router text kept in an error message or a log field. */
export const ROUTER_TEXT_LIMIT = 300;
/** The most characters of a whole error message (our words around up to a few pieces of router text). */
export const MESSAGE_LIMIT = 1_000;

export { stripControls } from './controls.js';

/**
 * At most `max` characters (never half a surrogate pair), saying how much was left out: what is cut here, plus
 * `dropped` characters the caller cut before.
 */
export function boundText(text: string, max: number, dropped = 0): string {
  if (text.length <= max) return dropped === 0 ? text : `${text}… (${dropped} more characters)`;
  const kept = wholePairs(text.slice(0, max));
  return `${kept}… (${text.length - kept.length + dropped} more characters)`;
}

/**
 * Outside text fit for a message or a log: secrets redacted, controls stripped (so a secret split by an escape
 * sequence is whole again) and secrets redacted once more, then the length bounded (after redaction, so a cut
 * never leaves half a secret behind). With `singleLine` false, line breaks stay (a stack in a log field).
 *
 * The work is bounded by what is kept, not by what was sent: a router may send megabytes, and a scrub's cost grows
 * with the text and with the passwords known. Only a window is scrubbed, with room for the controls stripping
 * removes; a secret may run on past the window's end, so as many characters as the longest secret has are dropped
 * from the end too, and the count of what was left out says so.
 */
export function cleanText(text: string, max: number, singleLine: boolean, redact: (text: string) => string = redactSecrets): string {
  const reach = longestSecretLength();
  const window = 2 * max + 2 * reach;
  const cut = text.length > window;
  const work = cut ? text.slice(0, window) : text;
  const redacted = redact(work);
  const stripped = stripControls(redacted, singleLine);
  // Errors are made by the thousand when values do not decode: redact twice only when stripping changed the text.
  let clean = stripped === redacted ? stripped : redact(stripped);
  if (cut) clean = wholePairs(clean.slice(0, Math.max(0, clean.length - reach)));
  return boundText(clean, max, cut ? text.length - work.length + reach : 0);
}

/**
 * Router text that names something (a peer, an interface, a problem with them in /health and check), on one line,
 * at most `max` characters: as safeText makes it, but each secret redacted as a tag of its own
 * (redactSecretsDistinct), the same as in the label values the metrics write, so two peers whose names differ
 * only in an echoed secret do not read alike.
 */
export function namedLine(text: string, max: number): string {
  return cleanText(text, max, true, redactSecretsDistinct);
}

/** Without a high surrogate left at the end by a cut: never half a pair. */
export function wholePairs(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/**
 * Router text quoted in a message, at most `max` characters of it, control characters shown as JSON escapes (a
 * value that failed because of a `\u0000` must show it). Redacted before it is cut: a cut made first can leave the
 * start of an echoed password, which redaction no longer knows as one; and as with cleanText, as many characters
 * as the longest secret has go from the end of a cut window. A secret a control character splits would come back
 * whole to a reader who drops the escape: such text is quoted as safeText makes it (controls stripped, redacted).
 */
export function quoteRouterText(text: string, max: number): string {
  const reach = longestSecretLength();
  const window = max + 2 * reach;
  const cut = text.length > window;
  const redacted = redactSecrets(cut ? wholePairs(text.slice(0, window)) : text);
  const stripped = stripControls(redacted);
  if (stripped !== redacted && redactSecrets(stripped) !== stripped) return JSON.stringify(safeText(text, max));
  const room = cut ? Math.max(0, redacted.length - reach) : redacted.length;
  if (!cut && room <= max) return JSON.stringify(redacted);
  return JSON.stringify(`${wholePairs(redacted.slice(0, Math.min(max, room)))}…`);
}

/** Router text fit for a message or a log, on one line (cleanText). */
export function safeText(text: string, max = ROUTER_TEXT_LIMIT): string {
  return cleanText(text, max, true);
}

/**
 * Text for a terminal (a command's stderr): several lines allowed, but no carriage return (it would let a line
 * overwrite what came before it), no terminal control and no known secret.
 */
export function terminalText(text: string): string {
  return redactSecrets(stripControls(redactSecrets(text), false).replace(/\r/g, ''));
}

/**
 * The start of a public key, where it stands for a peer without a name: redacted whole before it is cut. Cut first,
 * a key that held a password showed its first 8 characters, which no redaction knows as a secret (found by review).
 */
export function keyStart(key: string): string {
  return `${wholePairs(namedLine(key, ROUTER_TEXT_LIMIT).slice(0, 8))}…`;
}
