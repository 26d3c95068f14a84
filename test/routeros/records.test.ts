/**
 * Router records as the collectors get them (records.ts): every field of a reply keeps its key, whatever the key,
 * whether the record is passed on as it is (strings only) or copied with numbers and booleans as strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asRecordList } from '../../src/routeros/records.js';

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
