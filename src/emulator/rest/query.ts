/**
 * Record selection: GET `prop=value` conditions, `.proplist`, and the console API's query stack
 * (`.query` words of POST …/print, spec §4.2), evaluated as the API manual describes it:
 * `k=v`, `<k=v`, `>k=v`, `k` (has), `-k` (has not) push one boolean each; `#…` runs operators
 * (digits = copy of stack item, `!` not, `&` and, `|` or, `.` dup); finally the stack is ANDed.
 */
import type { Row } from '../types.js';
import { parseDurationMicros } from '../util/duration.js';
import { badRequest } from './errors.js';
import { normaliseBool } from './values.js';

export type Condition = (row: Row) => boolean;

function equals(actual: string | undefined, wanted: string): boolean {
  if (actual === undefined) return false;
  return actual === wanted || normaliseBool(actual) === normaliseBool(wanted);
}

/** Numbers compare numerically, durations by length, anything else as text. */
function compare(actual: string, wanted: string): number {
  const a = Number(actual);
  const b = Number(wanted);
  if (actual.trim() !== '' && wanted.trim() !== '' && Number.isFinite(a) && Number.isFinite(b)) return a - b;
  const da = parseDurationMicros(actual);
  const db = parseDurationMicros(wanted);
  if (da !== undefined && db !== undefined) return da - db;
  return actual < wanted ? -1 : actual > wanted ? 1 : 0;
}

export function equalityCondition(key: string, value: string): Condition {
  return (row) => equals(row[key], value);
}

/** Conditions of a GET query string, ANDed; `.proplist` is not a condition. */
export function conditionsFromSearch(search: URLSearchParams): Condition[] {
  const out: Condition[] = [];
  for (const [key, value] of search) {
    if (key === '.proplist') continue;
    out.push(equalityCondition(key, value));
  }
  return out;
}

export function matchesAll(row: Row, conditions: readonly Condition[]): boolean {
  return conditions.every((c) => c(row));
}

/** `.proplist` as a comma list or a JSON list; undefined = all properties. */
export function parseProplist(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
  throw badRequest('invalid value for argument .proplist');
}

/**
 * Keeps only listed keys; names the record lacks are silently absent (real-formats §8). Walks the
 * row rather than the list so the row's sorted key order survives.
 */
export function projector(proplist: readonly string[] | undefined): (row: Row) => Row {
  if (proplist === undefined) return (row) => row;
  const wanted = new Set(proplist);
  return (row) => {
    const out: Row = {};
    for (const key in row) if (wanted.has(key)) out[key] = row[key] as string;
    return out;
  };
}

export function project(row: Row, proplist: readonly string[] | undefined): Row {
  return projector(proplist)(row);
}

type Word = (row: Row, stack: boolean[]) => void;

const invalidQuery = (word: string): Error => badRequest(`invalid query word: ${word}`);

function pop(stack: boolean[], word: string): boolean {
  const v = stack.pop();
  if (v === undefined) throw invalidQuery(word);
  return v;
}

/** Compiles one `#…` word into a stack program; errors surface when a row is evaluated. */
function operators(word: string): Word {
  const ops = word.slice(1);
  if (!/^[0-9!&|.]*$/.test(ops)) throw invalidQuery(word);
  return (_row, stack) => {
    let i = 0;
    while (i < ops.length) {
      const c = ops[i] as string;
      if (c >= '0' && c <= '9') {
        let j = i;
        while (j < ops.length && (ops[j] as string) >= '0' && (ops[j] as string) <= '9') j++;
        const index = Number(ops.slice(i, j));
        const value = stack[stack.length - 1 - index];
        if (value === undefined) throw invalidQuery(word);
        stack.push(value);
        // A '.' right after an index only ends the number.
        i = ops[j] === '.' ? j + 1 : j;
        continue;
      }
      if (c === '!') stack.push(!pop(stack, word));
      else if (c === '&') {
        const b = pop(stack, word);
        stack.push(pop(stack, word) && b);
      } else if (c === '|') {
        const b = pop(stack, word);
        stack.push(pop(stack, word) || b);
      } else {
        const top = stack[stack.length - 1];
        if (top === undefined) throw invalidQuery(word);
        stack.push(top);
      }
      i++;
    }
  };
}

function compileWord(raw: string): Word {
  const word = raw.startsWith('?') ? raw.slice(1) : raw;
  if (word.startsWith('#')) return operators(word);
  if (word === '' ) throw invalidQuery(raw);
  const eq = word.indexOf('=');
  if (eq < 0) {
    if (word.startsWith('-')) {
      const key = word.slice(1);
      return (row, stack) => void stack.push(row[key] === undefined);
    }
    return (row, stack) => void stack.push(row[word] !== undefined);
  }
  const first = word[0];
  if (first === '<' || first === '>') {
    const key = word.slice(1, eq);
    const wanted = word.slice(eq + 1);
    const sign = first === '<' ? -1 : 1;
    return (row, stack) => {
      const actual = row[key];
      stack.push(actual !== undefined && Math.sign(compare(actual, wanted)) === sign);
    };
  }
  const key = word.slice(0, eq);
  const wanted = word.slice(eq + 1);
  return (row, stack) => void stack.push(equals(row[key], wanted));
}

/** A `.query` list → one condition; an empty list matches everything. */
export function compileQuery(value: unknown): Condition {
  if (!Array.isArray(value) || !value.every((w): w is string => typeof w === 'string')) {
    throw badRequest('invalid value for argument .query');
  }
  const words = value.map(compileWord);
  return (row) => {
    const stack: boolean[] = [];
    for (const w of words) w(row, stack);
    return stack.every(Boolean);
  };
}
