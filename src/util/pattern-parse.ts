/**
 * The parser of the pattern language `pattern.ts` matches in linear time: the part of JavaScript's
 * regular expressions (without flags) that a finite automaton can run. Supported: literals, `.`, classes
 * `[...]`/`[^...]` with ranges, `\d \D \w \W \s \S`, `\t \n \r \f \v \0`, escaped punctuation, anchors
 * `^ $`, groups `(...)`, `(?:...)`, `(?<name>...)`, `|`, `* + ?` (lazy forms too: laziness does not
 * change whether a whole string matches) and `{m}`, `{m,}`, `{m,n}` up to MAX_REPEAT. Refused, with a
 * reason: backreferences, lookaround, word boundaries and other escapes, since each either needs
 * backtracking or is rare enough in peer names not to be worth a second meaning to learn.
 * Everything works on UTF-16 code units, as RegExp does without the `u` flag, so both agree.
 */

/** A set of code units: sorted, non-overlapping inclusive ranges [lo, hi, lo, hi, …]. */
export type Ranges = readonly number[];

export type PatternNode =
  | { kind: 'set'; ranges: Ranges }
  | { kind: 'start' }
  | { kind: 'end' }
  | { kind: 'seq'; items: PatternNode[] }
  | { kind: 'alt'; items: PatternNode[] }
  | { kind: 'repeat'; item: PatternNode; min: number; max: number };

/** The largest count a `{m,n}` may give: repeats are copied into the automaton. */
export const MAX_REPEAT = 100;

export class PatternError extends Error {
  override readonly name = 'PatternError';
  readonly code = 'PATTERN_INVALID';
  /** 0-based position in the pattern where the problem was found, when it is one place. */
  readonly position: number | undefined;

  constructor(reason: string, position?: number) {
    super(position === undefined ? reason : `${reason} (at position ${position + 1})`);
    this.position = position;
  }
}

const MAX_UNIT = 0xffff;

function normalise(pairs: [number, number][]): number[] {
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] ?? 0) + 1) out[last] = Math.max(out[last] ?? 0, hi);
    else out.push(lo, hi);
  }
  return out;
}

function pairsOf(ranges: Ranges): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) pairs.push([ranges[i] ?? 0, ranges[i + 1] ?? 0]);
  return pairs;
}

export function complement(ranges: Ranges): number[] {
  const out: number[] = [];
  let next = 0;
  for (const [lo, hi] of pairsOf(ranges)) {
    if (lo > next) out.push(next, lo - 1);
    next = hi + 1;
  }
  if (next <= MAX_UNIT) out.push(next, MAX_UNIT);
  return out;
}

const unit = (c: string): number => c.charCodeAt(0);
const DIGIT: Ranges = [0x30, 0x39];
const WORD: Ranges = normalise([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
// What JavaScript's \s matches: WhiteSpace and LineTerminator of ECMA-262.
const SPACE: Ranges = normalise([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
]);
// `.` without the `s` flag: anything but a line terminator.
const DOT: Ranges = complement(normalise([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]));
const CLASS_ESCAPES: Readonly<Record<string, Ranges>> = {
  d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE),
};
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

const one = (code: number): PatternNode => ({ kind: 'set', ranges: [code, code] });

/**
 * Groups nested deeper than this are refused: the parser and the compiler after it recurse once per level, and
 * 2,000 levels (4 KB of parentheses) overflowed the stack, which no pattern anyone writes comes near.
 */
export const MAX_GROUP_DEPTH = 100;

class Parser {
  #i = 0;
  #depth = 0;

  constructor(private readonly text: string) {}

  parse(): PatternNode {
    const node = this.#alternation();
    if (this.#i < this.text.length) throw new PatternError('unmatched ")"', this.#i);
    return node;
  }

  #peek(offset = 0): string | undefined {
    return this.text[this.#i + offset];
  }

  #alternation(): PatternNode {
    const items = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#i++;
      items.push(this.#sequence());
    }
    return items.length === 1 ? (items[0] as PatternNode) : { kind: 'alt', items };
  }

  #sequence(): PatternNode {
    const items: PatternNode[] = [];
    for (let c = this.#peek(); c !== undefined && c !== '|' && c !== ')'; c = this.#peek()) {
      const at = this.#i;
      const atom = this.#atom();
      const quantifier = this.#quantifier();
      if (quantifier === undefined) {
        items.push(atom);
        continue;
      }
      // A bare anchor cannot repeat; a group holding one can, as in RegExp.
      if (this.text[at] === '^' || this.text[at] === '$') throw new PatternError('nothing to repeat', at);
      if (this.#peek() === '?') this.#i++; // lazy: the same strings match in full
      if (this.#quantifierAhead()) throw new PatternError('nothing to repeat', this.#i);
      items.push({ kind: 'repeat', item: atom, ...quantifier });
    }
    return items.length === 1 ? (items[0] as PatternNode) : { kind: 'seq', items };
  }

  /** `{m}`, `{m,}` or `{m,n}` at the cursor, without moving; undefined when `{` is a literal (as in RegExp). */
  #braces(): { min: number; max: number; length: number } | undefined {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.#i, this.#i + 24));
    if (match === null) return undefined;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
    return { min, max, length: match[0].length };
  }

  #quantifierAhead(): boolean {
    const c = this.#peek();
    return c === '*' || c === '+' || c === '?' || (c === '{' && this.#braces() !== undefined);
  }

  #quantifier(): { min: number; max: number } | undefined {
    const c = this.#peek();
    const simple = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : c === '?' ? [0, 1] : undefined;
    if (simple !== undefined) {
      this.#i++;
      return { min: simple[0] ?? 0, max: simple[1] ?? 0 };
    }
    if (c !== '{') return undefined;
    const braces = this.#braces();
    if (braces === undefined) return undefined;
    if (braces.max < braces.min) throw new PatternError('numbers out of order in {} quantifier', this.#i);
    if (braces.min > MAX_REPEAT || (braces.max !== Infinity && braces.max > MAX_REPEAT)) {
      throw new PatternError(`repeat counts above ${MAX_REPEAT} are not supported`, this.#i);
    }
    this.#i += braces.length;
    return { min: braces.min, max: braces.max };
  }

  #atom(): PatternNode {
    const at = this.#i;
    const c = this.text[this.#i++] ?? '';
    switch (c) {
      case '(':
        return this.#group(at);
      case '[':
        return this.#class(at);
      case '.':
        return { kind: 'set', ranges: DOT };
      case '^':
        return { kind: 'start' };
      case '$':
        return { kind: 'end' };
      case '\\':
        return this.#escape(false);
      case '*':
      case '+':
      case '?':
        throw new PatternError('nothing to repeat', at);
      case '{':
        this.#i = at;
        if (this.#braces() !== undefined) throw new PatternError('nothing to repeat', at);
        this.#i = at + 1;
        return one(unit(c));
      default:
        return one(unit(c));
    }
  }

  #group(at: number): PatternNode {
    if (this.#peek() === '?') {
      const kind = this.text.slice(this.#i, this.#i + 3);
      if (kind.startsWith('?:')) this.#i += 2;
      else if (kind.startsWith('?=') || kind.startsWith('?!')) throw new PatternError('lookahead (?= (?! is not supported', at);
      else if (kind === '?<=' || kind === '?<!') throw new PatternError('lookbehind (?<= (?<! is not supported', at);
      else {
        const named = /^\?<[A-Za-z_$][A-Za-z0-9_$]*>/.exec(this.text.slice(this.#i, this.#i + 80));
        if (named === null) throw new PatternError('invalid group: only (...), (?:...) and (?<name>...) are supported', at);
        this.#i += named[0].length;
      }
    }
    if (++this.#depth > MAX_GROUP_DEPTH) throw new PatternError(`groups nested more than ${MAX_GROUP_DEPTH} deep`, at);
    const inner = this.#alternation();
    this.#depth--;
    if (this.#peek() !== ')') throw new PatternError('missing ")"', at);
    this.#i++;
    return inner;
  }

  /** One escape after `\`: a set of code units (class escapes are sets too). */
  #escapeRanges(inClass: boolean): Ranges {
    const at = this.#i - 1;
    const c = this.text[this.#i++];
    if (c === undefined) throw new PatternError('"\\" at the end of the pattern', at);
    const known = CLASS_ESCAPES[c];
    if (known !== undefined) return known;
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return [control, control];
    if (c === '0' && !/[0-9]/.test(this.#peek() ?? '')) return [0, 0];
    if (/[1-9]/.test(c)) throw new PatternError(inClass ? 'octal escapes are not supported' : 'backreferences (\\1…) are not supported', at);
    if (c === 'b' || c === 'B') throw new PatternError(`\\${c} is not supported${inClass ? '' : ' (word boundaries)'}`, at);
    if (c === 'k') throw new PatternError('named backreferences (\\k) are not supported', at);
    if (/[A-Za-z0-9]/.test(c)) throw new PatternError(`the escape \\${c} is not supported`, at);
    return [unit(c), unit(c)];
  }

  #escape(inClass: boolean): PatternNode {
    return { kind: 'set', ranges: this.#escapeRanges(inClass) };
  }

  /** One class member: a code unit, or a whole set for \d, \w, \s and their negations. */
  #member(): { code: number } | { ranges: Ranges } {
    const c = this.text[this.#i++] ?? '';
    if (c !== '\\') return { code: unit(c) };
    const escape = this.text[this.#i] ?? '';
    const ranges = this.#escapeRanges(true);
    return escape in CLASS_ESCAPES ? { ranges } : { code: ranges[0] ?? 0 };
  }

  #class(at: number): PatternNode {
    const negate = this.#peek() === '^';
    if (negate) this.#i++;
    const pairs: [number, number][] = [];
    while (this.#peek() !== ']') {
      if (this.#peek() === undefined) throw new PatternError('missing "]"', at);
      const start = this.#i;
      const low = this.#member();
      if (this.#peek() === '-' && this.#peek(1) !== ']' && this.#peek(1) !== undefined) {
        this.#i++;
        const high = this.#member();
        if (!('code' in low) || !('code' in high)) throw new PatternError('a range cannot start or end with \\d, \\w or \\s', start);
        if (high.code < low.code) throw new PatternError('range out of order in character class', start);
        pairs.push([low.code, high.code]);
      } else if ('code' in low) pairs.push([low.code, low.code]);
      else pairs.push(...pairsOf(low.ranges));
    }
    this.#i++;
    const ranges = normalise(pairs);
    return { kind: 'set', ranges: negate ? complement(ranges) : ranges };
  }
}

/** Parses a pattern; throws PatternError with the reason and position. */
export function parsePattern(text: string): PatternNode {
  return new Parser(text).parse();
}
