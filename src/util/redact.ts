/**
 * Redaction of secrets from text the exporter prints (error messages, log lines, command output).
 * `Secret`s register their value when they are made and the RouterOS client registers its Basic credentials when
 * it is built, so any text can be scrubbed of every password the process knows, in whatever form it shows up:
 * as is, base64-encoded inside HTTP Basic's `user:password`, JSON-escaped inside a log line, percent-encoded in
 * a URL a proxy redirects to, or its UTF-8 bytes read as Latin-1 or Windows-1252 (a reply that is not valid
 * UTF-8 is decoded so, and undici reads header bytes as Latin-1). Values
 * that merely look like an Authorization header (`Basic …`, `Bearer …`, `authorization: …`) are redacted too,
 * whoever's credentials they are: a router or proxy that echoes request headers must not put them in a log.
 */

import { createHmac, randomBytes } from 'node:crypto';
import { decodeCp1252 } from './cp1252.js';
import { stripControls } from './controls.js';

export const REDACTED = '[REDACTED]';

/**
 * Shorter values are not registered: redacting every "abc" of every log line would make logs unreadable, and
 * redacting them only where they stand alone would tell them (an address `10.0.0.42` shown as `10.0.0.[REDACTED]`
 * names a password `42`). Their Basic encoding (always 4+ characters with a user name) still is, and the config
 * loader warns about such a password (config/warnings.ts).
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * At most this many values are kept, the least recently registered going first: a password file rotated on every
 * reload for months must not grow the registry, and what it evicts are passwords no longer in use (a password
 * still in use is registered again at every config load and client build, which makes it recent again). A
 * password has about a dozen forms (40–60 when it is not ASCII). What the current config load registered is never
 * evicted (beginSecretGeneration), so a config whose own passwords have more forms than this keeps them all: with
 * eviction by recency alone, one load of 3,700 non-ASCII passwords evicted the first routers' as it read the last
 * ones, and every reload did the same again (found by review).
 */
export const MAX_SECRETS = 100_000;

/** Each registered value, with the stamp of its latest registration. */
const registered = new Map<string, number>();
/**
 * Registrations in order, least recent first, for eviction: an entry whose stamp is no longer its value's latest
 * was registered again since, and is passed over. A Set kept in that order (deleted and added again to move a
 * value to the end) made eviction quadratic: each `values().next()` skipped the holes earlier deletions left at
 * the front, and 500,000 registrations at the cap took 94 s instead of a second.
 */
let orderValues: string[] = [];
let orderStamps: number[] = [];
let orderHead = 0;
let lastStamp = 0;
/**
 * The last stamp before the secrets in use were last registered again: values stamped after it (those, and
 * anything registered since, a reload's as it is read included) are never evicted.
 */
let generationStart = 0;

/**
 * The secrets in use are about to be registered again (app.ts, after every reload attempt, once it is applied or
 * refused); call what this returns once they are. From then on they are the kept generation: what was registered
 * before and not again is what the cap evicts, while everything registered since (the next load's, as it is read)
 * is kept too, however much. So one load of 3,700 non-ASCII passwords no longer evicts its own first routers'
 * (found by review), a refused reload leaves the running values kept, and reloads that keep failing cannot grow
 * the registry. A process that never reloads never evicts: nothing else registers new values.
 */
export function beginSecretGeneration(): () => void {
  const start = lastStamp;
  return () => {
    generationStart = Math.max(generationStart, start);
  };
}

/** Values registered that were not registered at the time, ever: changes whenever the set of secrets gains one. */
let added = 0;

/**
 * A count that changes whenever a value not registered before is: what tells a caller the redaction may now
 * write some text otherwise (app.ts, after a refused reload). Not the registry's size, which at its cap stays the
 * same as each new value evicts an old one (found by review).
 */
export function secretsAdded(): number {
  return added;
}

function stamp(value: string): void {
  if (!registered.has(value)) added++;
  const next = ++lastStamp;
  registered.set(value, next);
  orderValues.push(value);
  orderStamps.push(next);
  compactWhenSparse();
}

/**
 * Entries passed over or evicted are dropped once they are most of the list, so it stays within about twice the
 * values held, however often they are registered again (each config load registers them all) or evicted.
 */
function compactWhenSparse(): void {
  if (orderValues.length > 2 * registered.size + 1024) compactOrder();
}

function compactOrder(): void {
  const values: string[] = [];
  const stamps: number[] = [];
  for (let at = orderHead; at < orderValues.length; at++) {
    const value = orderValues[at] as string;
    const stampAt = orderStamps[at] as number;
    if (registered.get(value) === stampAt) {
      values.push(value);
      stamps.push(stampAt);
    }
  }
  orderValues = values;
  orderStamps = stamps;
  orderHead = 0;
}

/**
 * The least recently registered value, taken off the order; undefined when none is held or the oldest was
 * registered by the current config load (then so were all after it).
 */
function takeOldest(): string | undefined {
  while (orderHead < orderValues.length) {
    const value = orderValues[orderHead] as string;
    const stampAt = orderStamps[orderHead] as number;
    if (registered.get(value) !== stampAt) {
      orderHead++;
      continue;
    }
    if (stampAt > generationStart) return undefined;
    orderHead++;
    return value;
  }
  return undefined;
}
/**
 * The index a scrub looks values up in: a tree keyed by 4-character chunks of a value's beginning. A value is
 * filed in the deepest node its beginning reaches; a node holding more than SPLIT values that are longer files
 * them one chunk deeper. A scrub walks from each position of the text only as far as the text matches, so its
 * cost grows neither with the number of passwords (thousands at scale) nor with how many share a beginning
 * (passwords of one scheme, `Company-…`; a fleet's user name in Basic encodings): a miss costs one lookup.
 * Nodes exist only where values share a beginning, so the index holds little more than the values.
 */
const CHUNK = MIN_SECRET_LENGTH;
const SPLIT = 16;
const MAX_DEPTH = 16;

interface IndexNode {
  /** Values filed here: they start with this node's prefix (depth × CHUNK characters). */
  readonly values: Set<string>;
  /** By the next chunk, once this node split. */
  children: Map<string, IndexNode> | undefined;
}

const root = new Map<string, IndexNode>();

/**
 * A filter before the index: how many values begin with each hash of CHUNK characters (saturating at 255, which
 * then never goes down). A position whose hash no value has is passed over with a few multiplications, without
 * the slice and lookup the index costs; label values go through a scrub at every collection, so the miss is what
 * must be cheap. 2^18 counters: at MAX_SECRETS values a third of them are in use, at a few passwords almost none.
 */
const FILTER_BITS = 18;
let headCounts: Uint8Array | undefined;

function headHash(text: string, at: number): number {
  const h =
    Math.imul(foldedAt(text, at), 0x9e3779b1) ^
    Math.imul(foldedAt(text, at + 1), 0x85ebca77) ^
    Math.imul(foldedAt(text, at + 2), 0xc2b2ae3d) ^
    Math.imul(foldedAt(text, at + 3), 0x27d4eb2f);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> (32 - FILTER_BITS);
}
/** The longest value registered since start (a bound on how far a secret reaches; never decreases). */
let longestValue = 0;

function chunkOf(text: string, depth: number, at = 0): string {
  return fold(text.slice(at + depth * CHUNK, at + (depth + 1) * CHUNK));
}

/**
 * Values are registered, and text is matched, with ASCII letters folded to lower case: a proxy or portal that
 * upper-cases what it echoes (the password, its Basic encoding, its hex) printed it in a form no registered value
 * matched (found by review). Folding only A–Z keeps every position where it was, so a match is replaced in the text
 * as it came; registering each case as a value of its own would have tripled the registry, a fleet's thousands of
 * passwords with it.
 */
function fold(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : text;
}

function foldedAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 65 && code <= 90 ? code | 0x20 : code;
}

/** Whether `text` holds the (folded) `value` at `at`, letters compared folded. */
function holdsAt(text: string, value: string, at: number): boolean {
  if (at + value.length > text.length) return false;
  for (let index = 0; index < value.length; index++) {
    if (foldedAt(text, at + index) !== value.charCodeAt(index)) {
      compared += index + 1;
      return false;
    }
  }
  compared += value.length;
  return true;
}

/** Characters holdsAt compared so far: the work a scrub's search for overlaps is charged (redactRegistered). */
let compared = 0;

/**
 * Characters compared against registered values since start: the part of a scrub's cost that depends on what the
 * text holds (the rest is one filter lookup a position). Read by tests, which bound the work rather than time it:
 * a timed bound failed on a loaded CI machine.
 */
export function charactersCompared(): number {
  return compared;
}

/** The node a value is filed in, made as needed, its depth (chunks below the root), and where it hangs. */
function fileOf(value: string): { node: IndexNode; depth: number; parent: Map<string, IndexNode>; key: string } {
  let parent = root;
  let key = chunkOf(value, 0);
  let depth = 1;
  for (;;) {
    let node = parent.get(key);
    if (node === undefined) {
      node = { values: new Set(), children: undefined };
      parent.set(key, node);
    }
    if (node.children === undefined || value.length < (depth + 1) * CHUNK) return { node, depth, parent, key };
    parent = node.children;
    key = chunkOf(value, depth);
    depth++;
  }
}

function countHead(value: string, change: 1 | -1): void {
  headCounts ??= new Uint8Array(1 << FILTER_BITS);
  const head = headHash(value, 0);
  const count = headCounts[head] as number;
  if (count !== 255) headCounts[head] = count + change;
}

function index(value: string): void {
  const { node, depth } = fileOf(value);
  node.values.add(value);
  if (node.values.size <= SPLIT || node.children !== undefined || depth >= MAX_DEPTH) return;
  node.children = new Map();
  for (const filed of [...node.values]) {
    if (filed.length < (depth + 1) * CHUNK) continue;
    node.values.delete(filed);
    index(filed);
  }
}

function unindex(value: string): void {
  const { node, parent, key } = fileOf(value);
  node.values.delete(value);
  // An empty leaf goes, so values rotated for months leave no nodes behind (a split node stays: it is shared).
  if (node.values.size === 0 && node.children === undefined) parent.delete(key);
}

/** The longest registered value that starts at `at`, if any. */
function longestAt(text: string, at: number, exact: boolean): string | undefined {
  let node = root.get(chunkOf(text, 0, at));
  let best: string | undefined;
  for (let depth = 1; node !== undefined; depth++) {
    for (const secret of node.values) {
      if ((best === undefined || secret.length > best.length) && holdsAt(text, secret, at) && (!exact || spelledAt(text, secret, at))) best = secret;
    }
    if (node.children === undefined || at + (depth + 1) * CHUNK > text.length) break;
    node = node.children.get(chunkOf(text, depth, at));
  }
  return best;
}

/**
 * The spellings a folded value was registered in, where one is not the folded value itself (it has a capital): what
 * text that names something must hold to be redacted (redactSecretsDistinct). Folded there too, a password such as
 * `mikrotik` turned RouterOS's own `MikroTik` in every router's info series into a redaction tag (found by review).
 * No entry: the value was registered as it is folded.
 */
const spellings = new Map<string, string[]>();

function spell(value: string, form: string): void {
  const known = spellings.get(value);
  if (known === undefined) {
    if (form === value) return;
    // Registered before only folded (no entry), the folded spelling is one of its spellings too.
    spellings.set(value, registered.has(value) ? [value, form] : [form]);
  } else if (!known.includes(form)) {
    known.push(form);
  }
}

/** Whether the text holds the folded value `secret` at `at` in one of the spellings it was registered in. */
function spelledAt(text: string, secret: string, at: number): boolean {
  const known = spellings.get(secret);
  if (known === undefined) return text.startsWith(secret, at);
  for (const form of known) if (text.startsWith(form, at)) return true;
  return false;
}

function addOne(form: string): void {
  if (form.length < MIN_SECRET_LENGTH) return;
  const value = fold(form);
  spell(value, form);
  if (registered.has(value)) {
    // Registered again: in use, so recent again.
    stamp(value);
    return;
  }
  stamp(value);
  index(value);
  countHead(value, 1);
  longestValue = Math.max(longestValue, value.length);
  while (registered.size > MAX_SECRETS) {
    const oldest = takeOldest();
    if (oldest === undefined) break;
    registered.delete(oldest);
    spellings.delete(oldest);
    compactWhenSparse();
    unindex(oldest);
    countHead(oldest, -1);
  }
}

/**
 * What a WHATWG URL (Node's, undici's) percent-encodes in a path: controls, space, `"#<>?\`{}` and all that is not
 * ASCII. `encodeURIComponent` (registered too) encodes more.
 */
// eslint-disable-next-line no-control-regex
const PATH_ENCODED = /[\u0000-\u0020"#<>?`{}\u007f-\uffff]/;

function percentEncodedPath(value: string): string {
  let out = '';
  for (const char of value) {
    out += PATH_ENCODED.test(char) ? [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('') : char;
  }
  return out;
}

/**
 * Every form a value may take in text the exporter prints. Its text: as is, and when not ASCII its UTF-8 read as
 * Latin-1 or Windows-1252 (a reply with one invalid byte is read as Windows-1252; undici reads header bytes as
 * Latin-1). Each text as is and percent-encoded as a URL path or a form field carries it (a redirect's target: a
 * header misread as Latin-1, then encoded by the URL parser). Each of those JSON-escaped (a log line).
 */
function formsOf(value: string): Set<string> {
  // Without the controls text.ts strips from router text (a tab or line break echoed as a space, or gone), and in
  // either case where that is more than ASCII's (matching folds A–Z): found by review.
  const texts = new Set<string>([value, ...withoutControls(value)]);
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/.test(value)) {
    const bytes = Buffer.from(value, 'utf8');
    texts.add(bytes.toString('latin1'));
    texts.add(decodeCp1252(bytes));
    // The other Unicode spelling (`ä` as one character, or as `a` and a combining mark): a system that normalises
    // the text it echoes writes the one the password is not in.
    for (const form of [value, value.normalize('NFC'), value.normalize('NFD')]) {
      texts.add(form);
      texts.add(form.toUpperCase());
      texts.add(form.toLowerCase());
      // `ß` upper-cases to `SS`, but a capital sharp s (`ẞ`) exists too (found by review).
      if (form.includes('ß')) texts.add(form.replace(/ß/g, 'ẞ').toUpperCase());
    }
  }
  const forms = new Set<string>();
  for (const text of texts) {
    // A form field (application/x-www-form-urlencoded) encodes more than a URI component, and a space as `+`.
    const formField = new URLSearchParams({ x: text }).toString().slice(2);
    // RFC 3986's strict encoding, which encodeURIComponent is not (it leaves `!'()*`): Python's quote(safe=''),
    // Go's escaping, and with a space as `+` Go's QueryEscape (a portal written in either echoed `*` as `%2A`).
    const strict = encodedOrNothing(strictlyEncoded, text);
    const encodings = [text, encodedOrNothing(percentEncodedPath, text), encodedOrNothing(encodeURIComponent, text), formField, strict, strict.replace(/%20/g, '+')];
    for (const form of encodings) {
      // Percent-encoding's hex digits may come in lower case (RFC 3986 allows either; some proxies write them so).
      for (const cased of [form, form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())]) {
        forms.add(cased);
        forms.add(JSON.stringify(cased).slice(1, -1));
      }
    }
  }
  return forms;
}

/** The value as text.ts's stripControls leaves it on one line (tabs and line breaks as one space), and without them. */
function withoutControls(value: string): string[] {
  return [stripControls(value), stripControls(value, false).replace(/[\t\n\r]+/g, '')];
}

/** encodeURIComponent and the characters it leaves that RFC 3986 reserves: only `A-Z a-z 0-9 - . _ ~` stay. */
function strictlyEncoded(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A percent-encoding of text, or the text itself when it has none: text with a lone surrogate (`\ud800`, which
 * YAML's escapes can write) makes encodeURIComponent throw, and registering a secret must never throw. A URL
 * parser writes such a character as U+FFFD's bytes, which the other forms do not hold either way.
 */
function encodedOrNothing(encode: (text: string) => string, text: string): string {
  try {
    return encode(text);
  } catch {
    return text;
  }
}

function add(value: string): void {
  for (const form of formsOf(value)) addOne(form);
  // Its UTF-8 bytes in hex (either case: matching folds A-F too): a hostile target's error detail echoed the
  // password so, and 5xx details are printed (found by a hostile tester). Not for a value too short to be
  // registered itself: `ab`'s `6162` redacted in every number would tell it (found by review).
  if (value.length >= MIN_SECRET_LENGTH) addOne(Buffer.from(value, 'utf8').toString('hex'));
}

/** Registers a secret value process-wide: it is redacted from every error message and log line from now on. */
export function registerSecret(value: string): void {
  add(value);
  addRunSource(value);
}

/** The HTTP Basic encoding of a user name and password (what the `Authorization` header carries after `Basic `). */
export function basicEncoding(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}

/**
 * Registers a password and the form HTTP Basic authentication gives it. `user:password` needs no form of its own
 * (the password in it is redacted), but for a password under MIN_SECRET_LENGTH, which is not registered alone.
 * Of the Basic encoding, what is registered starts at the first base64 group holding a byte of the password: the
 * groups before it encode only the user name, which every router of a fleet may share, and a value starting
 * there would file all their encodings under one beginning. `bW9uaXRvcjo[REDACTED]` shows the user name, no bit
 * of the password.
 */
export function registerCredentials(username: string, password: string): void {
  if (password === '') return;
  add(password);
  addRunSource(password);
  // A password too short to register alone still shows as `user:abc` (a URL's userinfo): that form goes in.
  if (password.length < MIN_SECRET_LENGTH) add(`${username}:${password}`);
  const passwordStart = Buffer.byteLength(`${username}:`, 'utf8');
  const basic = basicEncoding(username, password).slice(Math.floor(passwordStart / 3) * 4);
  addOne(basic);
  // Without its padding, and in base64url (an echo that drops `=`, or writes the URL alphabet): found by review.
  const unpadded = basic.replace(/=+$/, '');
  addOne(unpadded);
  addOne(unpadded.replace(/\+/g, '-').replace(/\//g, '_'));
  // The password alone in base64 (a proxy's error page that "decodes" the header for its reader echoes it so),
  // without its padding, which a reader may drop.
  const alone = Buffer.from(password, 'utf8');
  addOne(alone.toString('base64').replace(/=+$/, ''));
  addOne(alone.toString('base64url'));
}

/**
 * Forgets every registered value, as a process starts with none. The exporter never calls it: a password stays
 * registered while it may still be echoed. The test runner does, before each test file, since files share a
 * worker process and a password one file registers must not redact another file's words.
 */
export function forgetAllSecrets(): void {
  registered.clear();
  orderValues = [];
  orderStamps = [];
  orderHead = 0;
  lastStamp = 0;
  generationStart = 0;
  root.clear();
  spellings.clear();
  headCounts = undefined;
  longestValue = 0;
  tags.clear();
  runSources.clear();
  runIndex = undefined;
  pendingRuns = [];
}

/** The longest registered value's length: how far past a cut a secret may reach. */
export function longestSecretLength(): number {
  return longestValue;
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

/**
 * Every registered value in the text replaced: where values overlap (one starting inside another, as
 * `Branch7-Secret` and `Secret-2024xyz` do in `Branch7-Secret-2024xyz`), the whole stretch they cover, once.
 * Skipping past each match left the second's end in clear (found by review). The text itself when none occurs.
 */
function redactRegistered(text: string, replacement: (secret: string) => string, exact: boolean): string {
  const counts = headCounts;
  if (counts === undefined) return text;
  let out = '';
  let last = 0;
  let start = -1;
  let end = -1;
  // Looking for overlaps inside a stretch costs up to the longest value a position: a long password that repeats a
  // pattern (`abab…`, 4 KB) in a text of it made that quadratic, 7.7 s for 1 MiB (found by review). Past this many
  // characters compared the rest of a stretch is passed over, as before overlaps were looked for. Charged by the work
  // done, not by the longest value: one long password registered turned the search off in every short text.
  const overlapUntil = compared + 64 * text.length + 65_536;
  for (let i = 0; i + MIN_SECRET_LENGTH <= text.length; i++) {
    if (start >= 0 && i >= end) {
      out += text.slice(last, start) + replacement(text.slice(start, end));
      last = end;
      start = -1;
    }
    if (start >= 0 && compared > overlapUntil) {
      i = end - 1;
      continue;
    }
    const hit = counts[headHash(text, i)] === 0 ? undefined : longestAt(text, i, exact);
    if (hit === undefined) continue;
    if (start < 0) start = i;
    end = Math.max(end, i + hit.length);
  }
  if (start >= 0) {
    out += text.slice(last, start) + replacement(text.slice(start, end));
    last = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

const MENTIONS_AUTH = /basic|bearer|digest|negotiate|ntlm|authorization/i;

const redacted = (): string => REDACTED;

/** The text with every registered secret and every Authorization-like value replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = registered.size === 0 ? text : redactRegistered(text, redacted, false);
  if (MENTIONS_AUTH.test(out)) {
    out = out.replace(SCHEME_VALUE, `$1 ${REDACTED}`).replace(HEADER_VALUE, `$1${REDACTED}`);
  }
  return out;
}

/**
 * The key of the tags redactSecretsDistinct writes: made at start, so a tag stays the same while the process runs
 * and says nothing of the secret to anyone without the key (an unkeyed digest of a password could be checked
 * against guesses).
 */
const TAG_KEY = randomBytes(32);
const TAG_HEX = 8;
/** Tags made so far, by secret: a name holding a secret many times (or many names one) costs one HMAC per secret. */
const tags = new Map<string, string>();

/** Hex digits of an HMAC-SHA-256 of the text under the process's key: stable while it runs, no oracle for guesses. */
export function keyedDigest(text: string, hexDigits: number): string {
  return createHmac('sha256', TAG_KEY).update(text).digest('hex').slice(0, hexDigits);
}

function tagged(secret: string): string {
  let tag = tags.get(secret);
  if (tag === undefined) {
    tag = `[REDACTED:${keyedDigest(secret, TAG_HEX)}]`;
    // Bounded as the registry is: what it holds are tags of registered values.
    if (tags.size >= MAX_SECRETS) tags.clear();
    tags.set(secret, tag);
  }
  return tag;
}

/** Characters that show nothing (text.ts strips them from messages): a secret they split reads whole on a screen. */
const SHOWS_NOTHING = /\p{Default_Ignorable_Code_Point}/gu;
// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\u0000-\u007f]/;

/**
 * The registered secrets in the text, each replaced by `[REDACTED:<tag>]`, the tag a keyed digest of what it
 * replaces: for text that names something (a label value, a peer in /health), where two names that differ only in
 * what is redacted must stay two names, the same from collection to collection. Unlike redactSecrets, what merely
 * looks like credentials stays: a peer named "Basic Office" is a name, and the exporter's own Basic credentials
 * are registered. And a secret is matched in the spellings it was registered in, its case not folded: a name is what
 * the router's own configuration holds, not what a proxy echoed, and folded, the password `mikrotik` made RouterOS's
 * `MikroTik` a tag in every router's series.
 */
export function redactSecretsDistinct(text: string): string {
  if (registered.size === 0) return text;
  const out = redactRegistered(text, tagged, true);
  // A secret split by a soft hyphen or a zero-width character: redacted as the text shows (and without what does
  // not show), or it would stand in a label whole to the eye. Names without such a secret stay as they are.
  if (!NOT_ASCII.test(out)) return out;
  const shown = out.replace(SHOWS_NOTHING, '');
  if (shown === out) return out;
  const again = redactRegistered(shown, tagged, true);
  return again === shown ? out : again;
}

/**
 * Characters in a row that a router's error text may share with a secret, in one of its spellings below, before
 * the text is withheld whole (transport-errors.ts). Redaction knows a secret by the forms it registers; a proxy or
 * portal echoes it in forms without end (HTML entities, percent-encoded twice, reversed, inside base64 of a JSON
 * body at any byte offset, a Basic token broken over lines), each of which keeps long runs of the password, of its
 * reverse or of its base64 at one of three alignments (found by a hostile tester: 14 of 15 characters printed).
 * A secret shorter than this (4 characters at least, the shortest registered) is looked for whole: shorter runs of
 * it are in ordinary words, and a text withheld for those would tell them. Six, not five: beside a fleet's 10,000
 * random passwords, runs of five withheld a fifth of RouterOS's own texts (`no such command prefix`; found by
 * review).
 */
export const SHARED_RUN = 6;
/**
 * The same for a secret's hex and base64 spellings (or all of one, if shorter): case-folded and stripped to letters
 * and digits, their 5-character runs met ordinary words. With 10,000 random passwords a third of RouterOS's own
 * texts (`Not Found`, `no such command or directory (wireguard)`) were withheld (found by review); an echo in
 * either encoding keeps runs of 8 and more.
 */
export const SHARED_ENCODED_RUN = 8;

/** One secret's runs: their hashes (runHash) and the run lengths they have. */
interface SecretRuns {
  readonly hashes: Uint32Array;
  readonly lengths: readonly number[];
}

/**
 * Secrets (passwords and Secret values, not the `user:password` of a short one, whose user name is in ordinary text)
 * whose runs sharesSecretRun looks for, by their value as given, with their runs once worked out. Worked out when
 * first asked, not when registered: ~20 µs a secret doubled the cost of a config load of thousands, for an error
 * path most loads never take. One no longer registered (evicted at the cap) is dropped at the next pruning.
 */
const runSources = new Map<string, SecretRuns | undefined>();

/**
 * Secrets whose runs are kept at most, the most recently registered: a fleet's passwords, each with ~100 runs (a
 * table of ~8 MB at this bound). Past it, an older secret's echoes in other spellings are left to the other tests
 * of shownRouterText (transport-errors.ts); the registry's own cap is on forms, about a dozen a password.
 */
export const MAX_RUN_SOURCES = 10_000;

/** The runs' hashes (buildRunIndex); undefined until first asked, and after a pruning. */
interface RunIndex {
  readonly table: Uint32Array;
  /** The run lengths in use: SHARED_RUN, and MIN_SECRET_LENGTH for a secret that short. */
  readonly lengths: number[];
  /** Slots in use. */
  count: number;
}
let runIndex: RunIndex | undefined;

/** Secrets added since the index was built, their runs not yet in it. */
let pendingRuns: string[] = [];

function addRunSource(value: string): void {
  if (value.length < MIN_SECRET_LENGTH || runSources.has(value)) return;
  runSources.set(value, undefined);
  pendingRuns.push(value);
  // Bounded between errors too: a process whose passwords rotate for months, and that never fails a read.
  if (runSources.size > 2 * MAX_RUN_SOURCES) {
    pruneRunSources();
    runIndex = undefined;
    pendingRuns = [];
  }
}

/**
 * The index with every secret's runs: built when first asked, then the secrets added since put in as they are,
 * while they fit (a rebuild of 8,000 passwords' runs for one more took ~0.15 s); rebuilt, twice the size, when
 * they would fill it past three quarters, which leaves out the secrets evicted since (till then a text they hold
 * is withheld, never shown).
 */
function currentRunIndex(): RunIndex {
  if (runIndex !== undefined && pendingRuns.length > 0) {
    const added = pendingRuns.flatMap((source) => {
      if (!runSources.has(source) || runSources.get(source) !== undefined) return [];
      const runs = runsOf(source);
      runSources.set(source, runs);
      return [runs];
    });
    const room = 3 * runIndex.table.length - 4 * runIndex.count;
    if (4 * added.reduce((sum, runs) => sum + runs.hashes.length, 0) <= room) {
      for (const runs of added) insertRuns(runIndex, runs);
    } else {
      runIndex = undefined;
    }
  }
  pendingRuns = [];
  runIndex ??= buildRunIndex();
  return runIndex;
}

/** Drops the secrets no longer registered, then all but the MAX_RUN_SOURCES most recently registered. */
function pruneRunSources(): void {
  for (const source of runSources.keys()) if (!registered.has(fold(source))) runSources.delete(source);
  if (runSources.size <= MAX_RUN_SOURCES) return;
  // As the registry keeps them: a secret in use is registered again at every load, which makes it recent.
  const recency = (source: string): number => registered.get(fold(source)) ?? 0;
  const kept = [...runSources.entries()].sort(([a], [b]) => recency(b) - recency(a)).slice(0, MAX_RUN_SOURCES);
  runSources.clear();
  for (const [source, runs] of kept) runSources.set(source, runs);
}

/** A secret's runs: SHARED_RUN characters of each spelling, all of one of MIN_SECRET_LENGTH; a shorter one has none. */
function runsOf(value: string): SecretRuns {
  const hashes: number[] = [];
  const lengths = new Set<number>();
  const { plain, encoded } = runSpellings(value);
  for (const spelling of [...plain, ...encoded]) {
    if (spelling.length < MIN_SECRET_LENGTH) continue;
    const run = Math.min(encoded.has(spelling) && !plain.has(spelling) ? SHARED_ENCODED_RUN : SHARED_RUN, spelling.length);
    lengths.add(run);
    for (let at = 0; at + run <= spelling.length; at++) hashes.push(runHash(spelling, at, run));
  }
  return { hashes: Uint32Array.from(hashes), lengths: [...lengths] };
}

/** Only letters and digits: what is left of an echo once the separators, escapes and padding around it are gone. */
const NOT_ALPHANUMERIC = /[^\p{L}\p{N}]+/gu;
const ASCII_NOT_ALPHANUMERIC = /[^A-Za-z0-9]+/g;

/**
 * A secret's spellings whose runs are looked for, folded: as is and reversed, each also with only its letters and
 * digits; its UTF-8 bytes in hex, and in base64 at each of the three byte alignments it may have inside a longer
 * encoded text (only the characters that encode its bytes alone), letters and digits only: base64url differs from
 * base64 only in what that leaves out.
 */
/** A secret's spellings whose runs are looked for: as written (folded, reversed, letters and digits), and encoded. */
function runSpellings(value: string): { plain: Set<string>; encoded: Set<string> } {
  const bytes = Buffer.from(value, 'utf8');
  // ASCII (most passwords): one byte a character, and letters and digits are the ASCII ones.
  const lettersAndDigits = (text: string): string => text.replace(bytes.length === value.length ? ASCII_NOT_ALPHANUMERIC : NOT_ALPHANUMERIC, '');
  const plain = fold(value);
  const reversed = [...plain].reverse().join('');
  const spellings = new Set([plain, reversed, lettersAndDigits(plain), lettersAndDigits(reversed)]);
  const encoded = new Set([bytes.toString('hex')]);
  const shifted = Buffer.alloc(bytes.length + 2);
  for (let offset = 0; offset < 3; offset++) {
    bytes.copy(shifted, offset);
    // Character i of base64 holds bits 6i to 6i+5: only those inside the secret's bytes are its own.
    const base64 = shifted.toString('base64', 0, offset + bytes.length);
    encoded.add(base64.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)).toLowerCase().replace(/[+/]/g, ''));
  }
  return { plain: spellings, encoded };
}

/** A 32-bit FNV-1a hash of `length` characters of the text at `at`, letters folded, and of the length; never 0. */
function runHash(text: string, at: number, length: number): number {
  let hash = Math.imul(0x811c9dc5 ^ length, 0x01000193);
  for (let index = at; index < at + length; index++) hash = Math.imul(hash ^ foldedAt(text, index), 0x01000193);
  return hash >>> 0 || 1;
}

/**
 * The runs of every secret kept, as an open-addressing table of their hashes (0: empty), at most half full: one
 * pass, where sorting 1.4 million hashes (8,000 passwords) held the loop for a few hundred milliseconds.
 */
function buildRunIndex(): RunIndex {
  pruneRunSources();
  let count = 0;
  for (const [source, known] of runSources) {
    const runs = known ?? runsOf(source);
    runSources.set(source, runs);
    count += runs.hashes.length;
  }
  const index: RunIndex = { table: new Uint32Array(2 ** Math.ceil(Math.log2(2 * count + 2))), lengths: [], count: 0 };
  for (const runs of runSources.values()) if (runs !== undefined) insertRuns(index, runs);
  return index;
}

function insertRuns(index: RunIndex, runs: SecretRuns): void {
  const { table } = index;
  const mask = table.length - 1;
  for (const hash of runs.hashes) {
    let slot = hash & mask;
    while (table[slot] !== 0 && table[slot] !== hash) slot = (slot + 1) & mask;
    if (table[slot] === 0) index.count++;
    table[slot] = hash;
  }
  for (const length of runs.lengths) if (!index.lengths.includes(length)) index.lengths.push(length);
}

function holdsHash(table: Uint32Array, hash: number): boolean {
  const mask = table.length - 1;
  for (let slot = hash & mask; table[slot] !== 0; slot = (slot + 1) & mask) if (table[slot] === hash) return true;
  return false;
}

/**
 * Whether the text shares SHARED_RUN characters in a row (a 4-character secret: all four) with a registered
 * secret in one of its run spellings, as it is or with only its letters and digits, letters in any case. A hash
 * that two runs share may withhold a text that holds neither: it never shows one that does. Costs the text's
 * length in lookups; a caller bounds the text first.
 */
export function sharesSecretRun(text: string): boolean {
  if (runSources.size === 0) return false;
  const { table, lengths } = currentRunIndex();
  for (const variant of [text, text.replace(NOT_ALPHANUMERIC, '')]) {
    for (const run of lengths) {
      for (let at = 0; at + run <= variant.length; at++) if (holdsHash(table, runHash(variant, at, run))) return true;
    }
  }
  return false;
}
