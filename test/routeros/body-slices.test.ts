/**
 * Large replies are parsed in slices that give the event loop back (a router's 30 MB answer held every scrape and
 * every other run for seconds). Sliced or whole, a reply must come out the same: the same value, or the same error.
 */
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { MAX_RECORD_BYTES, MAX_WRONG_GUESSES, parseJsonBody, parseJsonBodyInSlices, SLICE_CHARS, SLICED_FROM_BYTES } from '../../src/routeros/body.js';
import { Slicer } from '../../src/util/slices.js';

/** What either parse gave: the value, or the error's message. */
async function outcome(parse: () => unknown): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await parse() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Strings as routers and hostile routers write them: quotes, backslashes, brackets and commas that are not JSON's. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('a\\"]},{"', '\\\\', '[', ']', '{', '}', ',', '\\u0022', 'ünïcödé ✓', '\u0001tab\there', '"'),
);
const record = fc.dictionary(fc.constantFrom('.id', 'name', 'comment', 'rx', 'public-key', '[', '"q"'), text, { maxKeys: 5 });

/** A list of records repeated to at least `bytes` of JSON. */
function reply(records: readonly Record<string, string>[], bytes: number): string {
  const one = records.map((r) => JSON.stringify(r)).join(',');
  const times = Math.ceil(bytes / Math.max(1, one.length + 1));
  return `[${Array.from({ length: times }, () => one).join(',')}]`;
}

type Mutation =
  | { kind: 'none' }
  /** An element left empty: `[a,]`, `[a, ]`, `[a,,b]` — JSON has no empty element, whichever slice it falls in. */
  | { kind: 'empty'; at: number; space: string }
  | { kind: 'insert' | 'replace'; at: number; char: string } | { kind: 'delete'; at: number } | { kind: 'cut'; at: number } | { kind: 'wrap'; before: string; after: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  fc.record({ kind: fc.constantFrom<'insert' | 'replace'>('insert', 'replace'), at: fc.double({ min: 0, max: 1, noNaN: true }), char: fc.constantFrom(',', ']', '[', '{', '}', '"', '\\', ' ', '\n', '\u0001', 'x', ':') }),
  fc.record({ kind: fc.constant<'empty'>('empty'), at: fc.double({ min: 0, max: 1, noNaN: true }), space: fc.constantFrom('', ' ', '\n') }),
  fc.record({ kind: fc.constant<'delete'>('delete'), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  /** Cut off, as a connection that drops mid-reply leaves it (parts are never shorter than the size sliced). */
  fc.record({ kind: fc.constant<'cut'>('cut'), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant<'wrap'>('wrap'), before: fc.constantFrom('', ' \n\t', '{"a":', '\ufeff', 'x'), after: fc.constantFrom('', ' \r\n', '}', ',', ']', 'x') }),
) as fc.Arbitrary<Mutation>;

function mutate(body: string, change: Mutation): string {
  if (change.kind === 'none') return body;
  if (change.kind === 'wrap') return change.before + body + change.after;
  if (change.kind === 'empty') {
    // After the element boundary at or past `at`, or at the very end of the list.
    const boundary = body.indexOf('},{', Math.floor(change.at * body.length));
    return boundary < 0 || change.at > 0.9 ? `${body.slice(0, -1)},${change.space}]` : `${body.slice(0, boundary + 2)}${change.space},${body.slice(boundary + 2)}`;
  }
  const at = Math.min(body.length - 1, Math.floor(change.at * body.length));
  if (change.kind === 'delete') return body.slice(0, at) + body.slice(at + 1);
  if (change.kind === 'cut') return body.slice(0, body.length - 1 - Math.floor(change.at * 64));
  return body.slice(0, at) + change.char + body.slice(change.kind === 'insert' ? at : at + 1);
}

/** Larger than a slice and the largest record together: a parse of more than those is a parse of the whole. */
const LARGE = SLICE_CHARS + MAX_RECORD_BYTES + 64;

describe('parseJsonBodyInSlices', () => {
  it('gives every large reply, valid or not, the value or the error the whole parse gives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 6 }), mutation, fc.integer({ min: 1, max: 8 }), fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined, freq: 4 }), async (records, change, parts, latin1) => {
        const body = Buffer.from(mutate(reply(records, LARGE), change), 'utf8');
        // One byte that is not UTF-8 makes the whole reply windows-1252, as Winbox types it.
        if (latin1 !== undefined) body[Math.floor(latin1 * (body.length - 1))] = 0xe9;
        expect(body.length).toBeGreaterThanOrEqual(SLICED_FROM_BYTES);
        // Read in parts, as a reply arrives.
        const size = Math.ceil(body.length / parts);
        const pieces = Array.from({ length: parts }, (_, i) => body.subarray(i * size, (i + 1) * size)).filter((piece) => piece.length > 0);
        const whole = await outcome(() => parseJsonBody(body, 'GET /rest/x'));
        const parse = vi.spyOn(JSON, 'parse');
        const sliced = await outcome(() => parseJsonBodyInSlices(pieces, 'GET /rest/x', new Slicer({ budgetMs: 0 })));
        // Valid or not, the text is never parsed whole: each parse is of a slice and the record that ends it.
        const longest = Math.max(0, ...parse.mock.calls.map(([parsed]) => parsed.length));
        parse.mockRestore();
        // (A slice of the last record's comma at its edge, and the brackets around it.)
        expect(longest).toBeLessThanOrEqual(SLICE_CHARS + MAX_RECORD_BYTES + 2);
        expect(sliced).toEqual(whole);
      }),
      { numRuns: Number(process.env['SLICES_RUNS'] ?? 60) },
    );
  });

  it('refuses an empty element where a slice ends on it, as the whole parse does (`[…long…, ]` splits at that comma)', async () => {
    const long = JSON.stringify({ name: 'a'.repeat(SLICED_FROM_BYTES) });
    for (const body of [`[${long},]`, `[${long}, ]`, `[${long},\n]`, `[${long},,${long}]`, `[${long}, ,${long}]`]) {
      const whole = await outcome(() => parseJsonBody(Buffer.from(body), 'GET /rest/x'));
      expect(whole).toHaveProperty('error');
      expect(await outcome(() => parseJsonBodyInSlices(Buffer.from(body), 'GET /rest/x'))).toEqual(whole);
    }
  });

  it('gives the event loop back while it parses a large list, and not for a small one', async () => {
    const big = Buffer.from(reply([{ '.id': '*1', name: 'peer', 'public-key': 'x'.repeat(44), rx: '123456' }], 4 * SLICED_FROM_BYTES));
    let pauses = 0;
    const value = await parseJsonBodyInSlices(big, 'GET /rest/x', new Slicer({ budgetMs: 0, onPause: () => pauses++ }));
    expect(value).toEqual(JSON.parse(big.toString()));
    // At least one pause per 128 K characters of list.
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(big.length / (128 * 1024)));
    pauses = 0;
    const small = Buffer.from(reply([{ name: 'a' }], 1024));
    expect(await parseJsonBodyInSlices(small, 'GET /rest/x', new Slicer({ budgetMs: 0, onPause: () => pauses++ }))).toEqual(JSON.parse(small.toString()));
    expect(pauses).toBe(0);
  });

  it('stops at its next pause once its signal is aborted (the run was stopped), with the signal’s reason', async () => {
    const big = Buffer.from(reply([{ name: 'peer', 'public-key': 'x'.repeat(44) }], 4 * SLICED_FROM_BYTES));
    const controller = new AbortController();
    let pauses = 0;
    const slicer = new Slicer({
      budgetMs: 0,
      signal: controller.signal,
      onPause: () => {
        if (++pauses === 3) controller.abort(new Error('job stopped'));
      },
    });
    await expect(parseJsonBodyInSlices(big, 'GET /rest/x', slicer)).rejects.toThrow('job stopped');
    expect(pauses).toBe(3);
  });

  it('decodes a large windows-1252 reply a part at a time, as the whole decode does', async () => {
    const body = Buffer.from(reply([{ name: 'caf\u00e9', comment: 'x'.repeat(100) }], SLICED_FROM_BYTES + 1), 'latin1');
    const parts = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));
    let pauses = 0;
    const value = (await parseJsonBodyInSlices(parts, 'GET /rest/x', new Slicer({ budgetMs: 0, onPause: () => pauses++ }))) as { name: string }[];
    expect(value).toEqual(parseJsonBody(body, 'GET /rest/x'));
    expect(value[0]?.name).toBe('café');
    // At least a pause per part while decoding.
    expect(pauses).toBeGreaterThanOrEqual(parts.length);
  });

  it('repairs raw control characters in a large list slice by slice, as the whole parse does', async () => {
    const body = reply([{ name: 'tab\there', comment: 'line\nbreak' }], SLICED_FROM_BYTES + 1);
    let pauses = 0;
    const value = (await parseJsonBodyInSlices(Buffer.from(body), 'GET /rest/x', new Slicer({ budgetMs: 0, onPause: () => pauses++ }))) as { name: string }[];
    expect(value).toEqual(parseJsonBody(Buffer.from(body), 'GET /rest/x'));
    expect(value[0]?.name).toBe('tab\there');
    expect(pauses).toBeGreaterThan(2);
  });

  /** Both parses of the body, and the longest text the sliced one gave JSON.parse. */
  async function both(body: string | Buffer): Promise<{ whole: unknown; sliced: unknown; longest: number }> {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const whole = await outcome(() => parseJsonBody(bytes, 'GET /rest/x'));
    const parse = vi.spyOn(JSON, 'parse');
    const sliced = await outcome(() => parseJsonBodyInSlices(bytes, 'GET /rest/x', new Slicer({ budgetMs: 0 })));
    const longest = Math.max(0, ...parse.mock.calls.map(([parsed]) => parsed.length));
    parse.mockRestore();
    return { whole, sliced, longest };
  }

  const peers = (bytes: number): string => reply([{ '.id': '*1', name: 'peer', 'public-key': 'x'.repeat(44), comment: 'hello' }], bytes);

  /** A sliced parse's value, and how often it called JSON.parse and read a character (String#charCodeAt). */
  async function counted(body: Buffer | Buffer[]): Promise<{ value: unknown; parses: number; reads: number }> {
    const parse = vi.spyOn(JSON, 'parse');
    const read = vi.spyOn(String.prototype, 'charCodeAt');
    try {
      const value = await parseJsonBodyInSlices(body, 'GET /rest/x', new Slicer({ budgetMs: 0 }));
      return { value, parses: parse.mock.calls.length, reads: read.mock.calls.length };
    } finally {
      read.mockRestore();
      parse.mockRestore();
    }
  }

  it('cuts a RouterOS reply where its records end without reading it a character at a time (the scan cost more than the parse)', async () => {
    const body = Buffer.from(peers(4 * SLICED_FROM_BYTES));
    const parts = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));
    const { value, reads } = await counted(parts);
    expect(value).toEqual(JSON.parse(body.toString()));
    // A scan reads every character (2 million); cutting at `},{` reads a few, around the list's end.
    expect(reads).toBeLessThan(100);
  });

  it('cuts where records end in a reply with raw control characters in some comments too (real routers send them), repaired in the slice', async () => {
    // One record in a hundred with a tab typed into its comment: nearly every slice holds one.
    const records = Array.from({ length: 12_000 }, (_, i) => JSON.stringify({ '.id': `*${i}`, 'public-key': 'k'.repeat(44), comment: i % 100 === 7 ? 'a\\tb' : 'plain' }).replace('\\\\t', '\t'));
    const body = Buffer.from(`[${records.join(',')}]`);
    expect(body.length).toBeGreaterThan(SLICED_FROM_BYTES);
    expect(body.includes('\t')).toBe(true);
    const { value, parses, reads } = await counted(body);
    expect(value).toEqual(await parseJsonBody(body, 'GET /rest/x'));
    // Each slice parsed raw, then repaired: two parses a slice, and its characters read once (by the repair), not twice.
    const slices = Math.ceil(body.length / SLICE_CHARS);
    expect(parses).toBeLessThanOrEqual(2 * slices + 1);
    expect(reads).toBeLessThan(body.length * 1.2);
  });

  it('stops guessing where to cut after a few guesses that do not parse (a `},{` in every comment)', async () => {
    const body = Buffer.from(`[${Array.from({ length: 60_000 }, (_, i) => JSON.stringify({ '.id': `*${i}`, comment: 'x},{y'.repeat(3) })).join(',')}]`);
    const { value, parses } = await counted(body);
    expect(value).toEqual(JSON.parse(body.toString()));
    // One parse a slice, and the guesses that failed.
    const slices = Math.ceil(body.length / SLICE_CHARS);
    expect(slices).toBeGreaterThan(3 * MAX_WRONG_GUESSES);
    expect(parses).toBeLessThanOrEqual(slices + MAX_WRONG_GUESSES + 1);
  });

  it('takes a `},{` in a string, or between records nested deeper, for no place to cut, wherever it stands around a slice’s end', async () => {
    const filler = peers(SLICE_CHARS - 2_000).slice(1, -1);
    // Past what a slice may parse: a wrong cut that left its failure to a parse of the whole text would show.
    const rest = peers(LARGE).slice(1, -1);
    const oddities = ['{"comment":"a},{b"}', '{"comment":"},{\\"x\\":\\"},{"}', '{"a":[{},{},{"b":[{},{}]}]}', '{"comment":"tab\there },{ "}'];
    for (const odd of oddities) {
      for (let shift = 0; shift < 2_400; shift += 151) {
        // The oddity repeated from ~2,000 characters before a slice's size (give or take `shift`) to past it, then
        // more plain records.
        const pad = JSON.stringify({ name: 'p'.repeat(shift) });
        const body = `[${filler},${pad},${Array.from({ length: 80 }, () => odd).join(',')},${rest}]`;
        const { whole, sliced, longest } = await both(body);
        expect(whole).toHaveProperty('value');
        expect(sliced).toEqual(whole);
        // Still in slices: a wrong cut would have left the failure to a parse of the whole text.
        expect(longest).toBeLessThanOrEqual(SLICE_CHARS + MAX_RECORD_BYTES + 2 + 5);
      }
    }
  });

  it('words a slice that fails with raw control characters in it as the whole parse does: counted once, at their place', async () => {
    const body = peers(LARGE);
    // A raw tab in a comment (repaired, six characters), then a missing comma, in the same slice past the middle.
    const at = body.indexOf('"hello"', body.length >> 1);
    const broken = `${body.slice(0, at)}"hel\tlo"${body.slice(at + 7).replace('},{', '}{')}`;
    const { whole, sliced, longest } = await both(broken);
    expect(whole).toHaveProperty('error', expect.stringMatching(/at offset \d+ of \d+ characters/));
    expect(sliced).toEqual(whole);
    expect(longest).toBeLessThanOrEqual(SLICE_CHARS + MAX_RECORD_BYTES + 2);
  });

  it('takes a position only from JSON.parse’s own words, not from the reply it quotes (`position 1` in a reply)', async () => {
    const body = peers(LARGE);
    const middle = body.indexOf('},{', body.length >> 1);
    const broken = `${body.slice(0, middle + 1)},position 1,${body.slice(middle + 1)}`;
    const { whole, sliced } = await both(broken);
    expect(whole).toEqual({ error: expect.stringContaining('(a character JSON does not allow there)') });
    expect(sliced).toEqual(whole);
  });

  it('gives the loop back in whitespace around the list too, and parses none of it whole: `[ ]` is the empty list, a character after the list fails where it stands', async () => {
    const spaces = ' '.repeat(LARGE);
    // (A list of that much whitespace inside is a record of more than MAX_RECORD_BYTES, refused by both.)
    for (const body of [`[${spaces}]`, `[ ]${spaces}`, `${spaces}[\n]${spaces}`, `${peers(SLICE_CHARS * 2)}${spaces}`, `${spaces}${peers(SLICE_CHARS * 2)}`, `${peers(SLICE_CHARS * 2)}${spaces}x`, `[]${spaces}}`]) {
      const { whole, sliced, longest } = await both(body);
      expect(sliced).toEqual(whole);
      expect(longest).toBeLessThanOrEqual(SLICE_CHARS * 3);
    }
    expect((await both(`[ ]${spaces}`)).sliced).toEqual({ value: [] });
    expect((await both(`${spaces}[\n]${spaces}`)).sliced).toEqual({ value: [] });
    let pauses = 0;
    await parseJsonBodyInSlices(Buffer.from(`[]${spaces}`), 'GET /rest/x', new Slicer({ budgetMs: 0, onPause: () => pauses++ }));
    // Every slice's worth of whitespace, beside the pauses of the parts' checks and decoding.
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(LARGE / SLICE_CHARS));
  });

  it('parses no large reply whole, whatever its shape: records plain, long, dense or nested, raw control characters, whitespace, empty or doubled commas, garbage, cut off anywhere (generator)', async () => {
    const control = fc.constantFrom('\u0001', '\t', '\n', '\u001f');
    const element = fc.oneof(
      fc.record({ name: fc.string({ maxLength: 8 }), comment: fc.string({ maxLength: 20 }) }).map((record) => JSON.stringify(record)),
      fc.integer({ min: 1, max: 400_000 }).map((length) => `{"comment":"${'x'.repeat(length)}"}`),
      fc.integer({ min: 1, max: 6_000 }).map((keys) => `{${Array.from({ length: keys }, (_, i) => `"k${i}":""`).join(',')}}`),
      fc.integer({ min: 1, max: 3_000 }).map((count) => `{"a":[${'{},'.repeat(count)}{}]}`),
      fc.tuple(fc.string({ maxLength: 6 }), control, fc.string({ maxLength: 6 })).map(([a, c, b]) => `{"comment":${JSON.stringify(a).slice(0, -1)}${c}${JSON.stringify(b).slice(1)}}`),
      fc.constantFrom('', ' ', '[]', '{}', '"a"', '1', 'x', '}', ']', '{"a":', '[[[', '"\\'),
    );
    const whitespace = fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 300_000 }).map((n) => ' '.repeat(n)), fc.constantFrom('\n', ' \t\r\n'));
    await fc.assert(
      fc.asyncProperty(
        whitespace,
        fc.array(element, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(',', ',', ',', ', ', ',,', ' '),
        fc.constantFrom(']', ']', ' ]', '', ']x', '] }', '],'),
        whitespace,
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined, freq: 3 }),
        async (leading, elements, comma, closing, trailing, cut) => {
          // Filled with plain records up to a size a whole parse would show in JSON.parse's calls.
          const filler = peers(LARGE).slice(1, -1);
          let body = `${leading}[${filler}${comma}${elements.join(comma)}${closing}${trailing}`;
          if (cut !== undefined) body = body.slice(0, Math.max(LARGE, Math.floor(cut * body.length)));
          const { whole, sliced, longest } = await both(body);
          const controls = body.split('').filter((char) => char < ' ' && char !== ' ').length;
          expect(sliced).toEqual(whole);
          expect(longest).toBeLessThanOrEqual(SLICE_CHARS + MAX_RECORD_BYTES + 2 + 5 * controls);
        },
      ),
      { numRuns: Number(process.env['SLICES_RUNS'] ?? 25) },
    );
  });
});
