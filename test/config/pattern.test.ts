/**
 * exclude_peer_pattern runs in linear time: the matcher of src/util/pattern.ts agrees with RegExp on the
 * language it supports, finishes fast on patterns that make RegExp backtrack for seconds, and refuses
 * at config load what it cannot run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExcluded } from '../../src/analysis/peer.js';
import { compilePattern, MAX_MATCHED_TEXT, MAX_PROGRAM, PatternError } from '../../src/util/pattern.js';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';
import { cpuTimed } from '../helpers/cpu-time.js';

const withPattern = (pattern: string): unknown => ({
  ...BASE,
  routers: [{ name: 'hq', url: 'https://192.0.2.1', health: { exclude_peer_pattern: pattern } }],
});

/** CPU, not wall time: a loaded machine stretches wall time, not the matcher's work. */
function timed(run: () => boolean): { result: boolean; ms: number } {
  const { value, ms } = cpuTimed(run);
  return { result: value, ms };
}

describe('exclude_peer_pattern matcher', () => {
  it('matches whole names like the documented examples', () => {
    const pattern = compilePattern('test-.*');
    expect(pattern.test('test-laptop')).toBe(true);
    expect(pattern.test('my-test-laptop')).toBe(false);
    expect(pattern.source).toBe('test-.*');
    expect(compilePattern('lab-[0-9]{1,3}|(?:road|home)-\\w+').test('home-anna_2')).toBe(true);
    expect(compilePattern('[^\\s]+').test('a b')).toBe(false);
  });

  it(`never matches a text longer than ${MAX_MATCHED_TEXT} characters: a peer's comment is free text of up to a record's size`, () => {
    const pattern = compilePattern('test-.*');
    expect(pattern.test(`test-${'x'.repeat(MAX_MATCHED_TEXT - 5)}`)).toBe(true);
    expect(pattern.test(`test-${'x'.repeat(MAX_MATCHED_TEXT - 4)}`)).toBe(false);
    // 1 MiB is refused before a character is read: 30 such comments cost 2.6 s a collection when each was run
    // through. Counted, not timed: a text that counts what is read of it (a 5 ms bound was one pause from failing).
    const long = `test-${'x'.repeat(1 << 20)}`;
    let read = 0;
    const counting = { length: long.length, charCodeAt: (at: number) => (read++, long.charCodeAt(at)) } as unknown as string;
    expect(pattern.test(counting)).toBe(false);
    expect(read).toBe(0);
    // The same counting text at the bound is read: the count can fail.
    const atBound = `test-${'x'.repeat(MAX_MATCHED_TEXT - 5)}`;
    expect(pattern.test({ length: atBound.length, charCodeAt: (at: number) => (read++, atBound.charCodeAt(at)) } as unknown as string)).toBe(true);
    expect(read).toBe(MAX_MATCHED_TEXT);
  });

  it('looks at an unnamed peer\'s comment once: it is also the peer\'s name', () => {
    const pattern = compilePattern('lab-.*');
    const texts: string[] = [];
    const counting = { source: pattern.source, flags: '', test: (text: string) => (texts.push(text), pattern.test(text)) };
    const health = firstRouter(resolve(withPattern('lab-.*'))).health;
    expect(isExcluded({ name: 'road-anna', comment: 'road-anna' }, { ...health, excludePeerPattern: counting })).toBe(false);
    expect(texts).toEqual(['road-anna']);
    expect(isExcluded({ name: 'x', comment: 'lab-1' }, { ...health, excludePeerPattern: counting })).toBe(true);
  });

  it.each([
    ['(a+)+b', 'a'.repeat(500)],
    ['(a|a)*b', 'a'.repeat(500)],
    ['(a|aa)+c', 'a'.repeat(500)],
    ['(a*)*b', 'a'.repeat(500)],
    ['((a+)+)+$c', 'a'.repeat(500)],
    ['(\\w+\\s?)+!', 'word '.repeat(100)],
    ['(.*a){20}', 'a'.repeat(19) + 'b'.repeat(480)],
  ])('%s against %#: a pathological input of hundreds of characters finishes fast', (source, text) => {
    const pattern = compilePattern(source);
    const { result, ms } = timed(() => pattern.test(text));
    expect(result).toBe(false);
    // RegExp takes seconds on the first one from 29 characters (minutes, years from here); linear is microseconds.
    expect(ms).toBeLessThan(250);
  });

  it('stays fast at the largest program it accepts, on a long name', () => {
    const source = '(?:a?){100}(?:a?){100}(?:a?){100}(?:a?){100}a{100}';
    const pattern = compilePattern(source);
    const { result, ms } = timed(() => pattern.test('a'.repeat(MAX_MATCHED_TEXT)));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(1000);
    expect(() => compilePattern('(?:a?){100}(?:a?){100}(?:a?){100}(?:a?){100}(?:a?){100}(?:a?){100}')).toThrow(
      `over ${MAX_PROGRAM} steps`,
    );
  });

  it.each([
    ['(a)\\1', 'backreferences'],
    ['(?<n>a)\\k<n>', 'named backreferences'],
    ['a(?=b)', 'lookahead'],
    ['a(?!b)', 'lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'lookbehind'],
    ['\\bword', 'word boundaries'],
    ['\\p{L}', 'the escape \\p is not supported'],
    ['a{1,1000}', 'repeat counts above 100'],
    ['lab-(', 'missing ")"'],
    ['a)', 'unmatched ")"'],
    ['*a', 'nothing to repeat'],
    ['a**', 'nothing to repeat'],
    ['^*', 'nothing to repeat'],
    ['[b-a]', 'range out of order'],
    ['[a', 'missing "]"'],
    ['a{3,2}', 'out of order'],
  ])('refuses %s: %s', (source, reason) => {
    expect(() => compilePattern(source)).toThrow(PatternError);
    expect(() => compilePattern(source)).toThrow(reason);
  });

  it('refuses unsupported features at config load, with the path and the reason', () => {
    expect(problemsOf(withPattern('(a)\\1'))).toEqual([
      {
        path: 'routers[0].health.exclude_peer_pattern',
        message: '"(a)\\\\1" is not a valid regular expression: backreferences (\\1…) are not supported (at position 4)',
      },
    ]);
    expect(problemsOf(withPattern('x(?=y)'))[0]?.message).toContain('lookahead (?= (?! is not supported');
  });

  it('hands health code a pattern it calls .test on, and that stays fast on an evil pattern', () => {
    const health = firstRouter(resolve(withPattern('(a+)+b'))).health;
    const { result, ms } = timed(() => isExcluded({ name: 'a'.repeat(29), comment: 'a'.repeat(400) }, health));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(250);
    expect(isExcluded({ name: 'aaab', comment: undefined }, health)).toBe(true);
  });
});

// Patterns from the supported subset, built from pieces a RegExp reads the same way. Groups take only
// bounded repeats: a star over a group with a star inside makes RegExp itself backtrack for minutes, and a
// property test must stay bounded (it cannot interrupt a RegExp that is running).
const ATOMS = ['a', 'b', '-', '1', '\\.', '.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '[ab]', '[^a]', '[a-c1]', '[\\d-]', '[^]', '[]', '}', ']'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '*?', '+?', '??', '{1,3}?'];
const GROUP_QUANTIFIERS = ['', '', '?', '{2}', '{0,2}', '??'];

function patternOf(depth: number): fc.Arbitrary<string> {
  const atom = fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q);
  const group =
    depth === 0
      ? atom
      : fc
          .tuple(patternOf(depth - 1), fc.constantFrom('(?:', '('), fc.constantFrom(...GROUP_QUANTIFIERS))
          .map(([inner, open, q]) => `${open}${inner})${q}`);
  const element = fc.oneof(
    { weight: 4, arbitrary: atom },
    { weight: 1, arbitrary: group },
    { weight: 1, arbitrary: fc.constantFrom('^', '$') },
  );
  const sequence = fc.array(element, { maxLength: 4 }).map((items) => items.join(''));
  return fc.array(sequence, { minLength: 1, maxLength: 3 }).map((branches) => branches.join('|'));
}

describe('exclude_peer_pattern matcher against RegExp', () => {
  it('agrees with RegExp on random simple patterns and strings', () => {
    let tried = 0;
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '1', '.', ' ', '\n', 'é'), maxLength: 10 });
    fc.assert(
      fc.property(patternOf(2), fc.array(text, { minLength: 1, maxLength: 5 }), (source, texts) => {
        const ours = compilePattern(source);
        const theirs = new RegExp(`^(?:${source})$`);
        for (const t of texts) {
          tried++;
          if (ours.test(t) !== theirs.test(t)) return false;
        }
        return true;
      }),
      { numRuns: 5000, interruptAfterTimeLimit: 20_000 },
    );
    console.log(`pattern matcher vs RegExp: ${tried} pattern/string pairs agreed`);
    expect(tried).toBeGreaterThan(1000);
  }, 30_000);
});
