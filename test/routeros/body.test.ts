/** Reply bytes that are not UTF-8 are windows-1252 (Winbox on Western Windows), the same on every Node major. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import {
  MAX_DEPTH,
  MAX_KEY_BYTES,
  MAX_MEMBERS,
  MAX_RAW_CONTROLS,
  MAX_RECORD_BYTES,
  MAX_RECORD_VALUES,
  MAX_RECORDS,
  MIN_BYTES_PER_VALUE,
  SLICED_FROM_BYTES,
  VALUE_CHECK_FROM,
  decodeText,
  decodeTextByParts,
  parseJsonBody,
  parseJsonBodyInSlices,
} from '../../src/routeros/body.js';
import { SYSTEM_PROPLIST } from '../../src/collectors/system.js';
import { INTERFACE_PROPLIST, PEER_PROPLIST } from '../../src/collectors/wireguard.js';
import { INTERFACE_PROPLIST as LINK_PROPLIST } from '../../src/collectors/interface.js';
import { decodeCp1252 } from '../../src/util/cp1252.js';

describe('decodeText', () => {
  it('keeps valid UTF-8 as it is', () => {
    expect(decodeText(Buffer.from('Café “quote” ✓', 'utf8'))).toBe('Café “quote” ✓');
  });

  it('reads invalid UTF-8 as windows-1252: curly quotes, the euro sign, Latin-1 letters', () => {
    expect(decodeText(Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94, 0x20, 0x80]))).toBe('Café “q” €');
  });

  it('maps every byte to exactly one character, and the five bytes windows-1252 leaves undefined to their C1 code point', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = decodeCp1252(all);
    expect(text).toHaveLength(256);
    for (const byte of [0x81, 0x8d, 0x8f, 0x90, 0x9d]) expect(text.charCodeAt(byte)).toBe(byte);
    // Outside 0x80–0x9F windows-1252 is ISO-8859-1: the code point is the byte.
    for (let byte = 0; byte < 256; byte++) if (byte < 0x80 || byte > 0x9f) expect(text.charCodeAt(byte)).toBe(byte);
    expect(text.slice(0x80, 0xa0)).toBe('€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ');
  });

  it('reads a slice of a larger buffer, not the whole buffer behind it', () => {
    const big = Buffer.from([0x41, 0x93, 0x42, 0x94, 0x43]);
    expect(decodeCp1252(big.subarray(1, 4))).toBe('“B”');
  });

  it('decodes any bytes as a byte-by-byte reading of windows-1252 would, however many fall in 0x80–0x9F', () => {
    const all = decodeCp1252(Uint8Array.from({ length: 256 }, (_, i) => i));
    const oneByOne = (bytes: Uint8Array): string => Array.from(bytes, (byte) => all[byte]).join('');
    const highBytes = fc.integer({ min: 0x80, max: 0x9f });
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.array(fc.oneof(highBytes, fc.integer({ min: 0, max: 255 })), { maxLength: 300 }).map((list) => Uint8Array.from(list)),
    );
    fc.assert(
      fc.property(bytes, fc.nat(140_000), fc.nat(10), (sample, padding, offset) => {
        // Padded past the decoder's 64 KiB windows, and read from inside a larger buffer.
        const whole = Buffer.concat([Buffer.alloc(offset, 0x93), Buffer.alloc(padding, 0x41), sample]);
        const view = whole.subarray(offset);
        expect(decodeCp1252(view)).toBe(oneByOne(view));
      }),
      { numRuns: 100 },
    );
  });

  it('decodes a reply of 32 MiB of bytes 0x80–0x9F without holding the event loop for seconds (a replacer per character took ~15 s)', () => {
    const flood = Buffer.alloc(32 * 1024 * 1024);
    for (let i = 0; i < flood.length; i++) flood[i] = 0x80 + (i % 32);
    const started = performance.now();
    const text = decodeCp1252(flood);
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(text).toHaveLength(flood.length);
    expect(text.slice(0, 4)).toBe('€\u0081‚ƒ');
  });

  it('a reply read in parts decodes as the same reply read whole, wherever the parts split (a character, a bad byte)', () => {
    const reply = fc.oneof(
      fc.string({ unit: 'binary' }).map((text) => Buffer.from(text, 'utf8')),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(reply, fc.array(fc.nat(), { maxLength: 6 }), (whole, cuts) => {
        const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        const parts = [...at, whole.length].map((end, index) => whole.subarray(index === 0 ? 0 : at[index - 1], end));
        expect(decodeText(parts)).toBe(decodeText(whole));
        expect(decodeTextByParts(parts)).toBe(decodeText(whole));
      }),
      { numRuns: 2000 },
    );
    // The split falls inside a character: joined, not two replacement characters or windows-1252.
    const check = Buffer.from('✓', 'utf8');
    expect(decodeText([check.subarray(0, 1), check.subarray(1)])).toBe('✓');
    expect(decodeText([])).toBe('');
  });
  it('replies in parts of every size up to and past the joined buffer decode alike, one after another (the buffer grows and is reused)', () => {
    const sizes = [70_000, 300_000, 1_000, 512 * 1024, 600_000, 200_000];
    for (const [round, size] of sizes.entries()) {
      // Two- and three-byte characters, so that parts split inside them; a windows-1252 byte in every other reply.
      const text = `[${'"é✓"'.repeat(Math.ceil(size / 8))}]`.slice(0, size);
      const whole = Buffer.from(text, 'utf8');
      if (round % 2 === 1) whole[Math.floor(whole.length / 2)] = 0x93;
      const parts = [0, 1, 2, 3].map((index) => whole.subarray(Math.floor((index * whole.length) / 4), Math.floor(((index + 1) * whole.length) / 4)));
      const expected = round % 2 === 1 ? decodeCp1252(whole) : whole.toString('utf8');
      expect(decodeText(parts)).toBe(expected);
      expect(decodeTextByParts(parts)).toBe(expected);
    }
  });

  it('decodes as a strict TextDecoder would, falling back to windows-1252 where it would throw, over bytes near UTF-8', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    const oracle = (bytes: Buffer): string => {
      try {
        return strict.decode(bytes);
      } catch {
        return decodeCp1252(bytes);
      }
    };
    // Valid UTF-8 with a few bytes changed, cut or inserted: overlongs, surrogates, stray continuations, BOMs.
    const tricky = fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xc3, 0xe0, 0xed, 0xef, 0xbb, 0xf0, 0xf4, 0xf5, 0xff, 0xa0);
    const nearUtf8 = fc
      .tuple(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), tricky, fc.constantFrom('set', 'insert', 'cut')), { maxLength: 3 }),
        fc.boolean(),
      )
      .map(([text, edits, bom]) => {
        const bytes = [...(bom ? [0xef, 0xbb, 0xbf] : []), ...Buffer.from(text, 'utf8')];
        for (const [at, byte, how] of edits) {
          const index = bytes.length === 0 ? 0 : at % bytes.length;
          if (how === 'set' && bytes.length > 0) bytes[index] = byte;
          else if (how === 'insert') bytes.splice(index, 0, byte);
          else bytes.splice(index, 1);
        }
        return Buffer.from(bytes);
      });
    fc.assert(
      fc.property(nearUtf8, fc.array(fc.nat(), { maxLength: 6 }), (whole, cuts) => {
        const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        const parts = [...at, whole.length].map((end, index) => whole.subarray(index === 0 ? 0 : at[index - 1], end));
        expect(decodeText(parts)).toBe(oracle(whole));
        expect(decodeText(whole)).toBe(oracle(whole));
        // Decoded a part at a time, as replies too large for the joined buffer are.
        expect(decodeTextByParts(parts)).toBe(oracle(whole));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseJsonBody against hostile bodies', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('repairs raw controls inside strings (real routers send them), up to a bound; beyond it the reply is not data', () => {
    const atCap = `[{"comment":"${'a\u0001'.repeat(MAX_RAW_CONTROLS)}"}]`;
    expect((parseJsonBody([Buffer.from(atCap)], 'GET /x') as { comment: string }[])[0]?.comment).toHaveLength(2 * MAX_RAW_CONTROLS);
    // Before: millions of controls were escaped one string piece at a time (30 MB took 8 s and gigabytes).
    const over = Buffer.from(`["${'\u0001'.repeat(4 * MAX_RAW_CONTROLS)}"]`);
    expect(() => parseJsonBody([over], 'GET /x')).toThrow(/more than 100000 raw control characters/);
  });

  it("says where a reply is not JSON, never in JSON.parse's words: they quote the text around the fault (an echoed password's fragment)", () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/);
    const around = fc.constantFrom('{"password":', '["', '[1,', '{"user":"monitor","password":', '', 'x');
    const after = fc.constantFrom('}', '"]', '', ',', '"', ' garbage');
    fc.assert(
      fc.property(around, secret, after, (before, password, rest) => {
        const body = `${before}${password}${rest}`;
        let message = '';
        try {
          parseJsonBody([Buffer.from(body)], 'GET /x');
          return; // a body that happens to be JSON (a bare number) is data
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).toMatch(/not valid JSON|empty body/);
        // No six characters of the body's secret in a row.
        for (let at = 0; at + 6 <= password.length; at++) expect(message).not.toContain(password.slice(at, at + 6));
      }),
      { numRuns: 300 },
    );
    expect(() => parseJsonBody([Buffer.from('{"a":1')], 'GET /x')).toThrow(/not valid JSON \(it ends before its JSON does\)/);
  });

  it('parses once a body the repair would not change: a reply failing for another reason costs one parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    for (const body of ['['.repeat(10_000), '{"a":1', '[1,]', 'not json']) {
      parse.mockClear();
      expect(() => parseJsonBody([Buffer.from(body)], 'GET /x')).toThrow(/not valid JSON/);
      expect(parse).toHaveBeenCalledTimes(1);
    }
    parse.mockClear();
    expect(parseJsonBody([Buffer.from('["a\tb"]')], 'GET /x')).toEqual(['a\tb']);
    expect(parse).toHaveBeenCalledTimes(2);
  });

  /**
   * What a JSON value costs JSON.parse, counted on the parsed tree rather than the text: a container, each element
   * after an array's first, and for each member its key and the comma before it. (The text's `{`, `[`, `,` and `:`
   * outside strings, which the parser counts.)
   */
  function valuesIn(value: unknown): number {
    if (Array.isArray(value)) return Math.max(1, value.length) + value.reduce((sum: number, item) => sum + valuesIn(item), 0);
    if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      return Math.max(1, 2 * entries.length) + entries.reduce((sum, [, item]) => sum + valuesIn(item), 0);
    }
    return 0;
  }

  /** A list of `rows` repeated until it is at least `chars` long, as JSON text (whitespace as generated). */
  function repeatedList(rows: readonly string[], chars: number, space: string): string {
    const unit = rows.join(`,${space}`);
    const copies = Math.max(1, Math.ceil(chars / (unit.length + 1)));
    return `[${space}${Array<string>(copies).fill(unit).join(`,${space}`)}${space}]`;
  }

  /** `bytes` cut into parts at the given offsets (taken modulo its length), as a reply arrives. */
  function split(bytes: Buffer, cuts: readonly number[]): Buffer[] {
    const at = [...new Set(cuts.map((cut) => cut % bytes.length))].sort((a, b) => a - b);
    return [0, ...at].map((start, index) => bytes.subarray(start, at[index] ?? bytes.length)).filter((part) => part.length > 0);
  }

  it('parses every reply shaped as RouterOS writes it, of any size: records of named string values, empty ones included', () => {
    const keys = [...new Set(['.id', ...SYSTEM_PROPLIST, ...INTERFACE_PROPLIST, ...PEER_PROPLIST, ...LINK_PROPLIST])];
    // Values with the characters the count looks for, quotes and escapes, inside strings where they count for nothing.
    const value = fc.oneof(fc.constantFrom('', '0', '*1', 'true', '00:11:22:33:44:55', '{[,:]}', '"', '\\', 'a\\"b'), fc.string({ maxLength: 12 }));
    const record = fc.uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 6 }).chain((names) =>
      fc.tuple(...names.map((name) => value.map((v): [string, string] => [name, v]))).map((pairs) => JSON.stringify(Object.fromEntries(pairs))));
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', ' ', '\n  '),
        fc.constantFrom(VALUE_CHECK_FROM, 4 * VALUE_CHECK_FROM),
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, space, size, cuts) => {
          const text = repeatedList(rows, size, space);
          expect(parseJsonBody(split(Buffer.from(text), cuts), 'GET /x')).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads an escaped quote as part of its string wherever the reply is cut, even between the backslash and the quote', () => {
    // Commas inside strings count for nothing; read outside them, they would spend the budget. The list is filled up
    // with zeros to exactly its budget, so that one value miscounted is a refusal.
    const records = repeatedList([JSON.stringify({ '.id': '*1', comment: `"${','.repeat(40)}"${','.repeat(40)}\\` })], VALUE_CHECK_FROM, '');
    // Each `,0` adds 2 bytes and 1 value: at 3 bytes a value, the budget is reached after (bytes − 3 × values) of them.
    const zeros = records.length - MIN_BYTES_PER_VALUE * valuesIn(JSON.parse(records));
    const text = `${records.slice(0, -1)}${',0'.repeat(zeros)}]`;
    expect(valuesIn(JSON.parse(text))).toBe(Math.floor(text.length / MIN_BYTES_PER_VALUE));
    const bytes = Buffer.from(text);
    const expected: unknown = JSON.parse(text);
    const backslashes = [...text.slice(0, 400).matchAll(/\\/g)].map((match) => match.index);
    expect(backslashes.length).toBeGreaterThan(3);
    for (const at of backslashes) {
      expect(parseJsonBody(split(bytes, [at + 1]), 'GET /x')).toEqual(expected);
      expect(parseJsonBody(split(bytes, [at, at + 1, at + 2]), 'GET /x')).toEqual(expected);
    }
  });

  it(`refuses unparsed, from ${VALUE_CHECK_FROM} bytes, exactly the replies of more than one value per ${MIN_BYTES_PER_VALUE} bytes, however read in parts`, () => {
    // Floods (empty containers, nesting, bare numbers, one-letter keys) mixed with real-looking records.
    const dense = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom(0, '', null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'rx', 'name'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    const real = fc.constantFrom({ '.id': '*1', name: 'wg0', 'public-key': 'a'.repeat(43) + '=', rx: '1200', comment: '' });
    const parse = vi.spyOn(JSON, 'parse');
    let refused = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ arbitrary: dense, weight: 2 }, { arbitrary: real, weight: 1 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', ' '),
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, space, cuts) => {
          const text = repeatedList(rows.map((row) => JSON.stringify(row)), VALUE_CHECK_FROM, space);
          const bytes = Buffer.from(text);
          const values = valuesIn(JSON.parse(text));
          parse.mockClear();
          if (values > Math.floor(bytes.length / MIN_BYTES_PER_VALUE)) {
            expect(() => parseJsonBody(split(bytes, cuts), 'GET /x')).toThrow(
              new RegExp(`GET /x: the router's reply holds more JSON values than RouterOS writes \\(more than one per ${MIN_BYTES_PER_VALUE} of its ${bytes.length} bytes\\) and was not parsed`));
            expect(parse).not.toHaveBeenCalled();
            refused++;
          } else {
            expect(parseJsonBody(split(bytes, cuts), 'GET /x')).toEqual(JSON.parse(text));
          }
        },
      ),
      { numRuns: 300 },
    );
    // Both sides of the line were drawn.
    expect(refused).toBeGreaterThan(10);
    expect(refused).toBeLessThan(290);
  });

  it(`refuses unparsed, from ${VALUE_CHECK_FROM} bytes, what RouterOS never writes within the value budget: nesting past ${MAX_DEPTH} levels, an object or inner list of ${MAX_MEMBERS} members (3 million keys took 6–10 s to parse)`, async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const keys = (count: number): string => Array.from({ length: count }, (_, i) => `"k${i}":"value${i}"`).join(',');
    const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{"b":"${'x'.repeat(VALUE_CHECK_FROM)}"}${'}'.repeat(depth - 1)}`;
    const refused = [
      [`{${keys(MAX_MEMBERS + 1)}}`, `holds an object or an inner list of more than ${MAX_MEMBERS} members (RouterOS writes records of tens of fields)`],
      // In the reply's list, a record that large is refused by its values first.
      [`[{${keys(MAX_MEMBERS + 1)}}]`, `holds a record of more than ${MAX_RECORD_VALUES} JSON values (RouterOS writes records of tens of fields)`],
      [`[[${Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => `"value${i}"`).join(',')}]]`, `holds an object or an inner list of more than ${MAX_MEMBERS} members (RouterOS writes records of tens of fields)`],
      [`{"a":[${Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => `"value${i}"`).join(',')}]}`, `holds an object or an inner list of more than ${MAX_MEMBERS} members (RouterOS writes records of tens of fields)`],
      [nested(MAX_DEPTH + 1), `nests deeper than RouterOS writes (more than ${MAX_DEPTH} levels)`],
    ] as const;
    for (const [body, why] of refused) {
      expect(() => parseJsonBody(Buffer.from(body), 'GET /x')).toThrow(`GET /x: the router's reply ${why} and was not parsed`);
      // From the size parsed in slices, an object is refused before its shape is looked at: no reply that large is one.
      const large = body.startsWith('{') ? `of ${SLICED_FROM_BYTES} bytes is not a list` : why;
      await expect(parseJsonBodyInSlices(Buffer.from(body.padEnd(SLICED_FROM_BYTES, ' ')), 'GET /x')).rejects.toThrow(`the router's reply ${large}`);
    }
    expect(parse).not.toHaveBeenCalled();
    // Just inside every line: parsed.
    expect(parseJsonBody(Buffer.from(`{${keys(MAX_MEMBERS)}}`), 'GET /x')).toHaveProperty('k9999', 'value9999');
    expect(parseJsonBody(Buffer.from(nested(MAX_DEPTH)), 'GET /x')).toHaveProperty('a');
    // The reply's own list of records is bounded only by the value budget: 30,000 records are data.
    const records = `[${Array.from({ length: 30_000 }, (_, i) => `{"name":"peer${i}","rx":"${i}"}`).join(',')}]`;
    expect(parseJsonBody(Buffer.from(records), 'GET /x')).toHaveLength(30_000);
  });

  it(`refuses unparsed a list of more than ${MAX_RECORDS} records or a record of more than ${MAX_RECORD_BYTES} bytes or ${MAX_RECORD_VALUES} values, cut off or not (each is one array or one parse in one go: 11 million empty strings grew one array for 0.4 s at a time)`, async () => {
    const outcomes = async (body: string): Promise<string[]> =>
      Promise.all(
        [() => parseJsonBody(Buffer.from(body), 'GET /x'), () => parseJsonBodyInSlices(Buffer.from(body), 'GET /x')].map(async (parse) => {
          try {
            const value = (await parse()) as unknown[];
            return `parsed ${value.length}`;
          } catch (error) {
            return (error as Error).message;
          }
        }),
      );
    const records = (count: number): string => `[${'"a",'.repeat(count - 1)}"a"]`;
    const record = (bytes: number): string => `{"comment":"${'x'.repeat(bytes - 14)}"}`;
    const parse = vi.spyOn(JSON, 'parse');
    const tooMany = `GET /x: the router's reply lists more than ${MAX_RECORDS} records (no menu this exporter reads holds that many) and was not parsed`;
    const tooLarge = `GET /x: the router's reply holds a record of more than ${MAX_RECORD_BYTES} bytes (RouterOS writes records of kilobytes at most) and was not parsed`;
    for (const body of [records(MAX_RECORDS + 1), `[${record(MAX_RECORD_BYTES + 1)}]`, `[{"a":"b"},${record(MAX_RECORD_BYTES + 1)},{"a":"b"}]`, `[{"a":"b"},${record(MAX_RECORD_BYTES + 8)}`]) {
      for (const outcome of await outcomes(body)) expect(outcome).toContain(body.startsWith('["a"') ? tooMany : tooLarge);
    }
    expect(parse).not.toHaveBeenCalled();
    // A record of many values is refused by its values, whatever its bytes: `{` and each key's `:` and `,` count.
    const fields = (count: number): string => `{${Array.from({ length: count }, (_, i) => `"k${i}":""`).join(',')}}`;
    const filler = `{"comment":"${'x'.repeat(SLICED_FROM_BYTES)}"}`;
    for (const outcome of await outcomes(`[${filler},${fields(MAX_RECORD_VALUES / 2 + 1)}]`)) {
      expect(outcome).toContain(`GET /x: the router's reply holds a record of more than ${MAX_RECORD_VALUES} JSON values (RouterOS writes records of tens of fields) and was not parsed`);
    }
    expect(await outcomes(`[${filler},${fields(MAX_RECORD_VALUES / 2)}]`)).toEqual(['parsed 2', 'parsed 2']);
    // Just inside both lines: data.
    expect(await outcomes(records(MAX_RECORDS))).toEqual([`parsed ${MAX_RECORDS}`, `parsed ${MAX_RECORDS}`]);
    expect(await outcomes(`[{"a":"b"},${record(MAX_RECORD_BYTES)}]`)).toEqual(['parsed 2', 'parsed 2']);
  });

  it(`refuses unparsed, from ${VALUE_CHECK_FROM} bytes, a property name of more than ${MAX_KEY_BYTES} bytes, wherever the reply is cut into parts (names of 16,390 characters alike but for their end took 3.2 s to parse)`, async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const name = (bytes: number, i: number): string => `${'k'.repeat(bytes - 6)}${String(i).padStart(6, '0')}`;
    const reply = (bytes: number): string =>
      `[${Array.from({ length: 8 }, (_, r) => `{${Array.from({ length: 8 }, (_, i) => `"${name(bytes, r * 8 + i)}":"v"`).join(',')},"comment":"${'x'.repeat(VALUE_CHECK_FROM / 8)}"}`).join(',')}]`;
    const refused = `GET /x: the router's reply names a property with more than ${MAX_KEY_BYTES} bytes (RouterOS's property names are words) and was not parsed`;
    const body = Buffer.from(reply(MAX_KEY_BYTES + 1));
    for (const cut of [1, 7, MAX_KEY_BYTES, 4096]) {
      const parts: Buffer[] = [];
      for (let at = 0; at < body.length; at += cut) parts.push(body.subarray(at, at + cut));
      expect(() => parseJsonBody(parts, 'GET /x')).toThrow(refused);
    }
    await expect(parseJsonBodyInSlices(Buffer.from(reply(MAX_KEY_BYTES + 1).padEnd(SLICED_FROM_BYTES, ' ')), 'GET /x')).rejects.toThrow(refused);
    expect(parse).not.toHaveBeenCalled();
    // A name of that many bytes, and a value of any length: data.
    expect(parseJsonBody(Buffer.from(reply(MAX_KEY_BYTES)), 'GET /x')).toHaveLength(8);
  });

  it(`refuses unparsed, from ${SLICED_FROM_BYTES} bytes, a reply that is not a list (an object, a string or a page of text was parsed whole: 0.1–0.6 s for 32 MB)`, async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const pad = (text: string): Buffer => Buffer.from(text.padEnd(SLICED_FROM_BYTES, ' '));
    const cases = [
      [`{"comment":"${'x'.repeat(SLICED_FROM_BYTES)}"}`, `is not a list, and RouterOS answers that much only as a list of records`],
      [`"${'x'.repeat(SLICED_FROM_BYTES)}"`, `is not a list, and RouterOS answers that much only as a list of records`],
      [`x${'y'.repeat(SLICED_FROM_BYTES)}`, `is not a list, and RouterOS answers that much only as a list of records`],
      [`  <html>${'a, '.repeat(SLICED_FROM_BYTES / 3)}</html>`, 'the router answered HTML, not JSON'],
      ['\n', 'the router answered an empty body'],
    ] as const;
    for (const [text, why] of cases) {
      expect(() => parseJsonBody(pad(text), 'GET /x')).toThrow(why);
      await expect(parseJsonBodyInSlices(pad(text), 'GET /x')).rejects.toThrow(why);
    }
    expect(parse).not.toHaveBeenCalled();
    // Below that size a record object is parsed as before: a singleton menu answers one.
    expect(parseJsonBody(Buffer.from(`{"comment":"${'x'.repeat(VALUE_CHECK_FROM)}"}`), 'GET /x')).toHaveProperty('comment');
  });

  it('refuses a flood of empty records or of nesting without parsing it (30 MB of them took 5 s and ~600 MB of heap)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    // Two values per record and a million records: the value budget and the count of records run out together.
    expect(() => parseJsonBody([Buffer.from(`[${'{},'.repeat(2_000_000)}{}]`)], 'GET /x')).toThrow(/holds more JSON values than RouterOS writes|lists more than 1000000 records/);
    expect(() => parseJsonBody([Buffer.from(`[${'[{},{},{}],'.repeat(500_000)}{}]`)], 'GET /x')).toThrow(/holds more JSON values than RouterOS writes/);
    expect(() => parseJsonBody([Buffer.from(`{${'"a":[],'.repeat(1_000_000)}"b":0}`)], 'GET /x')).toThrow(/is not a list, and RouterOS answers that much only as a list of records/);
    // Nesting is refused by its depth before the values run out.
    expect(() => parseJsonBody([Buffer.from('['.repeat(6_000_000) + ']'.repeat(6_000_000))], 'GET /x')).toThrow(
      `GET /x: the router's reply nests deeper than RouterOS writes (more than ${MAX_DEPTH} levels) and was not parsed`,
    );
    expect(parse).not.toHaveBeenCalled();
    // Below the size the count starts at, a small flood is parsed (and costs little): it is the collector's to refuse.
    expect(parseJsonBody([Buffer.from(`[${'{},'.repeat(1000)}{}]`)], 'GET /x')).toHaveLength(1001);
    // An HTML page keeps its own hint, whatever its punctuation.
    expect(() => parseJsonBody([Buffer.from(`<html>${'a:b, '.repeat(VALUE_CHECK_FROM)}</html>`)], 'GET /x')).toThrow(/answered HTML, not JSON/);
  });
});
