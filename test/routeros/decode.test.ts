import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatRouterDuration,
  parseRequestNumber,
  parseRouterBool,
  parseRouterDuration,
  parseRouterInteger,
  parseRouterList,
  parseRouterNumber,
  parseRouterVersion,
} from '../../src/routeros/decode.js';
import { DecodeError } from '../../src/routeros/errors.js';

function expectDecodeError(run: () => unknown, quoted: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DecodeError);
  const error = caught as DecodeError;
  expect(error.code).toBe('ROS_ERR_DECODE');
  expect(error.reason).toBe('parse');
  expect(error.message).toContain(JSON.stringify(quoted));
}

describe('parseRouterDuration', () => {
  it.each<[string, number]>([
    ['1w2d3h4m5s', 604_800 + 2 * 86_400 + 3 * 3_600 + 4 * 60 + 5],
    ['2d20h12m20s', 2 * 86_400 + 20 * 3_600 + 12 * 60 + 20],
    ['1w1h10m14s', 604_800 + 3_600 + 600 + 14],
    ['4w2d', 4 * 604_800 + 2 * 86_400],
    ['1h21m', 3_600 + 21 * 60],
    ['2h', 7_200],
    ['1d', 86_400],
    ['9m59s', 599],
    ['14s', 14],
    ['0s', 0],
    ['0ms', 0],
    ['453us', 0.000453],
    ['61us', 0.000061],
    ['12ms345us', 0.012345],
    ['56ms639us', 0.056639],
    ['2ms90us', 0.00209],
    ['1s200ms', 1.2],
    ['1s500ms', 1.5],
    ['4s70ms', 4.07],
    ['5m', 300],
    ['5ms', 0.005],
    ['00:01:05', 65],
    ['01:22:53', 3_600 + 22 * 60 + 53],
    ['1d02:03:04', 86_400 + 2 * 3_600 + 3 * 60 + 4],
    ['1d 00:00:00', 86_400],
    ['4d22:16:08', 4 * 86_400 + 22 * 3_600 + 16 * 60 + 8],
    ['00:00:02.5', 2.5],
    ['2735w1d21:41:43.481891543', 2735 * 604_800 + 86_400 + 21 * 3_600 + 41 * 60 + 43.481892],
    ['25', 25],
    ['0', 0],
    ['0.12', 0.12],
  ])('%s → %d s', (text, seconds) => {
    expect(parseRouterDuration(text)).toBeCloseTo(seconds, 6);
  });

  it.each([
    '',
    ' ',
    'never',
    'immediately',
    'infinity',
    'none',
    'auto',
    '1x',
    '-5s',
    '-1',
    '5s5s',
    '1m1m',
    '5s1m',
    '1s1h',
    '3us2ms',
    '1.5s',
    's',
    'ms',
    '5 s',
    ' 5s',
    '5s ',
    '1e3',
    '5S',
    '5ns',
    'PT5S',
    '00:60:00',
    '00:00:60',
    '1d24:00:00',
    '1:2:3',
    '00:00',
    '.5',
    '5.',
    '9'.repeat(400) + 'w',
    '9'.repeat(400),
  ])('rejects %j', (text) => {
    expectDecodeError(() => parseRouterDuration(text), text.length > 64 ? text.slice(0, 64) + '…' : text);
  });

  it('never returns NaN or Infinity for any string', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          expect(Number.isFinite(parseRouterDuration(text))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(DecodeError);
        }
      }),
    );
  });
});

describe('formatRouterDuration', () => {
  it.each<[number, string]>([
    [0, '0s'],
    [0.0000004, '0s'],
    [14, '14s'],
    [65, '1m5s'],
    [4_860, '1h21m'],
    [245_540, '2d20h12m20s'],
    [604_800 + 2 * 86_400 + 3 * 3_600 + 4 * 60 + 5, '1w2d3h4m5s'],
    [1.5, '1s500ms'],
    [0.056639, '56ms639us'],
    [0.000453, '453us'],
    [0.00209, '2ms90us'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatRouterDuration(seconds)).toBe(text);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (seconds) => {
    expect(() => formatRouterDuration(seconds)).toThrow(RangeError);
  });

  it('round-trips whole microseconds through the parser', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 15 }), (micros) => {
        const text = formatRouterDuration(micros / 1e6);
        expect(Math.round(parseRouterDuration(text) * 1e6)).toBe(micros);
      }),
    );
  });

  it('re-formats every canonical unit string to itself', () => {
    const part = (max: number) => fc.option(fc.integer({ min: 1, max }), { nil: undefined });
    const parts = fc.tuple(part(5000), part(6), part(23), part(59), part(59), part(999), part(999));
    fc.assert(
      fc.property(parts, (values) => {
        const units = ['w', 'd', 'h', 'm', 's', 'ms', 'us'];
        const text = values.map((v, i) => (v === undefined ? '' : `${v}${units[i]}`)).join('') || '0s';
        expect(formatRouterDuration(parseRouterDuration(text))).toBe(text);
      }),
    );
  });
});

describe('parseRouterBool', () => {
  it.each<[string, boolean]>([
    ['true', true],
    ['yes', true],
    ['false', false],
    ['no', false],
  ])('%s → %s', (text, value) => {
    expect(parseRouterBool(text)).toBe(value);
  });

  it.each(['', 'TRUE', 'True', '1', '0', 'on', 'off', ' true', 'false '])('rejects %j', (text) => {
    expectDecodeError(() => parseRouterBool(text), text);
  });
});

describe('parseRouterInteger', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['-0', 0],
    ['1420', 1420],
    ['007', 7],
    ['8395000', 8_395_000],
    ['4294967296', 2 ** 32],
    ['23887557927', 23_887_557_927],
    ['9007199254740993', 9_007_199_254_740_992],
    ['18446744073709551615', 18_446_744_073_709_552_000],
    ['-300', -300],
  ])('%s → %d', (text, value) => {
    expect(Object.is(parseRouterInteger(text), value)).toBe(true);
  });

  it.each(['', ' ', '5.3KiB', '1e3', '1.5', '0x10', '+5', '1 000', ' 5', '5 ', '--5', 'NaN', 'Infinity', '9'.repeat(400)])(
    'rejects %j',
    (text) => {
      expectDecodeError(() => parseRouterInteger(text), text.length > 64 ? text.slice(0, 64) + '…' : text);
    },
  );
});

describe('parseRouterNumber', () => {
  it.each<[string, number]>([
    ['0.2', 0.2],
    ['42', 42],
    ['-3.5', -3.5],
    ['100', 100],
  ])('%s → %d', (text, value) => {
    expect(parseRouterNumber(text)).toBe(value);
  });

  it.each(['', '.5', '5.', '1e3', '5%', '864MHz', ' 1', '1,5', 'NaN'])('rejects %j', (text) => {
    expectDecodeError(() => parseRouterNumber(text), text);
  });
});

describe('parseRouterList', () => {
  it.each<[string, string[]]>([
    ['', []],
    ['0.0.0.0/0', ['0.0.0.0/0']],
    ['10.1.101.0/24,10.255.255.2/32', ['10.1.101.0/24', '10.255.255.2/32']],
    [' a , b ,,c,', ['a', 'b', 'c']],
    [',', []],
  ])('%j → %j', (text, items) => {
    expect(parseRouterList(text)).toEqual(items);
  });
});

describe('parseRouterVersion', () => {
  it.each([
    ['7.19.4 (stable)', { major: 7, minor: 19, patch: 4, channel: 'stable' }],
    ['7.10 (stable)', { major: 7, minor: 10, channel: 'stable' }],
    ['7.23.7 (long-term)', { major: 7, minor: 23, patch: 7, channel: 'long-term' }],
    ['7.1beta4 (development)', { major: 7, minor: 1, pre: 'beta4', channel: 'development' }],
    ['7.21rc2 (testing)', { major: 7, minor: 21, pre: 'rc2', channel: 'testing' }],
    ['7.16', { major: 7, minor: 16 }],
    ['7.16.1', { major: 7, minor: 16, patch: 1 }],
  ])('%s', (text, expected) => {
    expect(parseRouterVersion(text)).toEqual({ ...expected, text });
  });

  it.each(['', '7', 'v7.1', '7.x (stable)', '7.1 stable', '7.1 ()', 'RouterOS 7.1'])('rejects %j', (text) => {
    expectDecodeError(() => parseRouterVersion(text), text);
  });
});

describe('parseRequestNumber', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['4', 4],
    ['1500', 1500],
    ['-7', -7],
    ['0.5', 0.5],
    ['010', 8],
    ['0777', 511],
    ['0x10', 16],
    ['0XfF', 255],
    ['-0x10', -16],
  ])('%s → %d', (text, value) => {
    expect(parseRequestNumber(text)).toBe(value);
  });

  it('reads a quoted number as decimal, leading zero included', () => {
    expect(parseRequestNumber('010', { quoted: true })).toBe(10);
    expect(parseRequestNumber('4', { quoted: true })).toBe(4);
    expectDecodeError(() => parseRequestNumber('0x10', { quoted: true }), '0x10');
  });

  it.each(['', '1e3', '1E3', '08', '0x', '0xg', '1.', '.5', '+5', ' 5', '5 ', 'abc', '--1', '0b101', '1_000'])(
    'rejects %j',
    (text) => {
      expectDecodeError(() => parseRequestNumber(text), text);
    },
  );
});
