/** JSON text in steps: exactly JSON.stringify's, in pieces, pausing inside long lists. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSteps } from '../../src/util/json-steps.js';
import { finish, finishInSlices } from '../../src/util/slices.js';

const text = (value: unknown, indent?: number): string => Buffer.concat(finish(jsonSteps(value, indent))).toString('utf8');

/** Values as a report holds them, and the odd ones JSON.stringify treats specially, in lists long and short. */
const values = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom('line\nbreak', '\u2028', '\ud800', 'x'.repeat(70)),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.constant(new Date(1_800_000_000_000)),
    fc.constant({ toJSON: () => ['from', 'toJSON'] }),
  ),
  list: fc.oneof(fc.array(tie('value'), { maxLength: 4 }), fc.array(tie('leaf'), { minLength: 60, maxLength: 140 })),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', '__proto__x', 'toJSON2')), tie('value'), { maxKeys: 5 }),
  value: fc.oneof({ maxDepth: 4 }, tie('leaf'), tie('list'), tie('object')),
}));

describe('jsonSteps', () => {
  it('property: writes what JSON.stringify writes, compact or indented, long lists and all', () => {
    fc.assert(
      fc.property(values.value, fc.constantFrom(0, 1, 2, 4, 10), (value, indent) => {
        expect(text(value, indent)).toBe(JSON.stringify(value, null, indent) ?? '');
      }),
      { numRuns: 400 },
    );
  });

  it('a report-shaped value: long lists of objects inside objects inside a list', () => {
    const peer = (i: number) => ({ name: `p${i}`, latestHandshake: i % 2 === 0 ? null : '2026-11-29T08:00:00.000Z', probe: undefined, healthy: true, age: i / 3 });
    const router = (r: number) => ({ name: `r${r}`, reasons: Array.from({ length: 70 }, (_, i) => `r${r}/p${i}: down`), peers: Array.from({ length: 300 }, (_, i) => peer(i)), interfaces: [] });
    const report = { status: 'critical', summary: 'x', routers: Array.from({ length: 80 }, (_, r) => router(r)) };
    expect(text(report, 2)).toBe(JSON.stringify(report, null, 2));
  });

  it('pauses inside a long list, however deep it hangs, in pieces of bounded size, and refuses a cycle as JSON.stringify does', async () => {
    // /health's shape: one router in a short list, its 20,000 peers under it (a first version wrote that in one step).
    const report = { status: 'ok', routers: [{ name: 'hq', peers: Array.from({ length: 20_000 }, (_, i) => ({ i, name: `peer-${i}` })) }] };
    let pauses = 0;
    const pieces = await finishInSlices(jsonSteps(report, 2), { budgetMs: 0, onPause: () => pauses++ });
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(20_000 / 256));
    expect(Buffer.concat(pieces).toString('utf8')).toBe(JSON.stringify(report, null, 2));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThan(3 * 64 * 1024);
    const cyclic: unknown[] = Array.from({ length: 100 }, () => 0);
    cyclic.push({ back: cyclic });
    expect(() => text(cyclic)).toThrow(TypeError);
    expect(() => JSON.stringify(cyclic)).toThrow(TypeError);
  });

  it('gives the event loop back while writing a large report: a timer fires before it ends', async () => {
    const peers = Array.from({ length: 200_000 }, (_, i) => ({ i, name: `peer-${i}`, healthy: i % 7 !== 0 }));
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 1);
    await finishInSlices(jsonSteps({ routers: [{ peers }] }, 2));
    order.push('written');
    expect(order).toEqual(['timer', 'written']);
  });

  it('reads each member once, and honours a list\'s toJSON, as JSON.stringify does (found by review)', () => {
    let reads = 0;
    const counted = {
      get a() {
        reads++;
        if (reads > 1) throw new Error('read twice');
        return reads;
      },
      b: [1, 2],
    };
    expect(text(counted, 2)).toBe('{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}');
    reads = 0;
    const flat = {
      get a() {
        reads++;
        return reads === 1 ? [] : 'second';
      },
    };
    expect(text({ x: flat }, 2)).toBe(JSON.stringify({ x: { a: [] } }, null, 2));
    const list = Object.assign([1, 2], { toJSON: () => 'from toJSON' });
    expect(text({ list, other: [list] }, 2)).toBe(JSON.stringify({ list, other: [list] }, null, 2));
  });

  it('writes nothing for undefined, and refuses an indent JSON.stringify would clip', () => {
    expect(finish(jsonSteps(undefined))).toEqual([]);
    expect(() => finish(jsonSteps({}, 11))).toThrow(RangeError);
  });
});
