import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  parseRouterBool,
  parseRouterDuration,
  parseRouterInteger,
  parseRouterList,
  parseRouterNumber,
  readRouterDuration,
  routerListHead,
  Unreadable,
} from '../../src/routeros/decode.js';
import { DecodeError } from '../../src/routeros/errors.js';
import { formatMicros } from '../../src/emulator/util/duration.js';

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
  // A value cut short is quoted with a count of what was left out after the `…`.
  expect(error.message).toContain(quoted.endsWith('…') ? JSON.stringify(quoted).slice(0, -1) : JSON.stringify(quoted));
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

/**
 * The unit form as a regular expression reads it: what the reader did before it read the form by hand (a match
 * made an array and a string per unit, per peer per run). The two must read every string alike.
 */
const UNIT_FORM = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?(?:(\d+)us)?$/;
const UNIT_MICROS = [604_800e6, 86_400e6, 3_600e6, 60e6, 1e6, 1e3, 1];

/** What the regular expression made of `text` in seconds, or undefined when it is not of the unit form. */
function unitFormSeconds(text: string): number | undefined {
  const match = UNIT_FORM.exec(text);
  if (match === null || text === '') return undefined;
  let micros = 0;
  UNIT_MICROS.forEach((unit, index) => {
    const digits = match[index + 1];
    if (digits !== undefined) micros += Number(digits) * unit;
  });
  return micros / 1e6;
}

describe('readRouterDuration reads the unit form as the regular expression does', () => {
  // The other forms, which a string not of the unit form may still be (read by regular expressions as before).
  const OTHER_FORMS = [/^(?:(\d+)w)?(?:(\d+)d ?)?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$/, /^(\d+)(?:\.(\d+))?$/];
  const UNITS = ['w', 'd', 'h', 'm', 's', 'ms', 'us'];
  const digits = fc.oneof(
    fc.integer({ min: 0, max: 10 ** 6 }).map(String),
    // Longer runs than a double holds exactly, leading zeros, and more than a double holds at all.
    fc.constantFrom('0', '00', '007', '7'.repeat(16), '9'.repeat(25), '1' + '0'.repeat(320)),
  );
  // The form itself (units in order), the form with units out of order, repeated or missing their digits, and
  // pieces of every form in any order.
  const ordered = fc.subarray(UNITS, { minLength: 1 }).chain((units) => fc.tuple(...units.map((unit) => digits.map((run) => run + unit))).map((parts) => parts.join('')));
  const shuffled = fc.array(fc.tuple(fc.option(digits, { nil: '' }), fc.constantFrom(...UNITS, 'u', 'x', '')), { maxLength: 6 }).map((parts) => parts.map(([run, unit]) => run + unit).join(''));
  const pieces = fc.array(fc.oneof(digits, fc.constantFrom(...UNITS, 'u', ':', '.', ' ', 'x', '')), { maxLength: 10 }).map((parts) => parts.join(''));

  it('the same seconds for every string of the form, unreadable or another form for every other', () => {
    let tried = 0;
    let unitForm = 0;
    fc.assert(
      fc.property(fc.oneof(ordered, shuffled, pieces), (text) => {
        tried += 1;
        const expected = unitFormSeconds(text);
        const read = readRouterDuration(text);
        if (expected === undefined) {
          // (A string of another form is read as before, this change aside; of none, it is unreadable.)
          if (!OTHER_FORMS.some((form) => form.test(text))) expect(read).toBeInstanceOf(Unreadable);
          return;
        }
        unitForm += 1;
        if (Number.isFinite(expected)) expect(read).toBe(expected);
        else expect(read).toBeInstanceOf(Unreadable);
      }),
      { numRuns: 3000 },
    );
    // The generator must reach the form often enough for the comparison to mean something.
    expect(unitForm).toBeGreaterThan(tried / 4);
    console.log(`decode: ${tried} strings near the unit form, ${unitForm} of it, read alike`);
  });

  it.each(['5ms', '1m5s', '1w2d3h4m5s6ms7us', '0s', '00000000000000000012s', '2m1ms', '1s1s', 'm', '5mus', '1us1ms', 's5', '5s '])('%j', (text) => {
    const expected = unitFormSeconds(text);
    const read = readRouterDuration(text);
    if (expected === undefined) expect(read).toBeInstanceOf(Unreadable);
    else expect(read).toBe(expected);
  });
});

// The exporter formats no durations; the emulator renders them as a router does. Its renderer is a separate
// implementation (the fence keeps the two apart), so reading what it writes checks one against the other.
describe('parseRouterDuration reads what the emulator renders', () => {
  it('round-trips whole microseconds', () => {
    let tried = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 15 }), (micros) => {
        tried += 1;
        expect(Math.round(parseRouterDuration(formatMicros(micros)) * 1e6)).toBe(micros);
      }),
      { numRuns: 500 },
    );
    console.log(`decode: ${tried} emulator-rendered durations read back`);
  });

  it('every canonical unit string is rendered back to itself', () => {
    const part = (max: number) => fc.option(fc.integer({ min: 1, max }), { nil: undefined });
    const parts = fc.tuple(part(5000), part(6), part(23), part(59), part(59), part(999), part(999));
    let tried = 0;
    fc.assert(
      fc.property(parts, (values) => {
        tried += 1;
        const units = ['w', 'd', 'h', 'm', 's', 'ms', 'us'];
        const text = values.map((v, i) => (v === undefined ? '' : `${v}${units[i]}`)).join('') || '0s';
        expect(formatMicros(Math.round(parseRouterDuration(text) * 1e6))).toBe(text);
      }),
      { numRuns: 500 },
    );
    console.log(`decode: ${tried} canonical duration strings re-rendered`);
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

  it('reads the head of any list as the whole list reads, no further than asked (a 30 MB list split whole took ~2 s)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', ' b ', '', '10.0.0.1/32', ' ', 'c d'), { maxLength: 60 }), fc.integer({ min: 0, max: 70 }), (parts, max) => {
        const text = parts.join(',');
        const whole = parseRouterList(text);
        const head = routerListHead(text, max);
        expect(whole.slice(0, head.items.length)).toEqual(head.items);
        if (!head.more) expect(head.items).toEqual(whole);
        // Without runs of empty pieces, exactly the first `max` items, and `more` says whether there were others.
        if (!parts.some((part) => part.trim() === '')) {
          expect(head.items).toEqual(whole.slice(0, max));
          expect(head.more).toBe(whole.length > max);
        }
      }),
      { numRuns: 1_000 },
    );
    const huge = Array.from({ length: 2_000_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`).join(',');
    const head = routerListHead(huge, 1_000);
    expect(head).toEqual({ items: parseRouterList(huge.slice(0, huge.indexOf(',10.0.3.232/32,'))), more: true });
    expect(head.items).toHaveLength(1_000);
    // A list of nothing but commas is bounded by pieces, not items.
    expect(routerListHead(','.repeat(1_000_000), 10)).toEqual({ items: [], more: true });
  });
});
