/**
 * The strict OpenMetrics parser used on our expositions must itself be right: it accepts the specification's
 * own examples and rejects each violation it claims to check, with the line and a reason.
 */
import { describe, expect, it } from 'vitest';
import { OpenMetricsError, parseOpenMetrics } from './openmetrics-parser.js';

/** Examples from the OpenMetrics 1.0 text format section (abridged), all valid. */
const SPEC_EXAMPLE = `# TYPE acme_http_router_request_seconds summary
# UNIT acme_http_router_request_seconds seconds
# HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.
acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32
acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0
acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0
acme_http_router_request_seconds_sum{path="/api/v2",method="POST"} 479.3
acme_http_router_request_seconds_count{path="/api/v2",method="POST"} 34.0
acme_http_router_request_seconds_created{path="/api/v2",method="POST"} 1605281325.0
# TYPE go_goroutines gauge
# HELP go_goroutines Number of goroutines that currently exist.
go_goroutines 69
# TYPE process_cpu_seconds counter
# UNIT process_cpu_seconds seconds
# HELP process_cpu_seconds Total user and system CPU time spent in seconds.
process_cpu_seconds_total 4.20072246e+06
# TYPE foo_seconds counter
# UNIT foo_seconds seconds
# HELP foo_seconds Some text and \\n some \\" escaping
foo_seconds_total{a="x",b="escaping\\" example \\n "} 0
foo_seconds_created{a="x",b="escaping\\" example \\n "} 1520430000.123
# TYPE bar info
bar_info{name="pretty name",version="8.2.7"} 1
# TYPE baz stateset
baz{entity="controller",baz="a"} 1.0
baz{entity="controller",baz="bb"} 0.0
# TYPE h histogram
h_bucket{le="0.0"} 0
h_bucket{le="1e-05"} 0
h_bucket{le="0.1"} 8 # {} 0.054
h_bucket{le="1"} 11 # {trace_id="KOO5S4vxi0o"} 0.67
h_bucket{le="10"} 17 # {trace_id="oHg5SJYRHA0"} 9.8 1520879607.789
h_bucket{le="+Inf"} 17
h_count 17
h_sum 324789.3
h_created 1520430000.123
# TYPE gh gaugehistogram
gh_bucket{le="0.01"} 20.0
gh_bucket{le="+Inf"} 42.0
gh_gcount 42.0
gh_gsum 3289.3
# TYPE s summary
s{quantile="0.95"} 123.7
s{quantile="0.99"} 150.0
# TYPE t gauge
t 17.0 1520879607.789
t_untyped_next NaN
odd_values{x=""} -Inf
# EOF
`;

/** A small valid exposition that each negative case below breaks in one way. */
const VALID = `# TYPE a_seconds gauge
# UNIT a_seconds seconds
# HELP a_seconds Help with \\"quotes\\", a \\\\ and a \\n.
a_seconds{x="1"} 1.5
a_seconds{x="2"} 2
# TYPE b counter
# HELP b A counter.
b_total{x="1"} 3
# TYPE c info
c_info{v="1"} 1
# EOF
`;

function reasonOf(body: string): string {
  try {
    parseOpenMetrics(body);
  } catch (error) {
    if (error instanceof OpenMetricsError) return error.message;
    throw error;
  }
  return 'accepted';
}

describe('the strict OpenMetrics parser', () => {
  it("accepts the specification's examples", () => {
    const families = parseOpenMetrics(SPEC_EXAMPLE);
    expect(families.map((family) => `${family.name}:${family.type}`)).toEqual([
      'acme_http_router_request_seconds:summary',
      'go_goroutines:gauge',
      'process_cpu_seconds:counter',
      'foo_seconds:counter',
      'bar:info',
      'baz:stateset',
      'h:histogram',
      'gh:gaugehistogram',
      's:summary',
      't:gauge',
      't_untyped_next:unknown',
      'odd_values:unknown',
    ]);
    const foo = families.find((family) => family.name === 'foo_seconds');
    expect(foo?.help).toBe('Some text and \n some " escaping');
    expect(foo?.unit).toBe('seconds');
    expect(foo?.samples[0]?.labels).toEqual({ a: 'x', b: 'escaping" example \n ' });
  });

  it('accepts the valid base of the negative cases, with or without the final line feed', () => {
    expect(reasonOf(VALID)).toBe('accepted');
    expect(reasonOf(VALID.slice(0, -1))).toBe('accepted');
  });

  // Each case: a description, the broken exposition, and a fragment of the expected reason.
  const cases: [string, string, string][] = [
    ['no # EOF', VALID.replace('# EOF\n', ''), 'missing # EOF'],
    ['content after # EOF', `${VALID}a_seconds{x="3"} 1\n`, 'after # EOF'],
    ['an empty line', VALID.replace('# TYPE b', '\n# TYPE b'), 'empty line'],
    ['a comment line', VALID.replace('# TYPE b', '# just a comment\n# TYPE b'), 'neither metadata'],
    ['a carriage return', VALID.replace('a_seconds{x="1"} 1.5\n', 'a_seconds{x="1"} 1.5\r\n'), 'carriage return'],
    ['a byte order mark', `\uFEFF${VALID}`, 'byte order mark'],
    ['a second TYPE', VALID.replace('# UNIT a_seconds', '# TYPE a_seconds gauge\n# UNIT a_seconds'), 'second # TYPE'],
    ['a second HELP', VALID.replace('# HELP b A counter.', '# HELP b A counter.\n# HELP b Again.'), 'second # HELP'],
    ['a second UNIT', VALID.replace('# UNIT a_seconds seconds', '# UNIT a_seconds seconds\n# UNIT a_seconds seconds'), 'second # UNIT'],
    ['metadata after samples', VALID.replace('b_total{x="1"} 3\n', 'b_total{x="1"} 3\n# HELP b Late.\n'), 'after its samples'],
    ['an unknown type', VALID.replace('# TYPE b counter', '# TYPE b untyped'), 'unknown type'],
    ['a unit that is not the name suffix', VALID.replace('# UNIT a_seconds seconds', '# UNIT a_seconds bytes'), 'not a suffix'],
    ['a unit without the underscore', VALID.replace(/a_seconds/g, 'aseconds'), 'not a suffix'],
    ['a unit on an info family', VALID.replace('# TYPE c info\nc_info', '# TYPE c_seconds info\n# UNIT c_seconds seconds\nc_seconds_info'), 'must not have a unit'],
    ['a unit on an info family, UNIT first', VALID.replace('# TYPE c info\nc_info', '# UNIT c_seconds seconds\n# TYPE c_seconds info\nc_seconds_info'), 'must not have a unit'],
    ['an unescaped " in HELP', VALID.replace('# HELP b A counter.', '# HELP b A "counter".'), 'unescaped double quote'],
    ['an undefined escape in HELP', VALID.replace('# HELP b A counter.', '# HELP b A \\counter.'), 'undefined escape'],
    ['an undefined escape in a label', VALID.replace('b_total{x="1"}', 'b_total{x="\\t"}'), 'undefined escape'],
    ['a raw " in a label value', VALID.replace('b_total{x="1"}', 'b_total{x="a"b"}'), 'expected "," or "}"'],
    ['an unterminated label value', VALID.replace('b_total{x="1"} 3', 'b_total{x="1} 3'), 'unterminated'],
    ['a trailing comma in labels', VALID.replace('b_total{x="1"}', 'b_total{x="1",}'), 'trailing comma'],
    ['a repeated label', VALID.replace('b_total{x="1"}', 'b_total{x="1",x="2"}'), 'repeated'],
    ['a reserved label name', VALID.replace('b_total{x="1"}', 'b_total{_x="1"}'), 'reserved'],
    ['a reserved family name', VALID.replace(/\bb\b/g, '_b').replace('b_total', '_b_total'), 'reserved'],
    ['a counter sample without _total', VALID.replace('b_total{x="1"} 3', 'b{x="1"} 3'), 'appears twice'],
    ['a counter family named with _total', VALID.replace(/# (TYPE|HELP) b /g, '# $1 b_total '), 'appears twice'],
    ['an info sample without _info', VALID.replace('c_info{v="1"} 1', 'c{v="1"} 1'), 'appears twice'],
    ['an info value other than 1', VALID.replace('c_info{v="1"} 1', 'c_info{v="1"} 2'), 'value 1'],
    ['a negative counter', VALID.replace('b_total{x="1"} 3', 'b_total{x="1"} -3'), 'non-negative'],
    ['a NaN counter', VALID.replace('b_total{x="1"} 3', 'b_total{x="1"} NaN'), 'non-negative'],
    ['interleaved families', VALID.replace('# EOF', 'a_seconds{x="3"} 1\n# EOF'), 'appears twice'],
    ['interleaved metrics', VALID.replace('b_total{x="1"} 3\n', 'b_total{x="1"} 3\nb_created{x="2"} 1\nb_created{x="1"} 1\n'), 'interleaved'],
    ['a duplicate series', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="1"} 2'), 'duplicate series'],
    ['a duplicate series with labels reordered', VALID.replace('c_info{v="1"} 1', 'c_info{v="1",w="2"} 1\nc_info{w="2",v="1"} 1'), 'duplicate series'],
    ['clashing sample names', VALID.replace('# TYPE c info\nc_info{v="1"} 1', '# TYPE b_total gauge\nb_total 1'), 'clashes with b'],
    ['a value that is not a number', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="2"} 0x10'), 'not a number'],
    ['a value with a comma', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="2"} 2,5'), 'not a number'],
    ['two spaces before the value', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="2"}  2'), 'not a number'],
    ['a bad timestamp', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="2"} 2 soon'), 'invalid timestamp'],
    ['an exemplar on a gauge', VALID.replace('a_seconds{x="2"} 2', 'a_seconds{x="2"} 2 # {t="1"} 1'), 'exemplar on'],
    ['a HELP without a value', VALID.replace('# HELP b A counter.', '# HELP b'), 'without a value'],
    ['a histogram bucket without le', '# TYPE h histogram\nh_bucket 1\n# EOF\n', 'without le'],
    ['histogram buckets out of order', '# TYPE h histogram\nh_bucket{le="2"} 1\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\n# EOF\n', 'increasing order'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="2"} 1\nh_count 1\n# EOF\n', 'before the +Inf bucket'],
    ['a histogram count unlike +Inf', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 1\n# EOF\n', 'differs'],
    ['a fractional bucket count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1.5\n# EOF\n', 'integer'],
  ];

  it.each(cases)('rejects %s', (_name, body, reason) => {
    let error: unknown;
    try {
      parseOpenMetrics(body);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OpenMetricsError);
    expect((error as Error).message).toContain(reason);
    expect((error as OpenMetricsError).line).toBeGreaterThan(0);
  });

  it('rejects invalid UTF-8', () => {
    const body = Buffer.concat([Buffer.from('# TYPE a gauge\na{x="'), Buffer.from([0xff]), Buffer.from('"} 1\n# EOF\n')]);
    expect(() => parseOpenMetrics(body)).toThrow('not valid UTF-8');
  });
});
