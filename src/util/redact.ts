/**
 * Redaction of secrets from text the exporter prints (error messages, log lines, command output).
 * `Secret`s register their value when they are made and the RouterOS client registers its Basic credentials when
 * it is built, so any text can be scrubbed of every password the process knows, in whatever form it shows up:
 * as is, as `user:password`, base64-encoded as HTTP Basic sends it, or JSON-escaped inside a log line. Values
 * that merely look like an Authorization header (`Basic …`, `Bearer …`, `authorization: …`) are redacted too,
 * whoever's credentials they are: a router or proxy that echoes request headers must not put them in a log.
 */

export const REDACTED = '[REDACTED]';

/**
 * Shorter values are not registered: redacting every "abc" of every log line would make logs unreadable, and a
 * password that short is no secret. Their Basic encoding (always 4+ characters with a user name) still is.
 */
export const MIN_SECRET_LENGTH = 4;

const registered = new Set<string>();
/** Longest first, so a value that contains another is replaced whole. Rebuilt on the next use after a change. */
let ordered: string[] | undefined;

function add(value: string): void {
  if (value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  registered.add(value);
  // The form a JSON serialiser (pino) writes: quotes, backslashes and controls escaped.
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) registered.add(escaped);
  ordered = undefined;
}

/** Registers a secret value process-wide: it is redacted from every error message and log line from now on. */
export function registerSecret(value: string): void {
  add(value);
}

/** The HTTP Basic encoding of a user name and password (what the `Authorization` header carries after `Basic `). */
export function basicEncoding(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}

/** Registers a password and every form HTTP Basic authentication gives it. */
export function registerCredentials(username: string, password: string): void {
  if (password === '') return;
  add(password);
  add(`${username}:${password}`);
  add(basicEncoding(username, password));
}

/** How many values are registered (tests, and a bound on the cost of a scrub). */
export function registeredSecretCount(): number {
  return registered.size;
}

/**
 * `Basic <token>`, `Bearer <token>`…: the token must look like credentials (a digit, a capital, `+`, `/` or `=`
 * in it), so ordinary words after "basic" stay readable.
 */
const SCHEME_VALUE = /(Basic|Bearer|Digest|Negotiate|NTLM)([ \t]+|%20|\+)(?=[A-Za-z0-9+/_.~-]*[A-Z0-9+/=])[A-Za-z0-9+/_.~-]{4,}=*/gi;
/** An `Authorization` header or field echoed with its value: `authorization: x`, `"Authorization":"x"`, `authorization=x`. */
const HEADER_VALUE = /((?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?)(?!\[REDACTED\])(?!(?:Basic|Bearer|Digest|Negotiate|NTLM)[ \t]+\[REDACTED\])[^\s"'\\,;}]+(?:[ \t]+(?!\[REDACTED\])[^\s"'\\,;}]+)?/gi;

const MENTIONS_AUTH = /basic|bearer|digest|negotiate|ntlm|authorization/i;

/** The text with every registered secret and every Authorization-like value replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = text;
  if (registered.size > 0) {
    ordered ??= [...registered].sort((a, b) => b.length - a.length);
    for (const secret of ordered) {
      if (secret.length <= out.length && out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    }
  }
  if (MENTIONS_AUTH.test(out)) {
    out = out.replace(SCHEME_VALUE, `$1 ${REDACTED}`).replace(HEADER_VALUE, `$1${REDACTED}`);
  }
  return out;
}
