/**
 * JSON text in steps (util/slices.ts), as UTF-8 pieces: /health for a hub of 75,000 peers is 38 MB of indented
 * JSON, and `JSON.stringify` of it and the Buffer made from it held the event loop 0.7 s in one task. The text is
 * `JSON.stringify(value, null, indent)`'s exactly: lists and the objects that hold lists or objects are written
 * a member at a time, and everything else (a peer, a reason, a number) by `JSON.stringify` itself, re-indented
 * to where it stands.
 */
import type { Steps } from './slices.js';

/** Lists elements and object members written between two pauses. */
const ITEMS_PER_STEP = 256;
/** Characters gathered before they are encoded into a piece. */
const PIECE_CHARS = 64 * 1024;

/** Collects text and encodes it into UTF-8 pieces of about PIECE_CHARS characters. */
class Pieces {
  readonly #pieces: Buffer[] = [];
  #pending: string[] = [];
  #pendingChars = 0;

  add(text: string): void {
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars >= PIECE_CHARS) this.#flush();
  }

  end(): Buffer[] {
    this.#flush();
    return this.#pieces;
  }

  #flush(): void {
    if (this.#pendingChars === 0) return;
    this.#pieces.push(Buffer.from(this.#pending.join(''), 'utf8'));
    this.#pending = [];
    this.#pendingChars = 0;
  }
}

interface Format {
  /** Spaces per level; 0 writes compact JSON. */
  readonly indent: number;
  readonly pads: string[];
  /** The lists and objects being written part by part, to refuse a cycle as JSON.stringify does. */
  readonly open: Set<object>;
  /** Items written so far, for the pauses. */
  items: number;
}

function pad(format: Format, depth: number): string {
  if (format.indent === 0) return '';
  let text = format.pads[depth];
  if (text === undefined) {
    text = `\n${' '.repeat(format.indent * depth)}`;
    format.pads[depth] = text;
  }
  return text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isContainer(value: unknown): boolean {
  return Array.isArray(value) || isPlainObject(value);
}

/** What is written part by part: a list, or a plain object's members, each read once. */
type Walk = { readonly list: readonly unknown[] } | { readonly members: readonly (readonly [string, unknown])[] };

/**
 * How the value is written: part by part (every list, and a plain object holding a list or an object: a report's
 * `routers`, a router's `peers`), or as one JSON.stringify call (a flat object such as a peer, a string, a
 * number), given here as the value to stringify. A value with a toJSON is JSON.stringify's (a Date, an array
 * that has one).
 */
function walkOf(value: unknown): Walk | { readonly whole: unknown } {
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return { whole: value };
  if (Array.isArray(value)) return { list: value };
  if (!isPlainObject(value)) return { whole: value };
  // Read once: a getter is not asked again when the members are written (or stringified, for a flat object).
  const members = Object.keys(value).map((key) => [key, value[key]] as const);
  if (members.some(([, member]) => isContainer(member))) return { members };
  return { whole: Object.fromEntries(members) };
}

/** The value's text at `depth` as JSON.stringify writes it there; undefined where it writes nothing (undefined, a function). */
function nativeText(value: unknown, format: Format, depth: number): string | undefined {
  const text: string | undefined = JSON.stringify(value, null, format.indent);
  if (text === undefined || format.indent === 0 || depth === 0) return text;
  // JSON text holds a line break only between its tokens (a string's is escaped), so this re-indents it whole.
  return text.includes('\n') ? text.replaceAll('\n', pad(format, depth)) : text;
}

/**
 * Writes the value at `depth`; false where JSON.stringify writes nothing for it (undefined, a function, a symbol),
 * which a list writes as null and an object leaves out. `before` goes first when something is written.
 */
function* writeValue(value: unknown, format: Format, depth: number, out: Pieces, before: string): Steps<boolean> {
  const walk = walkOf(value);
  if ('whole' in walk) {
    const text = nativeText(walk.whole, format, depth);
    if (text === undefined) return false;
    out.add(before);
    out.add(text);
    return true;
  }
  if (format.open.has(value as object)) throw new TypeError('Converting circular structure to JSON');
  format.open.add(value as object);
  out.add(before);
  yield* 'list' in walk ? writeList(walk.list, format, depth, out) : writeMembers(walk.members, format, depth, out);
  format.open.delete(value as object);
  return true;
}

function* writeList(list: readonly unknown[], format: Format, depth: number, out: Pieces): Steps<void> {
  if (list.length === 0) {
    out.add('[]');
    return;
  }
  for (let index = 0; index < list.length; index++) {
    out.add(index === 0 ? '[' : ',');
    out.add(pad(format, depth + 1));
    if (!(yield* writeValue(list[index], format, depth + 1, out, ''))) out.add('null');
    if (++format.items % ITEMS_PER_STEP === 0) yield;
  }
  out.add(pad(format, depth));
  out.add(']');
}

function* writeMembers(members: readonly (readonly [string, unknown])[], format: Format, depth: number, out: Pieces): Steps<void> {
  let written = 0;
  const separator = format.indent === 0 ? ':' : ': ';
  for (const [key, member] of members) {
    const before = `${written === 0 ? '{' : ','}${pad(format, depth + 1)}${JSON.stringify(key)}${separator}`;
    if (yield* writeValue(member, format, depth + 1, out, before)) written++;
    if (++format.items % ITEMS_PER_STEP === 0) yield;
  }
  if (written === 0) {
    out.add('{}');
    return;
  }
  out.add(pad(format, depth));
  out.add('}');
}

/**
 * `JSON.stringify(value, null, indent)` (indent 0–10 spaces) as UTF-8 pieces, in steps that may pause every few
 * hundred list elements or object members. A value JSON.stringify writes nothing for (undefined) gives no pieces.
 * A `toJSON` is honoured as JSON.stringify does, but for the key it is handed, always "" here (a Date ignores
 * it). Lists and objects nest up to about 1,500 levels (JSON.stringify: about 4,000).
 */
export function* jsonSteps(value: unknown, indent = 0): Steps<Buffer[]> {
  if (!Number.isInteger(indent) || indent < 0 || indent > 10) throw new RangeError(`indent must be 0 to 10 spaces, not ${indent}`);
  const out = new Pieces();
  yield* writeValue(value, { indent, pads: [], open: new Set(), items: 0 }, 0, out, '');
  return out.end();
}
