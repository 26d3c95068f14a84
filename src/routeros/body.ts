/**
 * Turns the bytes of a RouterOS reply into JSON without trusting them.
 * Real routers emit strings in whatever code page they were typed in (Winbox: cp125x) and can carry raw
 * control characters inside JSON strings (real-formats §7.6), so a strict `JSON.parse` of the body is not enough.
 */
import { isUtf8 } from 'node:buffer';
import { RouterOsError } from './errors.js';
import { decodeCp1252 } from '../util/cp1252.js';
import { shownMediaText } from './shown-text.js';
import { markDecoding, type ReplyDecoding } from './reply-text.js';
import { finish, finishInSlices, Slicer, type Steps } from '../util/slices.js';

/**
 * Valid UTF-8 stays as it is; anything else is read as windows-1252, the code page Winbox types in. A reply read
 * in parts is decoded part by part (a character split between parts is joined), never copied into one buffer
 * first: at 100 routers × 1,000 peers that copy was ~40 MB of short-lived buffers per cycle outside the JS heap.
 *
 * Validation (`isUtf8`) and decoding (`toString`) are separate steps rather than one strict TextDecoder: on
 * Node 20 the strict decoder goes through ICU, which mallocs a UTF-16 copy of every part (twice its bytes: up to
 * 128 KiB for a 64 KiB part) outside the JS heap. Freed again at once, those copies taught glibc to keep every
 * allocation up to their size in its main heap, which then fragmented by ~30 MB at 100 × 1,000 (issue 13).
 */
export function decodeText(bytes: Uint8Array | readonly Uint8Array[]): string {
  return decodedText(partsOf(bytes)).text;
}

/** decodeText, and how the text was read (reply-text.ts). */
function decodedText(parts: readonly Uint8Array[]): Decoded<string> {
  if (parts.length === 1) return wholeText(parts[0] as Uint8Array);
  const length = totalLength(parts);
  if (length <= JOINED_TEXT_BYTES) return wholeText(joinedInScratch(parts, length));
  const { text: pieces, decoding } = finish(decodePieces(parts));
  return { text: pieces.join(''), decoding };
}

/** Text and how it was read from the bytes. */
interface Decoded<T> {
  text: T;
  decoding: ReplyDecoding;
}

/** decodeText a part at a time (decodePieces), joined: what replies of more than JOINED_TEXT_BYTES take. */
export function decodeTextByParts(parts: readonly Uint8Array[]): string {
  return finish(decodePieces(parts)).text.join('');
}

/**
 * Replies of up to this many bytes in several parts are copied into one buffer kept for it and decoded in one go:
 * decoded a part at a time, each part's text and then their join were two copies of the text in the JS heap (a
 * peer list of 1,000 peers, ~340 KB, comes in ~20 parts), ~70 MB a cycle at 100 routers × 1,000 peers where one
 * copy is enough. At most this much is kept: larger replies (parsed in slices from SLICED_FROM_BYTES) go by parts.
 */
const JOINED_TEXT_BYTES = 512 * 1024;
let joinScratch = Buffer.alloc(0);

/** The parts laid end to end in the kept buffer: a view, valid until the next call. */
function joinedInScratch(parts: readonly Uint8Array[], length: number): Buffer {
  if (joinScratch.length < length) joinScratch = Buffer.allocUnsafeSlow(Math.min(JOINED_TEXT_BYTES, Math.max(length, 2 * joinScratch.length, 64 * 1024)));
  let at = 0;
  for (const part of parts) {
    joinScratch.set(part, at);
    at += part.length;
  }
  return joinScratch.subarray(0, length);
}

/** decodeText of bytes in one piece: UTF-8 (a leading byte order mark dropped) when they are, else windows-1252. */
function wholeText(bytes: Uint8Array): Decoded<string> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (!isUtf8(view)) return { text: decodeCp1252(view), decoding: 'cp1252' };
  const text = view.toString('utf8');
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, decoding: 'utf8' };
}

/**
 * decodeText as steps, one part of the reply (64 KiB as read) at a time, and as pieces, one string per part:
 * joined (or added up part by part), 28 MB of text made one string that V8 then copied whole, in one go, the
 * first time it was read. windows-1252 maps byte by byte, so its parts decode alone.
 */
function* decodePieces(parts: readonly Uint8Array[]): Steps<Decoded<string[]>> {
  const utf8 = yield* utf8Parts(parts);
  if (utf8 !== undefined) return { text: utf8, decoding: 'utf8' };
  const pieces: string[] = [];
  for (const part of parts) {
    yield;
    pieces.push(decodeCp1252(part));
  }
  return { text: pieces, decoding: 'cp1252' };
}

/** A reply's bytes as the parts they came in (one part when read whole). */
function partsOf(bytes: Uint8Array | readonly Uint8Array[]): readonly Uint8Array[] {
  return Array.isArray(bytes) ? (bytes as readonly Uint8Array[]) : [bytes as Uint8Array];
}

/** A byte that starts a UTF-8 sequence of more than one byte: the sequence's length (4 for the invalid 0xF8+). */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** Where a part's last character starts when the part ends before that character does; else the part's length. */
function completeEnd(part: Uint8Array, from: number): number {
  for (let back = 1; back <= 3 && part.length - back >= from; back++) {
    const byte = part[part.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    return byte >= 0xc0 && sequenceLength(byte) > back ? part.length - back : part.length;
  }
  return part.length;
}

/** The parts as UTF-8 text in pieces (a leading byte order mark dropped, as TextDecoder does); undefined when not UTF-8. */
function* utf8Parts(parts: readonly Uint8Array[]): Steps<string[] | undefined> {
  const pieces: string[] = [];
  // The first bytes of a character that the previous part ended in the middle of.
  let carry: Buffer | undefined;
  for (const part of parts) {
    yield;
    let start = 0;
    if (carry !== undefined) {
      const needed = sequenceLength(carry[0] as number) - carry.length;
      if (needed > part.length) {
        carry = Buffer.concat([carry, part]);
        continue;
      }
      const joined = Buffer.concat([carry, part.subarray(0, needed)]);
      if (!isUtf8(joined)) return undefined;
      pieces.push(joined.toString('utf8'));
      start = needed;
      carry = undefined;
    }
    const end = completeEnd(part, start);
    // One Buffer view of the part's whole characters, both checked and decoded.
    const middle = Buffer.from(part.buffer, part.byteOffset + start, end - start);
    if (!isUtf8(middle)) return undefined;
    pieces.push(middle.toString('utf8'));
    if (end < part.length) carry = Buffer.from(part.subarray(end));
  }
  if (carry !== undefined) return undefined;
  const first = pieces.findIndex((piece) => piece !== '');
  if (first >= 0 && pieces[first]?.charCodeAt(0) === 0xfeff) pieces[first] = (pieces[first] as string).slice(1);
  return pieces;
}

/**
 * Raw control characters inside a reply's strings beyond this many make it not data. Real routers send a few (a
 * comment typed with a tab or a line break); each one escaped costs a piece of the repaired text, so a hostile
 * reply of millions (30 MB of them took 8 s) would cost the event loop seconds and the heap gigabytes.
 */
export const MAX_RAW_CONTROLS = 100_000;

/**
 * Escapes raw C0 control characters that stand inside JSON strings (invalid JSON, but sent by real routers); the
 * text itself when there is none, undefined when there are more than MAX_RAW_CONTROLS.
 */
function escapeControlsInStrings(text: string): string | undefined {
  return escapeControls(text, MAX_RAW_CONTROLS)?.text;
}

/**
 * Where a scan of JSON text stands with respect to strings: inside one, and just after a backslash there. Both the
 * repair (escapeControls) and the count for an error's offsets (controlsFrom) read the text through it, so they
 * can never disagree on which characters a repair escapes.
 */
interface StringScan {
  inString: boolean;
  escaped: boolean;
}

/** Moves `scan` past the character `code`; true when it is a raw control character inside a string. */
function isRawControl(scan: StringScan, code: number): boolean {
  if (!scan.inString) {
    if (code === 0x22) scan.inString = true;
    return false;
  }
  if (scan.escaped) scan.escaped = false;
  else if (code === 0x5c) scan.escaped = true;
  else if (code === 0x22) scan.inString = false;
  else return code < 0x20;
  return false;
}

/** escapeControlsInStrings with a budget: the text and how many it escaped, undefined beyond `budget`. */
function escapeControls(text: string, budget: number): { text: string; controls: number } | undefined {
  const scan: StringScan = { inString: false, escaped: false };
  let out = '';
  let last = 0;
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isRawControl(scan, code)) continue;
    if (++controls > budget) return undefined;
    out += text.slice(last, i) + '\\u' + code.toString(16).padStart(4, '0');
    last = i + 1;
  }
  return { text: controls === 0 ? text : out + text.slice(last), controls };
}

/**
 * Replies of at least this many bytes are checked before they are parsed (`notRouterShape`). A smaller
 * one costs little whatever it holds: 64 KiB of empty objects parse in ~12 ms into ~1 MB.
 */
export const VALUE_CHECK_FROM = 64 * 1024;

/**
 * The fewest bytes per value a reply may average. RouterOS writes every value as a string under a named key:
 * 7.4 bytes per value in the densest real reply (a ping's), ~13 in a peer list; a list whose records held only
 * two short keys with empty values would come to ~3.3. JSON.parse's cost follows the values, not the bytes: 30 MB
 * of `[{},{},…]` took 5.6 s and 584 MB of heap (10 million objects) and 30 MB of `[[[…]]]` 5 s, where 30 MB of peer
 * records take 0.15 s and 31 MB. At 3, the worst shapes still allowed cost up to ~0.7 s and ~130 MB for 30 MB.
 */
export const MIN_BYTES_PER_VALUE = 3;

/**
 * The reply's first byte after any whitespace (and a byte order mark); undefined when there is none. A part at a
 * time: 31 MB of leading spaces took one task of 0.13–0.32 s.
 */
function* firstSignificantByte(parts: readonly Uint8Array[]): Steps<number | undefined> {
  for (const part of parts) {
    yield;
    for (let i = 0; i < part.length; i++) {
      const byte = part[i] as number;
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0xef && byte !== 0xbb && byte !== 0xbf) return byte;
    }
  }
  return undefined;
}

/** Deeper than this, a reply is not RouterOS's: it writes a list of records of strings (3 levels with the strings). */
export const MAX_DEPTH = 16;

/**
 * More members than this in one object, or elements in a list inside the reply, and it is not RouterOS's: a record
 * has tens of fields. (The reply's own list, of records, is bounded by the value budget and parsed in slices.) One
 * object of 3 million keys passed the value budget and took 6–10 s to parse in one piece.
 */
export const MAX_MEMBERS = 10_000;

/**
 * More records than this in the reply's own list, and it is not a menu this exporter reads: the densest real records
 * (an interface's name and flags) take ~60 bytes, so the 32 MiB cap holds ~560,000 of them. Every record is an element
 * of one JavaScript array, and an array is made, grown and checked in one go: 11 million empty strings within the
 * value budget grew one for 0.4 s at a time.
 */
export const MAX_RECORDS = 1_000_000;

/**
 * A record of more bytes than this, and it is not RouterOS's: its longest fields (a comment, a peer's allowed
 * addresses) take kilobytes. A record is parsed in one piece, so its size bounds how long one slice of a large
 * reply's parse can hold the event loop (one record of 30 MB took 0.25 s).
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * A record of more JSON values than this (counted as MIN_BYTES_PER_VALUE counts them), and it is not RouterOS's:
 * a record is tens of named strings. A record is parsed in one piece, and its bytes alone do not bound that: one
 * record of 1 MB of `[{},{},…]` lists held the event loop for 0.17–0.19 s.
 */
export const MAX_RECORD_VALUES = 10_000;

/** Why a reply's shape is not one RouterOS writes. */
/**
 * A member name of more bytes than this, and the reply is not RouterOS's: its property names are words of tens of
 * characters. JSON.parse interns every name, and V8 hashes a string of more than 16,383 characters by its length
 * alone: 30 records of 60 names of 16,390 characters that differ only at the end, compared in full with every name
 * before them, took 3.2 s of CPU to parse (0.43 s when they differ at the start; found by review).
 */
export const MAX_KEY_BYTES = 1024;

type NotRouterShape = 'values' | 'depth' | 'members' | 'records' | 'record' | 'record values' | 'key';

/**
 * Whether the reply holds more values than MIN_BYTES_PER_VALUE allows, counting outside strings the bytes that
 * start one: `{`, `[`, `,` and `:` (a container, an element after the first, a member); or nests deeper than
 * MAX_DEPTH; or holds an object or an inner list of more than MAX_MEMBERS members; or, for a list (every menu's
 * reply), lists more than MAX_RECORDS records or one of more than MAX_RECORD_BYTES or MAX_RECORD_VALUES. Counted on the bytes as
 * read, before decoding: those, `"` and `\` are ASCII, which neither UTF-8's sequences nor windows-1252 use
 * for anything else. Stops as soon as one is found, so a flood costs a fraction of a pass; a real reply
 * costs one pass (~1 ns a byte), a part at a time.
 */
function* notRouterShape(parts: readonly Uint8Array[], length: number): Steps<NotRouterShape | undefined> {
  let budget = Math.floor(length / MIN_BYTES_PER_VALUE);
  let inString = false;
  // Commas seen in each open container, by depth (the reply's own container at 1).
  const commas = new Array<number>(MAX_DEPTH + 1).fill(0);
  let depth = 0;
  // Whether the reply is a list: its own elements are records, bounded by the budget alone.
  let list = false;
  // Bytes at the start of a part that an escape at the end of the one before covers.
  let skip = 0;
  // Where the list's current record starts (after its `[` or `,`), counted over the whole reply, and the bytes of the
  // parts before this one. A record's size leaves out the comma or bracket that ends it.
  let recordStart = 0;
  let before = 0;
  // Values in the list's current record.
  let recordValues = 0;
  // Where the last string started (its opening quote) and its length once closed, over the whole reply: a `:`
  // after it makes it a member's name.
  let stringStart = 0;
  let stringBytes = 0;
  for (const part of parts) {
    yield;
    const end = part.length;
    let i = skip;
    while (i < end) {
      if (inString) {
        // A string's own tight loop: most of a reply's bytes are inside strings.
        while (i < end) {
          const byte = part[i++] as number;
          if (byte === 0x22) {
            inString = false;
            stringBytes = before + i - 1 - stringStart;
            break;
          }
          if (byte === 0x5c) i++; // the escaped byte cannot end the string
        }
        continue;
      }
      const byte = part[i++] as number;
      if (byte === 0x22) {
        inString = true;
        stringStart = before + i;
      } else if (byte === 0x7b || byte === 0x5b) {
        if (--budget < 0) return 'values';
        if (++depth > MAX_DEPTH) return 'depth';
        if (depth === 1) {
          list = byte === 0x5b;
          recordStart = before + i;
        } else if (list && ++recordValues > MAX_RECORD_VALUES) {
          return 'record values';
        }
        commas[depth] = 0;
      } else if (byte === 0x5d || byte === 0x7d) {
        if (depth === 1 && list && before + i - 1 - recordStart > MAX_RECORD_BYTES) return 'record';
        if (depth > 0) depth--;
      } else if (byte === 0x2c) {
        if (--budget < 0) return 'values';
        if (depth === 1 && list) {
          if (before + i - 1 - recordStart > MAX_RECORD_BYTES) return 'record';
          recordStart = before + i;
          recordValues = 0;
          if (++(commas[1] as number) >= MAX_RECORDS) return 'records';
        } else if (depth > 0 && ++(commas[depth] as number) >= MAX_MEMBERS) {
          return 'members';
        } else if (list && ++recordValues > MAX_RECORD_VALUES) {
          return 'record values';
        }
      } else if (byte === 0x3a) {
        if (--budget < 0) return 'values';
        if (stringBytes > MAX_KEY_BYTES) return 'key';
        if (list && ++recordValues > MAX_RECORD_VALUES) return 'record values';
      }
    }
    skip = i - end;
    before += end;
  }
  // A reply cut off inside a record of that size.
  return list && depth >= 1 && length - recordStart > MAX_RECORD_BYTES ? 'record' : undefined;
}

/**
 * Parses a reply body as JSON, repairing control characters once; a body that is still not JSON is a `parse`
 * error. Parsed once more only when the repair changed something: a reply that fails for another reason (a
 * hostile 30 MB of nesting takes seconds to fail) costs one parse. A reply of more values than RouterOS writes
 * is not data and is not parsed at all: its parse would hold the event loop for seconds and the heap for
 * hundreds of MB, for every router the exporter watches.
 */
export function parseJsonBody(bytes: Uint8Array | readonly Uint8Array[], request: string): unknown {
  const parts = partsOf(bytes);
  finish(refuseNotRouterShape(parts, request));
  const { text, decoding } = decodedText(parts);
  const value = parseText(text, request);
  return escapesBeyondAscii([text]) ? value : markDecoding(value, decoding);
}

/**
 * Whether JSON text writes a character beyond ASCII as a `\uXXXX` escape: RouterOS sends a name's bytes as they are,
 * so such a reply was written by something else (a proxy that re-encoded it), and its reading does not tell the
 * router's bytes: it is not marked (reply-text.ts). An escape of an ASCII character (`\u0041`, a control's
 * `\u001b`) tells nothing of bytes and does not count; an escaped backslash before a `u` does (a reply left unmarked
 * only tells less). Checked across the pieces' joins.
 */
function escapesBeyondAscii(pieces: readonly string[]): boolean {
  const escape = /\\u(?!00[0-7])[0-9A-Fa-f]{4}/;
  return pieces.some((piece, index) => {
    if (piece.includes('\\u') && escape.test(piece)) return true;
    const next = pieces[index + 1];
    return next !== undefined && escape.test(piece.slice(-5) + next.slice(0, 5));
  });
}

/** Replies of at least this many bytes are parsed in slices (parseJsonBodyInSlices); smaller ones at once. */
export const SLICED_FROM_BYTES = 512 * 1024;

/** About how many characters of a list one slice parses: ~1 ms of JSON.parse. */
export const SLICE_CHARS = 128 * 1024;

/**
 * parseJsonBody for replies that may be large, giving the event loop back between slices (`slicer`, which may
 * carry the request's signal): the bytes are checked and decoded a part at a time, and a list (every menu's
 * reply) is parsed a slice of its elements at a time, repaired slice by slice where needed. A list that fails is
 * worded from the slice where it fails, as the whole parse words it; a reply of this size that is not a list is
 * refused unparsed (refuseNotRouterShape), by both parses.
 */
export async function parseJsonBodyInSlices(bytes: Uint8Array | readonly Uint8Array[], request: string, slicer: Slicer = new Slicer()): Promise<unknown> {
  const parts = partsOf(bytes);
  if (totalLength(parts) < SLICED_FROM_BYTES) return parseJsonBody(parts, request);
  await finishInSlices(refuseNotRouterShape(parts, request), slicer);
  const { text: pieces, decoding } = await finishInSlices(decodePieces(parts), slicer);
  const list = await finishInSlices(listInSlices(pieces), slicer);
  const marked = <T>(value: T): T => (escapesBeyondAscii(pieces) ? value : markDecoding(value, decoding));
  if (Array.isArray(list)) return marked(list);
  const error = list === undefined ? undefined : await finishInSlices(listFailureError(pieces, list, request), slicer);
  if (error !== undefined) throw error;
  return marked(parseText(pieces.join(''), request));
}

/** Bytes of a reply's parts, or characters of its decoded pieces. */
function totalLength(parts: readonly { readonly length: number }[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
}

/**
 * Refuses a reply of a shape RouterOS never writes (notRouterShape), unparsed; and from SLICED_FROM_BYTES, a reply
 * that is not a list: RouterOS answers that much only as a list of records (a singleton menu's object is a few
 * hundred bytes), and anything else would be parsed whole, holding the event loop (a 32 MB object, string or
 * even a page of text that fails at its first character: 0.1–0.6 s).
 */
function* refuseNotRouterShape(parts: readonly Uint8Array[], request: string): Steps<void> {
  const length = totalLength(parts);
  if (length < VALUE_CHECK_FROM) return;
  const first = yield* firstSignificantByte(parts);
  if (length >= SLICED_FROM_BYTES && first !== 0x5b) {
    const hint =
      first === 0x3c
        ? HTML_HINT
        : first === undefined
          ? EMPTY_HINT
          : `the router's reply of ${length} bytes is not a list, and RouterOS answers that much only as a list of records; it was not parsed: check that nothing (a proxy) alters replies on the way`;
    throw new RouterOsError('ROS_ERR_PARSE', `${request}: ${hint}`, { request });
  }
  // Only a container can hold many values; anything else (an HTML page) fails the parse at once, with its hint.
  if (first !== 0x5b && first !== 0x7b) return;
  const shape = yield* notRouterShape(parts, length);
  if (shape === undefined) return;
  const what =
    shape === 'values'
      ? `holds more JSON values than RouterOS writes (more than one per ${MIN_BYTES_PER_VALUE} of its ${length} bytes)`
      : shape === 'depth'
        ? `nests deeper than RouterOS writes (more than ${MAX_DEPTH} levels)`
        : shape === 'members'
          ? `holds an object or an inner list of more than ${MAX_MEMBERS} members (RouterOS writes records of tens of fields)`
          : shape === 'records'
            ? `lists more than ${MAX_RECORDS} records (no menu this exporter reads holds that many)`
            : shape === 'record'
              ? `holds a record of more than ${MAX_RECORD_BYTES} bytes (RouterOS writes records of kilobytes at most)`
              : shape === 'key'
                ? `names a property with more than ${MAX_KEY_BYTES} bytes (RouterOS's property names are words)`
                : `holds a record of more than ${MAX_RECORD_VALUES} JSON values (RouterOS writes records of tens of fields)`;
  throw new RouterOsError('ROS_ERR_PARSE', `${request}: the router's reply ${what} and was not parsed; check that nothing (a proxy) alters replies on the way`, { request });
}

/** JSON's whitespace (RFC 8259): space, tab, line feed, carriage return. */
function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Where a slice starts: a piece, and a character in it. */
interface Mark {
  piece: number;
  at: number;
}

/** The text from one mark to another, over the pieces between. */
function textBetween(pieces: readonly string[], from: Mark, to: Mark): string {
  if (from.piece === to.piece) return (pieces[from.piece] as string).slice(from.at, to.at);
  let text = (pieces[from.piece] as string).slice(from.at);
  for (let piece = from.piece + 1; piece < to.piece; piece++) text += pieces[piece] as string;
  return text + (pieces[to.piece] as string).slice(0, to.at);
}

/**
 * Where a list's text stops being a valid list, found without parsing the whole text: the part that failed (from
 * one mark to another), what stands before it in the whole text (the list opened, `[`; an element and its comma,
 * `[0,`; the whole list, `[0]`; nothing) and after it (the comma or bracket that ended a slice).
 */
interface ListFailure {
  readonly from: Mark;
  readonly to: Mark;
  readonly before: '' | '[' | '[0,' | '[0]';
  readonly after: '' | ',' | ']';
  /** Raw control characters in strings before `from`, each repaired into six characters. */
  readonly controlsBefore: number;
}

/**
 * How far past a slice's size a record boundary is looked for by wholeSlice: a record is kilobytes, so the next
 * one ends well within this; past it (records of hundreds of KB, `}, {` between them) the slice is scanned.
 */
const BOUNDARY_WINDOW = 64 * 1024;

/** Guesses of a slice (wholeSlice) that may fail to parse in one reply before the rest is only scanned. */
export const MAX_WRONG_GUESSES = 4;

/** The mark `count` characters past `from`, over the pieces; undefined when the text ends before. */
function markAfter(pieces: readonly string[], from: Mark, count: number): Mark | undefined {
  let rest = count;
  for (let piece = from.piece, at = from.at; piece < pieces.length; piece++, at = 0) {
    const available = (pieces[piece] as string).length - at;
    if (rest < available) return { piece, at: at + rest };
    rest -= available;
  }
  return undefined;
}

/**
 * A slice cut without scanning it: from `from` (just inside the list, or just past a comma between its elements)
 * to the first `},{` at least a slice's size on (the comma's mark), within BOUNDARY_WINDOW. Where the text ends
 * sooner, the last slice: to the `]` that ends the text, whitespace after it allowed (`end` set). Only a guess
 * (`},{` may stand in a string, or between records nested deeper): the caller takes it only if it parses.
 */
function wholeSlice(pieces: readonly string[], from: Mark): { to: Mark; end: boolean } | undefined {
  const target = markAfter(pieces, from, SLICE_CHARS);
  if (target === undefined) {
    // Less than a slice is left: the list's `]` is its last character but whitespace.
    for (let piece = pieces.length - 1; piece >= from.piece; piece--) {
      const text = pieces[piece] as string;
      const first = piece === from.piece ? from.at : 0;
      let at = text.length - 1;
      while (at >= first && isWhitespace(text.charCodeAt(at))) at--;
      if (at < first) continue;
      return text.charCodeAt(at) === 0x5d ? { to: { piece, at }, end: true } : undefined;
    }
    return undefined;
  }
  let window = BOUNDARY_WINDOW;
  for (let piece = target.piece, at = target.at; piece < pieces.length && window > 0; piece++, at = 0) {
    const text = pieces[piece] as string;
    // Within the window only: a piece may be the whole reply, and a search to its end for every slice is quadratic.
    const found = text.slice(at, at + window + 2).indexOf('},{');
    if (found >= 0) return found < window ? { to: { piece, at: at + found + 1 }, end: false } : undefined;
    window -= text.length - at;
  }
  return undefined;
}

/**
 * A JSON list parsed a slice of its elements at a time: the text (in pieces, never joined) is cut at commas between
 * its elements (outside strings, one level deep) and each slice is parsed as a list of its own. A list is valid
 * JSON exactly when every slice is a valid, non-empty list, and its value is then the slices' elements in order:
 * JSON.parse's own result. Raw control characters in strings (real routers send them) are repaired in the slice
 * that holds them, as the whole text's repair would (slices start outside strings), within the same bound.
 * As soon as the text is not such a list, where it failed (`ListFailure`), for wording the error as the whole
 * text's parse would; undefined for text without a list (the caller parses it whole).
 *
 * A slice is first cut where a record ends (wholeSlice) and parsed as it is, or repaired (appendSlice): RouterOS
 * writes `},{` between records, and a slice that parses as a list was cut between elements, whatever stood in its
 * strings (a cut inside a string leaves the slice ending in one, repaired or not). Only a slice that does not (a
 * `},{` in a comment, records nested deeper, not JSON) is scanned character by character, as every slice once
 * was: the scan cost more CPU than the parse (~40 % of a large reply's). After MAX_WRONG_GUESSES such slices the
 * rest of the reply is only scanned.
 */
function* listInSlices(pieces: readonly string[]): Steps<unknown[] | ListFailure | undefined> {
  const values: unknown[] = [];
  const repairs = { controls: 0 };
  let opened = false;
  let closed = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let from: Mark = { piece: 0, at: 0 };
  // What stands before the current slice in the whole text: the list's opening, or an element and its comma.
  let before: ListFailure['before'] = '[';
  // Characters since the slice's start, and since the last pause.
  let length = 0;
  let scanned = 0;
  // Whether the slice holds nothing but whitespace so far: `[ ]` is the empty list, `[a, ]` is not JSON.
  let blank = true;
  // Whether a slice starts here, to be tried whole before it is scanned.
  let sliceStart = false;
  let guessing = true;
  let wrongGuesses = 0;
  const failure = (to: Mark, after: ListFailure['after'], context: ListFailure['before'] = before): ListFailure => ({
    from,
    to,
    before: context,
    after,
    controlsBefore: repairs.controls,
  });
  let piece = 0;
  let at = 0;
  while (piece < pieces.length) {
    const text = pieces[piece] as string;
    if (at >= text.length) {
      piece++;
      at = 0;
      continue;
    }
    if (sliceStart) {
      sliceStart = false;
      const guess = guessing ? wholeSlice(pieces, from) : undefined;
      if (guess !== undefined) {
        // As long as a slice's parse: a pause before it.
        scanned = 0;
        yield;
        if (appendSlice(values, textBetween(pieces, from, guess.to), repairs)) {
          from = { piece: guess.to.piece, at: guess.to.at + 1 };
          piece = from.piece;
          at = from.at;
          if (guess.end) {
            closed = true;
            depth = 0;
          } else {
            before = '[0,';
            length = 0;
            blank = true;
            sliceStart = true;
          }
          continue;
        }
        // A guess that does not parse costs a slice's parse: a reply shaped so that none does (`},{` in every
        // comment) is scanned without them after a few.
        if (++wrongGuesses >= MAX_WRONG_GUESSES) guessing = false;
      }
    }
    // A pause possible every slice's worth of characters, whatever they are (31 MB of whitespace around the
    // list took one task of 0.1–0.2 s).
    if (++scanned >= SLICE_CHARS) {
      scanned = 0;
      yield;
    }
    const code = text.charCodeAt(at);
    length++;
    if (inString) {
      if (escaped) escaped = false;
      else if (code === 0x5c) escaped = true;
      else if (code === 0x22) inString = false;
    } else if (closed || !opened) {
      // Only whitespace before the list and after it.
      if (code === 0x5b && !opened) {
        opened = true;
        depth = 1;
        from = { piece, at: at + 1 };
        length = 0;
        sliceStart = true;
      } else if (!isWhitespace(code)) {
        // JSON.parse stops at this character whatever whitespace stands before it: the part is the character
        // alone, after nothing (no list yet) or after a whole list.
        from = { piece, at };
        return failure({ piece, at: at + 1 }, '', closed ? '[0]' : '');
      }
    } else if (code === 0x22) {
      inString = true;
      blank = false;
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      blank = false;
    } else if (code === 0x5d || code === 0x7d) {
      // `[ ]`, however much whitespace: the empty list (its slice parses to no element, which a slice must not).
      const empty = before === '[' && blank;
      blank = false;
      if (--depth === 0) {
        if (code !== 0x5d) return failure({ piece, at: at + 1 }, '');
        if (!empty && !appendSlice(values, textBetween(pieces, from, { piece, at }), repairs)) return failure({ piece, at }, ']');
        closed = true;
        from = { piece, at: at + 1 };
      }
    } else if (code === 0x2c && depth === 1 && length >= SLICE_CHARS) {
      if (!appendSlice(values, textBetween(pieces, from, { piece, at }), repairs)) return failure({ piece, at }, ',');
      from = { piece, at: at + 1 };
      before = '[0,';
      length = 0;
      blank = true;
      sliceStart = true;
    } else if (!isWhitespace(code)) {
      blank = false;
    }
    at++;
  }
  if (closed) return values;
  // Cut off: the text from the slice's start to its end.
  const last = pieces.length - 1;
  return opened ? failure({ piece: Math.max(0, last), at: (pieces[last] ?? '').length }, '') : undefined;
}

/** Raw control characters inside strings, counted as the whole text's repair counts them, from `from` (outside a string) to the end; stops past `limit`. */
function* controlsFrom(pieces: readonly string[], from: Mark, limit: number): Steps<number> {
  const scan: StringScan = { inString: false, escaped: false };
  let controls = 0;
  for (let piece = from.piece; piece < pieces.length; piece++) {
    yield;
    const text = pieces[piece] as string;
    for (let at = piece === from.piece ? from.at : 0; at < text.length; at++) {
      if (isRawControl(scan, text.charCodeAt(at)) && ++controls > limit) return controls;
    }
  }
  return controls;
}

/** Characters before a mark in the whole text. */
function offsetOf(pieces: readonly string[], mark: Mark): number {
  let offset = mark.at;
  for (let piece = 0; piece < mark.piece; piece++) offset += (pieces[piece] as string).length;
  return offset;
}

/**
 * The error the whole text's parse gives (parseText), worded from the part where the list failed: that part is
 * parsed after what stands before it (`[0,` for an element before it), and where JSON.parse stops there is where
 * it stops in the whole text, which it would reach only after parsing everything before: 32 MB cut off at its end
 * held the event loop 0.4 s for that error's wording. Positions count the whole text as repaired (six characters
 * for each raw control character in a string), as the whole parse's do. Undefined where the part alone cannot
 * tell (the caller parses the text whole).
 */
function* listFailureError(pieces: readonly string[], failure: ListFailure, request: string): Steps<RouterOsError | undefined> {
  const controls = failure.controlsBefore + (yield* controlsFrom(pieces, failure.from, MAX_RAW_CONTROLS - failure.controlsBefore));
  if (controls > MAX_RAW_CONTROLS) return invalidJson(request, undefined);
  const part = escapeControls(textBetween(pieces, failure.from, failure.to), Number.POSITIVE_INFINITY)?.text ?? '';
  const probe = failure.before + part + failure.after;
  const parsed = parsedOrError(probe);
  if (!(parsed instanceof Error)) return undefined;
  const total = totalLength(pieces) + 5 * controls;
  const atEnd = failure.after === '' && failure.to.piece === pieces.length - 1 && failure.to.at === (pieces[failure.to.piece] as string).length;
  const position = positionIn(parsed);
  if (/end of (JSON|data)(?: input)?$/i.test(parsed.message) || (position !== undefined && position >= probe.length)) {
    return atEnd ? invalidJson(request, 'it ends before its JSON does') : undefined;
  }
  if (position === undefined) return invalidJson(request, 'a character JSON does not allow there');
  const shift = offsetOf(pieces, failure.from) + 5 * failure.controlsBefore - failure.before.length;
  const where = position + shift;
  return invalidJson(request, where >= total ? 'it ends before its JSON does' : `at offset ${where} of ${total} characters`);
}

/** The text as JSON, or the Error JSON.parse threw (JSON.parse itself never makes an Error). */
function parsedOrError(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

/**
 * Parses a slice as the elements of a list and appends them, repairing raw control characters in its strings
 * when it does not parse as it is (counted in `repairs` against MAX_RAW_CONTROLS over the whole reply); false
 * when it is not a non-empty list's elements.
 */
function appendSlice(values: unknown[], slice: string, repairs: { controls: number }): boolean {
  let parsed = parsedOrError(`[${slice}]`);
  let controls = 0;
  // Repaired only if it holds a control character at all (found natively): the repair reads every character.
  if (parsed instanceof Error && CONTROL_CHARACTER.test(slice)) {
    const repaired = escapeControls(slice, MAX_RAW_CONTROLS - repairs.controls);
    if (repaired === undefined || repaired.controls === 0) return false;
    controls = repaired.controls;
    parsed = parsedOrError(`[${repaired.text}]`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return false;
  // Counted once the slice is data: a slice that fails is counted again where its failure is worded.
  repairs.controls += controls;
  for (const value of parsed) values.push(value);
  return true;
}

const HTML_HINT = 'the router answered HTML, not JSON (is the URL the router itself, without a path?)';
const EMPTY_HINT = 'the router answered an empty body';

/** The reply's text as JSON, repaired once if it has raw control characters in strings; else a `parse` error. */
function parseText(text: string, request: string): unknown {
  let failure: unknown;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    failure = error;
  }
  const repaired = escapeControlsInStrings(text);
  if (repaired !== undefined && repaired !== text) {
    try {
      return JSON.parse(repaired) as unknown;
    } catch (error) {
      failure = error;
    }
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith('<')) throw new RouterOsError('ROS_ERR_PARSE', `${request}: ${HTML_HINT}`, { request });
  if (trimmed.length === 0) throw new RouterOsError('ROS_ERR_PARSE', `${request}: ${EMPTY_HINT}`, { request });
  throw invalidJson(request, repaired === undefined ? undefined : whereInvalid(failure, repaired));
}

/** A reply that is not JSON: `where` it fails, or (undefined) one of too many raw control characters. */
function invalidJson(request: string, where: string | undefined): RouterOsError {
  const hint =
    where === undefined
      ? `the router's reply has more than ${MAX_RAW_CONTROLS} raw control characters in its strings, which no router sends; check that nothing (a proxy) alters replies on the way`
      : `the router's reply is not valid JSON (${where}); check that nothing (a proxy) alters replies on the way, and report the RouterOS version if it persists`;
  return new RouterOsError('ROS_ERR_PARSE', `${request}: ${hint}`, { request });
}

/**
 * Where JSON.parse gave up, never in its own words: V8 quotes the text around the fault (`..."password":Hunter2-Ve"...`),
 * and a fragment of a password a router or proxy echoed is no whole value the redaction could recognise. Only
 * the position, a number, is taken from the message.
 */
function whereInvalid(failure: unknown, text: string): string {
  const message = failure instanceof Error ? failure.message : '';
  const position = positionIn(failure);
  if (/end of (JSON|data)(?: input)?$/i.test(message) || (position !== undefined && position >= text.length)) return 'it ends before its JSON does';
  return position === undefined ? 'a character JSON does not allow there' : `at offset ${position} of ${text.length} characters`;
}

/**
 * The position a JSON.parse error names, if it names one: only from V8's own phrase at the end of its message
 * (`… at position 7`, `… at position 7 (line 1 column 8)`). A message that quotes the text around the fault
 * ends with `is not valid JSON`, and the quote is the router's: `position 1` in a reply is no position.
 */
function positionIn(failure: unknown): number | undefined {
  const found = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(failure instanceof Error ? failure.message : '')?.[1];
  return found === undefined ? undefined : Number(found);
}

/** Media types of JSON: `application/json`, and `+json` suffixes (RFC 6839). */
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Whether a reply's declared type allows reading it as JSON. An absent Content-Type is read (the header RouterOS
 * sends is not documented); a declared non-JSON type (a proxy's text/html or text/plain page) is not data.
 */
export function isJsonContentType(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  // Given more than once, every one must say JSON: a reply that also calls itself text/html is not believed (the
  // first alone was read, found by review).
  const values = Array.isArray(header) ? header : [header];
  return values.length > 0 && values.every((value) => JSON_TYPE.test(value.split(';')[0]?.trim() ?? ''));
}

/**
 * Whether a reply's Content-Encoding leaves its body as sent: none, or `identity`. The exporter asks for no coding
 * (no Accept-Encoding), so a `gzip` or `br` body comes from something that does not speak for the router, and its
 * bytes are not the JSON they would decode to: not data (a `[]` under `gzip` was read as "no peers", found by
 * review).
 */
export function isIdentityEncoding(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  const values = Array.isArray(header) ? header : [header];
  return values.every((value) => value.split(',').every((coding) => /^\s*(identity)?\s*$/i.test(coding)));
}

/** A reply in a content coding the exporter did not ask for, as a `parse` error. */
export function encodedReplyError(request: string, status: number, coding: string): RouterOsError {
  return new RouterOsError(
    'ROS_ERR_PARSE',
    `${request}: HTTP ${status} with Content-Encoding ${shownMediaText(coding)}, which the exporter did not ask for; the reply is not data and nothing was believed: check that nothing (a proxy, a captive portal) answers in the router's place`,
    { request, status },
  );
}

/** A reply that is not data (an empty body, a non-JSON type), as a `parse` error. */
export function notDataError(request: string, status: number, contentType: string | undefined, empty: boolean): RouterOsError {
  const what = empty
    ? `HTTP ${status} with an empty body where data was expected`
    : /html/i.test(contentType ?? '')
      ? `the router answered HTML (${shownMediaText(contentType ?? '')}), not JSON (is the URL the router itself, without a path?)`
      : `HTTP ${status} with Content-Type ${shownMediaText(contentType ?? '')}, not JSON`;
  return new RouterOsError(
    'ROS_ERR_PARSE',
    `${request}: ${what}; the reply is not data and nothing was believed: check that nothing (a proxy, a captive portal) answers in the router's place`,
    { request, status },
  );
}
