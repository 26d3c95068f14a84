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

/**
 * At most this many values are kept (the oldest go first): a password file rotated on every reload for months
 * must not grow the registry, and what it evicts are passwords no longer in use.
 */
export const MAX_SECRETS = 20_000;

/** In registration order (for eviction). */
const registered = new Set<string>();
/**
 * By their first MIN_SECRET_LENGTH characters: a scrub looks up each position of the text once, so its cost does
 * not grow with the number of routers' passwords (thousands of distinct ones at scale).
 */
const byPrefix = new Map<string, string[]>();

function index(value: string): void {
  const key = value.slice(0, MIN_SECRET_LENGTH);
  const list = byPrefix.get(key);
  if (list === undefined) byPrefix.set(key, [value]);
  else list.push(value);
}

/** The longest registered value that starts at `at`, if any. */
function longestAt(text: string, at: number): string | undefined {
  const candidates = byPrefix.get(text.slice(at, at + MIN_SECRET_LENGTH));
  let best: string | undefined;
  for (const secret of candidates ?? []) {
    if ((best === undefined || secret.length > best.length) && text.startsWith(secret, at)) best = secret;
  }
  return best;
}

function unindex(value: string): void {
  const key = value.slice(0, MIN_SECRET_LENGTH);
  const list = (byPrefix.get(key) ?? []).filter((other) => other !== value);
  if (list.length === 0) byPrefix.delete(key);
  else byPrefix.set(key, list);
}

function addOne(value: string): void {
  if (value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  registered.add(value);
  index(value);
  while (registered.size > MAX_SECRETS) {
    const oldest = registered.values().next().value as string;
    registered.delete(oldest);
    unindex(oldest);
  }
}

function add(value: string): void {
  addOne(value);
  // The form a JSON serialiser writes: quotes, backslashes and controls escaped.
  addOne(JSON.stringify(value).slice(1, -1));
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
 * in it), so ordinary words after "basic" stay readable. Case-sensitive on purpose: with `i`, `[A-Z]` would
 * match any letter.
 */
const SCHEME_VALUE = /(Basic|basic|BASIC|Bearer|bearer|BEARER|Digest|digest|Negotiate|negotiate|NTLM)([ \t]+|%20|\+)(?=[A-Za-z0-9+/_.~-]*[A-Z0-9+/=])[A-Za-z0-9+/_.~-]{4,}=*/g;
/** An `Authorization` header or field echoed with its value: `authorization: x`, `"Authorization":"x"`, `authorization=x`. */
const HEADER_VALUE = /((?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?)(?!\[REDACTED\])(?!(?:Basic|Bearer|Digest|Negotiate|NTLM)[ \t]+\[REDACTED\])[^\s"'\\,;}]+(?:[ \t]+(?!\[REDACTED\])[^\s"'\\,;}]+)?/gi;

/** Leftmost, then longest, registered value at each position, replaced; the text itself when none occurs. */
function redactRegistered(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  while (i + MIN_SECRET_LENGTH <= text.length) {
    const hit = longestAt(text, i);
    if (hit === undefined) {
      i++;
      continue;
    }
    out += text.slice(last, i) + REDACTED;
    i += hit.length;
    last = i;
  }
  return last === 0 ? text : out + text.slice(last);
}

const MENTIONS_AUTH = /basic|bearer|digest|negotiate|ntlm|authorization/i;

/** The text with every registered secret and every Authorization-like value replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = registered.size === 0 ? text : redactRegistered(text);
  if (MENTIONS_AUTH.test(out)) {
    out = out.replace(SCHEME_VALUE, `$1 ${REDACTED}`).replace(HEADER_VALUE, `$1${REDACTED}`);
  }
  return out;
}
