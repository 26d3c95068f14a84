/** Pure pieces: RouterOS durations, request JSON (octal/hex, no exponent), IP prefixes, sorted output. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestJson } from '../../src/emulator/rest/json-in.js';
import { toJson } from '../../src/emulator/rest/json-out.js';
import { formatMicros, formatSeconds, parseDurationMicros } from '../../src/emulator/util/duration.js';
import { formatPrefix, ipv4Network, networkPrefix, parsePrefix } from '../../src/emulator/util/ip.js';
import { seconds } from './helpers.js';

describe('durations', () => {
  it.each([
    [0, '0s'],
    [453, '453us'],
    [12_345, '12ms345us'],
    [1_500_000, '1s500ms'],
    [65_000_000, '1m5s'],
    [4_860_000_000, '1h21m'],
    [246_740_000_000, '2d20h32m20s'],
    [609_014_000_000, '1w1h10m14s'],
  ])('%d us → %s', (us, text) => {
    expect(formatMicros(us)).toBe(text);
  });

  it('formats whole seconds and round-trips through an independent parser', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (s) => {
        expect(seconds(formatSeconds(s))).toBe(s);
        expect(parseDurationMicros(formatSeconds(s))).toBe(s * 1_000_000);
      }),
    );
  });

  it.each([
    ['25', 25_000_000],
    ['0.5', 500_000],
    ['25s', 25_000_000],
    ['200ms', 200_000],
    ['1m30s', 90_000_000],
    ['00:00:25', 25_000_000],
    ['1d 00:00:00', 86_400_000_000],
    ['00:00:00.010', 10_000],
  ])('reads input %s', (text, us) => {
    expect(parseDurationMicros(text)).toBe(us);
  });

  it.each(['', 'soon', '5 s', '1x', 's'])('rejects %j', (text) => {
    expect(parseDurationMicros(text)).toBeUndefined();
  });
});

describe('request JSON', () => {
  it('reads decimal, leading-0 octal and 0x hex numbers; strings stay strings', () => {
    expect(parseRequestJson('{"a":10,"b":010,"c":0x1F,"d":"010","e":-7,"f":1.5,"g":0}')).toEqual({ a: 10, b: 8, c: 31, d: '010', e: -7, f: 1.5, g: 0 });
  });

  it.each(['{"a":1e3}', '{"a":1E-2}', '{"a":08}', '{"a":0x}', '{"a":01.5}', '{"a":1', '{"a":"x"}x', "{'a':1}", '{"a":tru}'])('rejects %s', (text) => {
    expect(() => parseRequestJson(text)).toThrow(/JSON parse error/);
  });

  it('keeps keys Object.prototype has as own properties, as JSON.parse does (a random test found `__proto__`)', () => {
    for (const text of ['{"__proto__":false}', '{"__proto__":{"a":1}}', '{"constructor":"x","toString":1,"hasOwnProperty":null}']) {
      const parsed = parseRequestJson(text) as Record<string, unknown>;
      expect(parsed).toEqual(JSON.parse(text));
      expect(Object.keys(parsed)).toEqual(Object.keys(JSON.parse(text) as object));
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    }
    // The class, not the three cases: any nesting of objects keyed by Object.prototype's names.
    const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'a');
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, fc.boolean(), fc.integer({ min: -9, max: 9 }), fc.string(), fc.dictionary(key, tie('tree'), { maxKeys: 4 })),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        const text = JSON.stringify(value);
        expect(JSON.stringify(parseRequestJson(text))).toBe(JSON.stringify(JSON.parse(text)));
      }),
    );
  });

  it('agrees with JSON.parse on standard JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // fast-check may produce numbers JSON.stringify writes with an exponent: RouterOS refuses those.
        if (/\d[eE][+-]?\d/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return;
        expect(parseRequestJson(text)).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe('IP prefixes', () => {
  it('defaults to a host prefix and derives the network', () => {
    const p = parsePrefix('192.168.88.7');
    expect(p && formatPrefix(p)).toBe('192.168.88.7/32');
    expect(ipv4Network(parsePrefix('192.168.88.7/24') ?? { family: 4, address: '', length: 0 })).toBe('192.168.88.0');
    expect(formatPrefix(networkPrefix(parsePrefix('10.1.2.3/0') ?? { family: 4, address: '', length: 0 }))).toBe('0.0.0.0/0');
    expect(parsePrefix('fd00::1')?.length).toBe(128);
    for (const bad of ['10.0.0.1/33', '300.1.1.1', 'host', '10.0.0.0/8/8', '10.0.0.1/x']) expect(parsePrefix(bad)).toBeUndefined();
  });
});

describe('output JSON', () => {
  it('sorts keys at any insertion order and keeps error numbers numeric', () => {
    expect(toJson({ message: 'Bad Request', error: 400, detail: 'x' })).toBe('{"detail":"x","error":400,"message":"Bad Request"}');
    expect(toJson([{ b: '1', a: '2' }, { '.id': '*1', a: '' }])).toBe('[{"a":"2","b":"1"},{".id":"*1","a":""}]');
  });
});
