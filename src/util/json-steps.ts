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

/**
 * Whether the value is written part by part: every list, and a plain object holding a list or an object (a
 * report's `routers`, a router's `peers`). A flat object (a peer, a check) is one JSON.stringify call.
 */
function walked(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (!isPlainObject(value) || typeof value['toJSON'] === 'function') return false;
  for (const key in value) if (Object.hasOwn(value, key) && isContainer(value[key])) return true;
  return false;
}

/** The value's text at `depth` as JSON.stringify writes it there; undefined where it writes nothing (undefined, a function). */
function nativeText(value: unknown, format: Format, depth: number): string | undefined {
  const text: string | undefined = JSON.stringify(value, null, format.indent);
  if (text === undefined || format.indent === 0 || depth === 0) return text;
  // JSON text holds a line break only between its tokens (a string's is escaped), so this re-indents it whole.
  return text.includes('\n') ? text.replaceAll('\n', pad(format, depth)) : text;
}

function* writeValue(value: unknown[] | Record<string, unknown>, format: Format, depth: number, out: Pieces): Steps<void> {
  if (format.open.has(value)) throw new TypeError('Converting circular structure to JSON');
  format.open.add(value);
  yield* writeContainer(value, format, depth, out);
  format.open.delete(value);
}

function* writeContainer(value: unknown[] | Record<string, unknown>, format: Format, depth: number, out: Pieces): Steps<void> {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.add('[]');
      return;
    }
    for (let index = 0; index < value.length; index++) {
      out.add(index === 0 ? '[' : ',');
      out.add(pad(format, depth + 1));
      yield* writeMember(value[index], format, depth + 1, out, 'null');
      if (++format.items % ITEMS_PER_STEP === 0) yield;
    }
    out.add(pad(format, depth));
    out.add(']');
    return;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const member = value[key];
    const part = walked(member);
    const text = part ? undefined : nativeText(member, format, depth + 1);
    // What JSON.stringify leaves out of an object: undefined, functions, symbols.
    if (!part && text === undefined) continue;
    out.add(first ? '{' : ',');
    first = false;
    out.add(pad(format, depth + 1));
    out.add(JSON.stringify(key));
    out.add(format.indent === 0 ? ':' : ': ');
    if (part) yield* writeValue(member, format, depth + 1, out);
    else out.add(text ?? '');
    if (++format.items % ITEMS_PER_STEP === 0) yield;
  }
  if (first) {
    out.add('{}');
    return;
  }
  out.add(pad(format, depth));
  out.add('}');
}

/** A list element (`absent` where JSON.stringify writes nothing: null) or the top-level value. */
function* writeMember(value: unknown, format: Format, depth: number, out: Pieces, absent: string): Steps<void> {
  if (walked(value)) {
    yield* writeValue(value, format, depth, out);
    return;
  }
  out.add(nativeText(value, format, depth) ?? absent);
}

/**
 * `JSON.stringify(value, null, indent)` (indent 0–10 spaces) as UTF-8 pieces, in steps that may pause every few
 * hundred list elements or object members. A value JSON.stringify writes nothing for (undefined) gives no pieces. A `toJSON` is
 * honoured as JSON.stringify does, but for the key it is handed, always "" here (a Date ignores it).
 */
export function* jsonSteps(value: unknown, indent = 0): Steps<Buffer[]> {
  if (!Number.isInteger(indent) || indent < 0 || indent > 10) throw new RangeError(`indent must be 0 to 10 spaces, not ${indent}`);
  const out = new Pieces();
  yield* writeMember(value, { indent, pads: [], open: new Set(), items: 0 }, 0, out, '');
  return out.end();
}
