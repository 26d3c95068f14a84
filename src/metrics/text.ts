/** Prometheus text-format primitives: label escaping and value formatting. */

import { keyedDigest, longestSecretLength, redactSecretsDistinct } from '../util/redact.js';
import { wholePairs } from '../util/text.js';

/**
 * The longest label value written, in UTF-16 code units. RouterOS names and comments are far shorter; a router
 * that sends a name of megabytes (one 20 MB interface name blocked the event loop 1.6 s and held 476 MB: the
 * name went into each of the interface's ~13 lines) gets it shortened (`shortened`).
 */
export const MAX_LABEL_VALUE_CHARS = 1024;
const DIGEST_HEX = 16;
const SHOWN_CHARS = MAX_LABEL_VALUE_CHARS - DIGEST_HEX - 1;

/**
 * A value over MAX_LABEL_VALUE_CHARS (`raw`) as it is written: the start of its redacted form (`shown`), `…`, and 16
 * hex digits of a keyed digest of the whole value, so the label stays readable, the same from scrape to scrape
 * while the exporter runs, and as distinct as the values (two long names that share a start do not become one
 * series). Keyed: an unkeyed digest of text that holds a secret could be checked against guesses.
 */
function shortened(raw: string, shown: string): string {
  return `${wholePairs(shown.slice(0, SHOWN_CHARS))}…${keyedDigest(raw, DIGEST_HEX)}`;
}

/**
 * A value as a label carries it, before escaping: with every secret the process knows redacted (a router or a
 * proxy that echoes the password or the Authorization header in a name or comment must not put it in a scrape),
 * each as a tag of its own so that names differing only in a secret stay distinct series; and shortened when over
 * MAX_LABEL_VALUE_CHARS. For other outputs that name what the series name (/health), so the two match and stay as
 * bounded. The work is bounded by what is shown: of a longer value only a window is redacted, and as many
 * characters as the longest secret has go from its end (a secret may run on past it), as in cleanText.
 */
export function labelText(value: string): string {
  if (value.length <= MAX_LABEL_VALUE_CHARS) {
    const safe = redactSecretsDistinct(value);
    return safe.length > MAX_LABEL_VALUE_CHARS ? shortened(value, safe) : safe;
  }
  const reach = longestSecretLength();
  const head = redactSecretsDistinct(wholePairs(value.slice(0, MAX_LABEL_VALUE_CHARS + 2 * reach)));
  return shortened(value, head.slice(0, Math.max(0, head.length - reach)));
}

/**
 * A value a client typed, as a label carries it: bounded as labelText bounds, but not scrubbed of secrets. A
 * discovered target's name is what its /probe client typed; scrubbing typed text answers "is this one of the
 * passwords?" for every guess in it (a target named `admin-summer2024-x.branch…` came back
 * `admin-[REDACTED:…]-x.branch…`, in its own probe and in /metrics) while hiding nothing from the one who typed it.
 * What a router sends (names, comments, error texts) and what the config names stay scrubbed.
 */
export function givenLabelText(value: string): string {
  return value.length <= MAX_LABEL_VALUE_CHARS ? value : shortened(value, wholePairs(value.slice(0, MAX_LABEL_VALUE_CHARS)));
}

/**
 * Escapes a label value per the exposition format (backslash, double quote, line feed).
 * Other control characters have no escape in the format and could confuse strict parsers,
 * so they become U+FFFD, as do lone surrogates (they have no UTF-8 form, and the bytes would say U+FFFD
 * anyway; replacing them here lets callers see which values come out alike): whatever a router sends,
 * the output stays parseable.
 */
export function escapeLabelValue(raw: string): string {
  return escapeLabelText(labelText(raw));
}

/** escapeLabelValue for a value a client typed (givenLabelText): a discovered target's name. */
export function escapeGivenLabelValue(raw: string): string {
  return escapeLabelText(givenLabelText(raw));
}

/**
 * What a label value's escaping looks for: control characters, and surrogates (escapeLabelText tells a lone one from
 * a pair). Patterns of the module's, not literals in the functions: a literal is a new RegExp object each time it
 * is evaluated, and every label value of every series of every run is looked at.
 */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\\"\x00-\x1f\x7f\uD800-\uDFFF]/;
/** What the format cannot carry as written (line feed aside, which it escapes). */
// eslint-disable-next-line no-control-regex
const UNWRITABLE = /[\x00-\x09\x0b-\x1f\x7f\uD800-\uDFFF]/;

function escapeLabelText(value: string): string {
  // Fast path: most values (names, keys, addresses) need nothing.
  if (!NEEDS_ESCAPE.test(value)) return value;
  let out = '';
  for (const char of value) {
    if (char === '\\') out += '\\\\';
    else if (char === '"') out += '\\"';
    else if (char === '\n') out += '\\n';
    else if (unwritable(char)) out += '\uFFFD';
    else out += char;
  }
  return out;
}

/**
 * A label value as a scrape reads it back from the exposition: labelText's form, with what the format cannot carry
 * (control characters other than line feed, lone surrogates) as U+FFFD, as escapeLabelValue writes them. What `/sd`
 * publishes as target labels, so they equal the series' own: it published the raw values, a password in a label
 * in clear where the series carry `[REDACTED:…]`, a 1,100-character value where they carry 1,024 (found by review).
 */
export function labelValueReadBack(raw: string): string {
  const value = labelText(raw);
  if (!UNWRITABLE.test(value)) return value;
  let out = '';
  for (const char of value) out += char !== '\n' && unwritable(char) ? '\uFFFD' : char;
  return out;
}

/** A character a label value cannot carry (escapeLabelText writes U+FFFD): a control character, a lone surrogate. */
function unwritable(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || (char.length === 1 && code >= 0xd800 && code <= 0xdfff);
}

/** `name="value"` with the value escaped. */
export function labelPair(name: string, value: string): string {
  return `${name}="${escapeLabelValue(value)}"`;
}

/** Sample values: integers as integers, NaN and infinities spelled as Prometheus reads them. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** HELP text escaping (backslash and line feed). */
export function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
