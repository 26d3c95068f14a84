import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, CONTENT_TYPES, contentTypeFor, MAX_LIST_MEMBERS, negotiateFormat } from '../../src/metrics/negotiate.js';
import { escapeLabelValue, formatValue, MAX_LABEL_VALUE_CHARS } from '../../src/metrics/text.js';

describe('content negotiation', () => {
  it.each([
    [undefined, 'text'],
    ['', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    // Prometheus 2.x default scrape Accept header
    ['application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    ['application/openmetrics-text; version=1.0.0; q=0.2, text/plain; q=0.9', 'text'],
    ['application/openmetrics-text;version=2.0.0', 'text'],
    ['application/openmetrics-text;q=0', 'text'],
    ['application/openmetrics-text', 'openmetrics'],
    ['text/plain;version=0.0.4;q=0.5,application/openmetrics-text;version=0.0.1;q=0.6', 'openmetrics'],
    // Prometheus 3's default, with escaping= (ignored: our names are the same under every scheme) and text 1.0.0
    // (not ours: skipped, as is protobuf).
    [
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,application/openmetrics-text;version=0.0.1;q=0.3,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.2,text/plain;version=0.0.4;q=0.1,*/*;q=0.05',
      'openmetrics',
    ],
    // The most specific range sets a type's quality (RFC 9110 §12.5.1): text is refused, */* allows OpenMetrics.
    ['text/plain;q=0, */*', 'openmetrics'],
    // Text 1.0.0 (the same body) is rated by */* or text/plain here, above OpenMetrics.
    ['text/plain;version=0.0.4;q=0.2, */*;q=0.9, application/openmetrics-text;q=0.5', 'text'],
    ['text/plain;version=0.0.4;q=0, text/plain;q=1, application/openmetrics-text;q=0.5', 'text'],
    ['text/plain;version=0.0.4;q=0.2, text/plain;version=1.0.0;q=0.1, */*;q=0.9, application/openmetrics-text;q=0.5', 'openmetrics'],
    ['text/*;q=0.1, application/*;q=0.3', 'openmetrics'],
    ['application/*', 'openmetrics'],
    // Prometheus 3 with PrometheusText1.0.0 first in scrape_protocols: text, as it prefers (it got OpenMetrics).
    ['text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2', 'text'],
    ['text/plain;version=1.0.0, application/openmetrics-text;q=0.1', 'text'],
    ['text/plain;version=1.0.0;q=0, text/plain;version=0.0.4;q=0, application/openmetrics-text;q=0.1', 'openmetrics'],
    ['TEXT/Plain;Q=0, Application/OpenMetrics-Text;Version="1.0.0";q=0.1', 'openmetrics'],
    ['application/openmetrics-text;version=1.0.0;q=0, */*;q=0.5', 'text'],
    ['application/openmetrics-text;q=0, text/plain;q=0.5, */*', 'text'],
    // Nothing acceptable: text anyway, rather than 406 (RFC 9110 §12.1 lets a server disregard the header).
    ['text/plain;q=0, application/openmetrics-text;q=0', 'text'],
    ['*/*;q=0', 'text'],
    ['application/json', 'text'],
    // A qvalue is a plain decimal from 0 to 1: other spellings Number() reads as 1 do not make a member acceptable.
    ['application/openmetrics-text;q=0x1, text/plain;q=0.9', 'text'],
    ['application/openmetrics-text;q=1e0, text/plain;q=0.9', 'text'],
    ['application/openmetrics-text;q=+1, text/plain;q=0.9', 'text'],
    ['application/openmetrics-text;q=2, text/plain;q=0.9', 'text'],
    ['application/openmetrics-text;q=1.000, text/plain;q=0.9', 'openmetrics'],
    ['application/openmetrics-text;q="0.95", text/plain;q=0.9', 'openmetrics'],
  ] as const)('Accept %j → %s', (accept, expected) => {
    expect(negotiateFormat(accept)).toBe(expected);
  });

  it.each([
    [undefined, false],
    ['gzip', true],
    ['deflate, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['br', false],
    ['*', true],
    // `*` is every coding not listed elsewhere (RFC 9110 §12.5.3): gzip's own refusal stands.
    ['gzip;q=0, *', false],
    ['x-gzip;q=0, *', false],
    ['*;q=0, gzip', true],
    ['*;q=0', false],
    ['x-gzip', true],
    // Parameter names are case-insensitive; whitespace around `;` is allowed (and tolerated around `=`).
    ['gzip;Q=0', false],
    ['gzip ; q=0', false],
    ['gzip;q = 0', false],
    ['GZIP;q=0.001', true],
    ['gzip;q=0.5, gzip;q=0', false],
    // Identity refused too: gzip still only if accepted, else the identity body anyway (RFC 9110 §12.1).
    ['identity;q=0', false],
    ['gzip, identity;q=0', true],
    ['', false],
    ['gzip;q=0x1', false],
    ['gzip;q=0b1', false],
    ['gzip;q=1.', true],
    ['gzip;q=0.0005', true],
  ] as const)('Accept-Encoding %j → gzip %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('found by review', () => {
  it('answers OpenMetrics in the version the client rates higher: 0.0.1 to a client that accepts only it, 1.0.0 on a tie', () => {
    const OM_0_0_1 = 'application/openmetrics-text; version=0.0.1; charset=utf-8';
    expect(contentTypeFor('application/openmetrics-text;version=0.0.1', 'openmetrics')).toBe(OM_0_0_1);
    expect(contentTypeFor('application/openmetrics-text;version=1.0.0;q=0, application/openmetrics-text;version=0.0.1', 'openmetrics')).toBe(OM_0_0_1);
    // Prometheus' own Accept rates 1.0.0 higher; an unversioned range takes both alike.
    expect(contentTypeFor('application/openmetrics-text;version=1.0.0;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1', 'openmetrics')).toBe(CONTENT_TYPES.openmetrics);
    expect(contentTypeFor('application/openmetrics-text', 'openmetrics')).toBe(CONTENT_TYPES.openmetrics);
    expect(contentTypeFor('application/openmetrics-text;version=0.0.1', 'text')).toBe(CONTENT_TYPES.text);
  });

  it('answers text in the version the client rates higher: 1.0.0 when above 0.0.4, 0.0.4 on a tie (OpenMetrics was chosen)', () => {
    const TEXT_1_0_0 = 'text/plain; version=1.0.0; charset=utf-8';
    const prometheus3TextFirst = 'text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
    expect(negotiateFormat(prometheus3TextFirst)).toBe('text');
    expect(contentTypeFor(prometheus3TextFirst, 'text')).toBe(TEXT_1_0_0);
    expect(contentTypeFor('text/plain;version=1.0.0', 'text')).toBe(TEXT_1_0_0);
    expect(contentTypeFor('text/plain', 'text')).toBe(CONTENT_TYPES.text);
    expect(contentTypeFor('*/*', 'text')).toBe(CONTENT_TYPES.text);
    expect(contentTypeFor('text/plain;version=0.0.4;q=0.5,text/plain;version=1.0.0;q=0.4', 'text')).toBe(CONTENT_TYPES.text);
  });

  it('a quoted parameter may hold commas and semicolons: they split nothing', () => {
    expect(negotiateFormat('application/openmetrics-text;foo="a,b";q=0.1, text/plain;q=0.5')).toBe('text');
    expect(negotiateFormat('text/plain;foo="x;q=1,y";q=0.1, application/openmetrics-text;q=0.5')).toBe('openmetrics');
    expect(negotiateFormat('text/plain;foo="a\\"b,c";q=0.1, application/openmetrics-text;q=0.5')).toBe('openmetrics');
    expect(acceptsGzip('gzip;foo="a,*";q=0')).toBe(false);
  });

  it('a quote never closed quotes nothing, and a q after many parameters still counts (review of the change)', () => {
    expect(negotiateFormat('application/openmetrics-text;version=1.0.0;q=0.5;x="unterminated, text/plain;q=0.9')).toBe('text');
    expect(acceptsGzip('br;x="a, gzip')).toBe(true);
    expect(negotiateFormat('text/plain;x="a;q=0, application/openmetrics-text;q=0.5')).toBe('openmetrics');
    expect(negotiateFormat('application/openmetrics-text;q=0.5;x="a;b')).toBe('openmetrics');
    const many = Array.from({ length: 70 }, (_, i) => `p${i}=1`).join(';');
    expect(negotiateFormat(`text/plain;${many};q=0, application/openmetrics-text;q=0.5`)).toBe('openmetrics');
  });
});

describe('hostile headers', () => {
  const KB64 = 64 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(KB64 / unit.length)).slice(0, KB64);
  it.each([
    ['thousands of members', fill('text/plain;q=0,')],
    ['empty members', fill(',')],
    ['one member, thousands of parameters', 'application/openmetrics-text' + fill(';version=1.0.0')],
    ['one long parameter value', `text/plain;q=${fill('0')}`],
    ['an unterminated quote', `application/openmetrics-text;version="${fill('1')}`],
    ['separators only', fill(';=,"')],
  ])('64 KB of %s: answered in linear time, without throwing', (_name, header) => {
    const started = performance.now();
    expect(['text', 'openmetrics']).toContain(negotiateFormat(header));
    expect(typeof acceptsGzip(header)).toBe('boolean');
    // Linear is well under a millisecond per header here; quadratic in 64 KB would take seconds.
    expect(performance.now() - started).toBeLessThan(250);
  });

  it(`reads only the first ${MAX_LIST_MEMBERS} members, so a header's length does not set the work`, () => {
    const padding = (n: number): string => 'x/y,'.repeat(n);
    expect(negotiateFormat(padding(MAX_LIST_MEMBERS - 1) + 'application/openmetrics-text')).toBe('openmetrics');
    expect(negotiateFormat(padding(MAX_LIST_MEMBERS) + 'application/openmetrics-text')).toBe('text');
    expect(acceptsGzip(padding(MAX_LIST_MEMBERS - 1) + 'gzip')).toBe(true);
    expect(acceptsGzip(padding(MAX_LIST_MEMBERS) + 'gzip')).toBe(false);
  });

  it('any string gets an answer', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '/', '*', ',', ';', '=', '"', ' ', 'q', '0', '.', '1', 'gzip', 'text/plain', 'application/openmetrics-text', 'version') }), (header) => {
        expect(['text', 'openmetrics']).toContain(negotiateFormat(header));
        expect(typeof acceptsGzip(header)).toBe('boolean');
      }),
    );
  });
});

describe('exposition text', () => {
  it.each([
    ['plain', 'plain'],
    ['a"b', 'a\\"b'],
    ['a\\b', 'a\\\\b'],
    ['a\nb', 'a\\nb'],
    ['esc\x1b[0m', 'esc\uFFFD[0m'],
    ['Zürich ✓', 'Zürich ✓'],
  ])('escapes %j', (value, expected) => {
    expect(escapeLabelValue(value)).toBe(expected);
  });

  it(`shortens a value over ${MAX_LABEL_VALUE_CHARS} characters to its start, … and a digest: bounded, stable, distinct`, () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: MAX_LABEL_VALUE_CHARS + 1, max: 50_000 }), fc.string({ minLength: 1, maxLength: 8 }), (unit, length, tail) => {
        const long = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
        const written = escapeLabelValue(long);
        // Escaping at most doubles a character; the digest keeps it apart from a value with the same start.
        expect(written.length).toBeLessThanOrEqual(2 * MAX_LABEL_VALUE_CHARS);
        expect(written).toMatch(/…[0-9a-f]{16}$/);
        expect(escapeLabelValue(long)).toBe(written);
        expect(escapeLabelValue(long + tail)).not.toBe(written);
        expect(written.startsWith(escapeLabelValue(long.slice(0, 64)).slice(0, 32))).toBe(true);
      }),
      { numRuns: 200 },
    );
    const exact = 'x'.repeat(MAX_LABEL_VALUE_CHARS);
    expect(escapeLabelValue(exact)).toBe(exact);
  });

  it.each([
    [1, '1'],
    [0.25, '0.25'],
    [58834536231, '58834536231'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('formats %s', (value, expected) => {
    expect(formatValue(value)).toBe(expected);
  });
});

/**
 * The rules as a reference, written from RFC 9110 rather than from src: a representation's quality is that of
 * the most specific media range matching it (§12.5.1; the best of equally specific ones, which differ only in
 * parameters we ignore), 0 when none does. OpenMetrics is served only when rated above text.
 */
interface RangeSpec {
  type: string;
  subtype: string;
  version: string | undefined;
  escaping: string | undefined;
  q: number | undefined;
}

const OURS = [
  { format: 'text', type: 'text', subtype: 'plain', version: '0.0.4' },
  { format: 'text', type: 'text', subtype: 'plain', version: '1.0.0' },
  { format: 'openmetrics', type: 'application', subtype: 'openmetrics-text', version: '1.0.0' },
  { format: 'openmetrics', type: 'application', subtype: 'openmetrics-text', version: '0.0.1' },
] as const;

function referenceFormat(ranges: readonly RangeSpec[]): 'text' | 'openmetrics' {
  const qualityOf = (ours: (typeof OURS)[number]): number => {
    const matching = ranges.filter(
      (range) =>
        (range.type === '*' || range.type === ours.type) &&
        (range.subtype === '*' || (range.type === ours.type && range.subtype === ours.subtype)) &&
        (range.version === undefined || range.version === ours.version),
    );
    if (matching.length === 0) return 0;
    const specificityOf = (range: RangeSpec): number =>
      (range.type === '*' ? 0 : 1) + (range.subtype === '*' ? 0 : 1) + (range.version === undefined ? 0 : 1);
    const most = Math.max(...matching.map(specificityOf));
    return Math.max(...matching.filter((range) => specificityOf(range) === most).map((range) => range.q ?? 1));
  };
  const text = Math.max(qualityOf(OURS[0]), qualityOf(OURS[1]));
  const openmetrics = Math.max(qualityOf(OURS[2]), qualityOf(OURS[3]));
  return openmetrics > text ? 'openmetrics' : 'text';
}

/** The same letters in any case: type, subtype and parameter names are case-insensitive. */
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) =>
    [...word].map((char, i) => (upper[i] === true ? char.toUpperCase() : char)).join(''),
  );
/** Optional whitespace, which the grammar allows around `;` and `,`. */
const ows = fc.constantFrom('', ' ', '  ', '\t');
/** A qvalue as the grammar spells it (0, 0.5, 0.125, 1, 1.000), with its number. */
const qvalue = fc.oneof(
  fc.integer({ min: 0, max: 999 }).chain((n) =>
    fc.constantFrom(...new Set([String(n / 1000), (n / 1000).toFixed(3)])).map((spelled) => ({ spelled, q: n / 1000 })),
  ),
  fc.constantFrom({ spelled: '1', q: 1 }, { spelled: '1.0', q: 1 }, { spelled: '1.000', q: 1 }, { spelled: '0', q: 0 }),
);

const rangeSpec: fc.Arbitrary<{ spec: RangeSpec; spelled: fc.Arbitrary<string> }> = fc
  .record({
    kind: fc.constantFrom('*/*', 'text/*', 'application/*', 'text/plain', 'application/openmetrics-text', 'text/html', 'application/json', 'image/*'),
    version: fc.constantFrom(undefined, '0.0.4', '1.0.0', '0.0.1', '2.0.0'),
    escaping: fc.constantFrom(undefined, 'allow-utf-8', 'underscores'),
    weight: fc.option(qvalue, { nil: undefined }),
  })
  .map(({ kind, version, escaping, weight }) => {
    const [type = '', subtype = ''] = kind.split('/');
    const spec: RangeSpec = { type, subtype, version, escaping, q: weight?.q };
    const param = (name: string, value: string): fc.Arbitrary<string> =>
      fc.tuple(ows, anyCase(name), ows, fc.boolean()).map(([space, key, after, quoted]) => `${space};${after}${key}=${quoted ? `"${value}"` : value}`);
    const parts: fc.Arbitrary<string>[] = [anyCase(kind)];
    if (version !== undefined) parts.push(param('version', version));
    if (escaping !== undefined) parts.push(param('escaping', escaping));
    // q comes last: it separates a media type's own parameters from the weight.
    if (weight !== undefined) parts.push(fc.tuple(ows, anyCase('q'), ows).map(([space, q, after]) => `${space};${after}${q}=${weight.spelled}`));
    return { spec, spelled: fc.tuple(...parts).map((spelledParts) => spelledParts.join('')) };
  });

const acceptHeader = fc
  .array(rangeSpec, { minLength: 1, maxLength: 8 })
  .chain((ranges) =>
    fc
      .tuple(...ranges.map((range) => fc.tuple(range.spelled, ows, ows)))
      .map((spelled) => ({ specs: ranges.map((range) => range.spec), header: spelled.map(([text, before, after]) => `${before}${text}${after}`).join(',') })),
  );

interface CodingSpec {
  coding: string;
  q: number | undefined;
}

/**
 * RFC 9110 §12.5.3 as a reference: gzip (x-gzip is the same coding) is acceptable when listed with q > 0; when it
 * is not listed, `*` decides; a coding listed twice counts as refused if either listing refuses it.
 */
function referenceGzip(codings: readonly CodingSpec[]): boolean {
  const weights = (names: readonly string[]): number[] => codings.filter((c) => names.includes(c.coding)).map((c) => c.q ?? 1);
  const gzip = weights(['gzip', 'x-gzip']);
  if (gzip.length > 0) return gzip.every((q) => q > 0);
  const any = weights(['*']);
  return any.length > 0 && any.every((q) => q > 0);
}

const acceptEncodingHeader = fc
  .array(fc.record({ coding: fc.constantFrom('gzip', 'x-gzip', '*', 'identity', 'deflate', 'br', 'zstd'), weight: fc.option(qvalue, { nil: undefined }) }), {
    minLength: 1,
    maxLength: 6,
  })
  .chain((members) =>
    fc
      .tuple(
        ...members.map(({ coding, weight }) =>
          fc
            .tuple(ows, anyCase(coding), ows, ows, anyCase('q'), ows)
            .map(([before, name, space, after, q, end]) => `${before}${name}${weight === undefined ? '' : `${space};${after}${q}=${weight.spelled}`}${end}`),
        ),
      )
      .map((spelled) => ({ specs: members.map(({ coding, weight }): CodingSpec => ({ coding, q: weight?.q })), header: spelled.join(',') })),
  );

describe('content negotiation against RFC 9110', () => {
  it('Accept-Encoding: gzip only when its own listing, or else `*`, accepts it', () => {
    fc.assert(
      fc.property(acceptEncodingHeader, ({ specs, header }) => {
        expect(acceptsGzip(header)).toBe(referenceGzip(specs));
      }),
      { numRuns: 2000 },
    );
  });

  it('Accept: the format served is the one the most specific ranges rate higher, text on a tie', () => {
    fc.assert(
      fc.property(acceptHeader, ({ specs, header }) => {
        expect(negotiateFormat(header)).toBe(referenceFormat(specs));
      }),
      { numRuns: 2000 },
    );
  });
});
