/**
 * Router records as the collectors get them (records.ts): every field of a reply keeps its key, whatever the key,
 * whether the record is passed on as it is (strings only) or copied with numbers and booleans as strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asRecordList, MAX_COMMENT_CHARS, MAX_NAME_CHARS, recordListSteps } from '../../src/routeros/records.js';
import { FieldReader } from '../../src/analysis/decoding.js';
import { finish } from '../../src/util/slices.js';
import { heapAfterCollection } from '../helpers/gc.js';

/** Names every object inherits, `__proto__` among them: the keys an assignment treats specially. */
const INHERITED_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'name'];

describe('router records', () => {
  it('keep a field called __proto__ when the record is copied (a number in it) as when it is not', () => {
    const [copied, kept] = asRecordList(JSON.parse('[{"__proto__":"x","mtu":1420},{"__proto__":"x","mtu":"1420"}]'), 'GET /rest/interface');
    for (const record of [copied, kept]) {
      expect(Object.keys(record ?? {})).toEqual(['__proto__', 'mtu']);
      expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toBe('x');
      expect(record?.['mtu']).toBe('1420');
    }
  });

  it('keep every key and value of random replies, numbers and booleans as text, nulls left out (generator)', () => {
    const key = fc.oneof(fc.constantFrom(...INHERITED_NAMES), fc.string({ maxLength: 12 }));
    const field = fc.oneof(fc.string({ maxLength: 12 }), fc.double({ noNaN: true }), fc.integer(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, field), { maxLength: 10 }), (pairs) => {
        // As JSON.parse makes it: own properties, the last of a repeated key winning.
        const reply = JSON.parse(`[{${pairs.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}]`) as Record<string, unknown>[];
        const given = reply[0] as Record<string, unknown>;
        const expected = Object.entries(given)
          .filter(([, value]) => value !== null)
          .map(([name, value]) => [name, String(value)]);
        const [record] = asRecordList(reply, 'GET /rest/interface');
        expect(Object.entries(record ?? {})).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('router records in steps', () => {
  it('are checked in slices, in place, as asRecordList checks them at once (378 records of 10,000 fields took 0.5 s in one go)', () => {
    const reply = (): unknown[] => Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? { name: `ether${i}`, mtu: i } : { name: `ether${i}`, mtu: String(i) }));
    const at = reply();
    const steps = recordListSteps(at, 'GET /rest/interface');
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    // A pause possible every 64 records; the list checked is the list given, its copied records in place.
    expect(pauses).toBe(Math.floor(20_000 / 64));
    expect(step.value).toBe(at);
    expect(step.value).toEqual(asRecordList(reply(), 'GET /rest/interface'));
    expect(step.value[3]).toEqual({ name: 'ether3', mtu: '3' });
  });

  it('fail at the first record that is no record, however long the list', () => {
    const list: unknown[] = Array.from({ length: 10_000 }, () => ({ name: 'a' }));
    list[9_000] = 'not a record';
    expect(() => finish(recordListSteps(list, 'GET /rest/x'))).toThrow('GET /rest/x: expected a record object, got a string');
    expect(() => finish(recordListSteps({ name: 'a' }, 'GET /rest/x'))).toThrow('GET /rest/x: expected a list of records, got an object');
  });

  it('with their key fields are kept in steps, a pause possible every 4,096 records, as keyed keeps them at once', () => {
    const records = Array.from({ length: 10_000 }, (_, i): Record<string, string> => (i % 7 === 0 ? { mtu: '1500' } : { name: `ether${i}` }));
    const read = new FieldReader('interface');
    const steps = read.keyedSteps(records, ['name']);
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    expect(pauses).toBe(Math.floor(10_000 / 4096));
    const atOnce = new FieldReader('interface');
    expect(step.value).toEqual(atOnce.keyed(records, ['name']));
    expect(read.errors).toBe(atOnce.errors);
    expect(read.problems).toEqual(['interface 1429 of 10000 records lack name and were left out']);
  });
});

describe('router records that name something', () => {
  it(`refuse a name of more than ${MAX_NAME_CHARS} characters (V8 hashes names of more than 16,383 by their length: 2,000 of them in a map took 3.4 s), and keep long free text`, () => {
    const long = 'x'.repeat(16_400);
    for (const key of ['name', 'interface', 'public-key', 'chain', 'jump-target', 'protocol', 'action', 'connection-state']) {
      expect(() => asRecordList([{ [key]: `${long}1` }], 'GET /rest/interface')).toThrow(
        `GET /rest/interface: field "${key}" is a name of more than ${MAX_NAME_CHARS} characters, which RouterOS does not write`,
      );
    }
    expect(asRecordList([{ name: 'n'.repeat(MAX_NAME_CHARS), comment: long, 'allowed-address': long, mtu: 1420 }], 'GET /rest/interface')[0]).toMatchObject({
      comment: long.slice(0, MAX_COMMENT_CHARS),
      'allowed-address': long,
      mtu: '1420',
    });
  });
});

describe('router records with a comment', () => {
  it(`read a comment to its first ${MAX_COMMENT_CHARS} characters, never splitting a surrogate pair, whether the record is copied or not`, () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\uD800', '\uDC00', '"', '\\'), maxLength: 2 * MAX_COMMENT_CHARS + 3 });
    fc.assert(
      fc.property(text, fc.boolean(), (comment, copied) => {
        const [record] = asRecordList([{ name: 'wg0', comment, ...(copied ? { mtu: 1420 } : {}) }], 'GET /rest/interface/wireguard/peers');
        const read = record?.['comment'] as string;
        expect(comment.startsWith(read)).toBe(true);
        if (comment.length <= MAX_COMMENT_CHARS) expect(read).toBe(comment);
        else {
          // One short where the last character kept would be a high surrogate (half of a pair).
          const splits = /[\uD800-\uDBFF]/.test(comment.charAt(MAX_COMMENT_CHARS - 1));
          expect(read.length).toBe(splits ? MAX_COMMENT_CHARS - 1 : MAX_COMMENT_CHARS);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keep no more of a long comment than they read (a slice of a string keeps the whole alive in V8)', () => {
    const before = heapAfterCollection();
    // Thirty peers with comments of 1 MiB, each a string of its own, as a parse makes them; the records are the
    // reply's own objects, checked in place, so its comments are held by nothing else.
    const reply = Array.from({ length: 30 }, (_, i) => JSON.parse(JSON.stringify({ name: `p${i}`, comment: `${i}`.padEnd(1 << 20, 'x') })) as unknown);
    const records = asRecordList(reply, 'GET /rest/interface/wireguard/peers');
    const kept = heapAfterCollection() - before;
    expect(records).toHaveLength(30);
    // 30 MiB when each kept comment is a view of its whole; ~30 KiB read.
    expect(kept).toBeLessThan(4 * 1024 * 1024);
  });
});
