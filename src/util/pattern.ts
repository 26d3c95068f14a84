/**
 * Whole-string pattern matching in time linear in the text, whatever the pattern: the pattern (the subset
 * of JavaScript regular expressions described in pattern-parse.ts) is compiled into a Thompson automaton
 * and run over the text once, tracking the set of live states instead of backtracking. RegExp backtracks:
 * `(a+)+b` against 29 "a"s blocked the event loop for 8 s. Here a step costs at most the program's size
 * (bounded by MAX_PROGRAM), so a peer name of n characters costs O(n × program) and nothing more, and n is at
 * most MAX_MATCHED_TEXT.
 */
import { parsePattern, PatternError, type PatternNode, type Ranges } from './pattern-parse.js';

export { MAX_REPEAT, PatternError } from './pattern-parse.js';

/** What health code needs of a compiled pattern; RegExp has the same shape. */
export interface PeerPattern {
  /** True when the pattern matches the whole text. */
  test(text: string): boolean;
  /** The pattern as written. */
  readonly source: string;
  /** Always empty: no flags are supported. Kept so code that compares RegExps (source + flags) still works. */
  readonly flags: string;
}

/**
 * The most instructions one pattern may compile to: a step over one character of a name costs at most
 * this much. `{m,n}` copies its body, so it is where the bound bites.
 */
export const MAX_PROGRAM = 1_000;

/**
 * The longest text a pattern is matched against; a longer one never matches. Names are capped at this length
 * where a router's reply is read (routeros/records.ts), but a peer's comment is free text of up to a record's
 * size, and an unnamed peer is matched by its comment: 30 peers with comments of 1 MiB made one task of 2.6 s of
 * every wireguard collection and every /health request (found by review). Linear is not enough when the text is
 * a megabyte.
 */
export const MAX_MATCHED_TEXT = 1_024;

type Instruction =
  | { op: 'set'; ranges: Ranges }
  | { op: 'split'; next: number; other: number }
  | { op: 'jump'; to: number }
  | { op: 'start' }
  | { op: 'end' }
  | { op: 'match' };

class Compiler {
  readonly program: Instruction[] = [];

  #push(instruction: Instruction): number {
    if (this.program.length >= MAX_PROGRAM) throw new PatternError(`the pattern is too large once its repeats are expanded (over ${MAX_PROGRAM} steps)`);
    this.program.push(instruction);
    return this.program.length - 1;
  }

  /** A split or jump whose targets are patched once known. */
  #placeholder(): number {
    return this.#push({ op: 'jump', to: -1 });
  }

  emit(node: PatternNode): void {
    switch (node.kind) {
      case 'set':
        this.#push({ op: 'set', ranges: node.ranges });
        return;
      case 'start':
      case 'end':
        this.#push({ op: node.kind });
        return;
      case 'seq':
        for (const item of node.items) this.emit(item);
        return;
      case 'alt':
        this.#alternation(node.items);
        return;
      case 'repeat':
        this.#repeat(node.item, node.min, node.max);
    }
  }

  #alternation(items: readonly PatternNode[]): void {
    const jumps: number[] = [];
    items.forEach((item, i) => {
      if (i === items.length - 1) {
        this.emit(item);
        return;
      }
      const split = this.#placeholder();
      this.emit(item);
      jumps.push(this.#placeholder());
      this.program[split] = { op: 'split', next: split + 1, other: this.program.length };
    });
    for (const jump of jumps) this.program[jump] = { op: 'jump', to: this.program.length };
  }

  #repeat(item: PatternNode, min: number, max: number): void {
    for (let i = 0; i < min; i++) this.emit(item);
    if (max === Number.POSITIVE_INFINITY) {
      const loop = this.#placeholder();
      this.emit(item);
      this.#push({ op: 'jump', to: loop });
      this.program[loop] = { op: 'split', next: loop + 1, other: this.program.length };
      return;
    }
    // x{0,3} as x?x?x?: the same strings as (x(x(x)?)?)?, and no deeper.
    const optional: number[] = [];
    for (let i = min; i < max; i++) {
      optional.push(this.#placeholder());
      this.emit(item);
    }
    for (const split of optional) this.program[split] = { op: 'split', next: split + 1, other: this.program.length };
  }
}

function inRanges(ranges: Ranges, code: number): boolean {
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    if (code < (ranges[i] ?? 0)) return false;
    if (code <= (ranges[i + 1] ?? 0)) return true;
  }
  return false;
}

class CompiledPattern implements PeerPattern {
  readonly #program: readonly Instruction[];
  readonly source: string;
  readonly flags = '';

  constructor(source: string, program: readonly Instruction[]) {
    this.source = source;
    this.#program = program;
  }

  test(text: string): boolean {
    if (text.length > MAX_MATCHED_TEXT) return false;
    const program = this.#program;
    // seen[pc] === position + 1 when pc is already in the list for that position: each state once per step.
    const seen = new Int32Array(program.length);
    const stack: number[] = [];
    const follow = (list: number[], first: number, position: number): void => {
      stack.push(first);
      while (stack.length > 0) {
        const pc = stack.pop() as number;
        if (seen[pc] === position + 1) continue;
        seen[pc] = position + 1;
        const instruction = program[pc];
        if (instruction === undefined) continue;
        switch (instruction.op) {
          case 'jump':
            stack.push(instruction.to);
            break;
          case 'split':
            stack.push(instruction.other, instruction.next);
            break;
          case 'start':
            if (position === 0) stack.push(pc + 1);
            break;
          case 'end':
            if (position === text.length) stack.push(pc + 1);
            break;
          default:
            list.push(pc);
        }
      }
    };
    let current: number[] = [];
    follow(current, 0, 0);
    for (let position = 0; position < text.length && current.length > 0; position++) {
      const code = text.charCodeAt(position);
      const next: number[] = [];
      for (const pc of current) {
        const instruction = program[pc];
        if (instruction?.op === 'set' && inRanges(instruction.ranges, code)) follow(next, pc + 1, position + 1);
      }
      current = next;
    }
    return current.some((pc) => program[pc]?.op === 'match');
  }

  toString(): string {
    return this.source;
  }
}

/**
 * Compiles a pattern that must match the whole text (like Prometheus regexes: `lab-.*` matches
 * `lab-1`, not `my-lab-1`). Throws PatternError for syntax errors and unsupported features.
 */
export function compilePattern(source: string): PeerPattern {
  const tree = parsePattern(source);
  const compiler = new Compiler();
  compiler.emit(tree);
  compiler.program.push({ op: 'match' });
  return new CompiledPattern(source, compiler.program);
}
