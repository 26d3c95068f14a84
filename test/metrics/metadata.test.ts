/** Family metadata per format: names, types, units and HELP escaping (src/metrics/metadata.ts). */
import { describe, expect, it } from 'vitest';
import { metadataLines, openMetricsMetadata, unitOf } from '../../src/metrics/metadata.js';
import { parseOpenMetrics } from './openmetrics-parser.js';

describe('metadataLines', () => {
  it('text 0.0.4: HELP then TYPE under the sample name, info as gauge, quotes left as they are', () => {
    expect(metadataLines('foo_info', 'info', 'Says "hi" \\ and\nmore.', 'text')).toBe(
      '# HELP foo_info Says "hi" \\\\ and\\nmore.\n# TYPE foo_info gauge\n',
    );
    expect(metadataLines('foo_bytes_total', 'counter', 'Bytes.', 'text')).toBe('# HELP foo_bytes_total Bytes.\n# TYPE foo_bytes_total counter\n');
  });

  it('OpenMetrics: TYPE, UNIT, HELP under the family name, HELP escaped as a string', () => {
    expect(metadataLines('foo_bytes_total', 'counter', 'Says "hi".', 'openmetrics')).toBe(
      '# TYPE foo_bytes counter\n# UNIT foo_bytes bytes\n# HELP foo_bytes Says \\"hi\\".\n',
    );
    expect(metadataLines('foo_info', 'info', 'x', 'openmetrics')).toBe('# TYPE foo info\n# HELP foo x\n');
    expect(metadataLines('foo_count', 'gauge', 'x', 'openmetrics')).toBe('# TYPE foo_count gauge\n# HELP foo_count x\n');
  });
});

describe('unitOf', () => {
  it.each([
    ['a_seconds', 'gauge', 'seconds'],
    ['a_timestamp_seconds', 'gauge', 'seconds'],
    ['a_bytes', 'counter', 'bytes'],
    ['a_bytes_per_second', 'gauge', 'bytes_per_second'],
    ['a_load_ratio', 'gauge', 'ratio'],
    ['a_temperature_celsius', 'gauge', 'celsius'],
    ['a_voltage_volts', 'gauge', 'volts'],
    ['a_frequency_hertz', 'gauge', 'hertz'],
    ['a_cores', 'gauge', ''],
    ['a_lost_packets', 'gauge', ''],
    ['abytes', 'gauge', ''],
    ['a_seconds', 'info', ''],
  ] as const)('%s (%s) → %j', (name, type, unit) => {
    expect(unitOf(name, type)).toBe(unit);
  });
});

describe("openMetricsMetadata (prom-client's OpenMetrics output made exact)", () => {
  const PROM_CLIENT = [
    '# HELP app_cpu_seconds Total CPU time, "user" + system, a \\\\ and a \\n.',
    '# TYPE app_cpu_seconds counter',
    'app_cpu_seconds_total 1.5',
    '# HELP app_build_info Build.',
    '# TYPE app_build_info gauge',
    'app_build_info{version="1"} 1',
    '# HELP app_gc_duration_seconds GC.',
    '# TYPE app_gc_duration_seconds histogram',
    'app_gc_duration_seconds_bucket{le="0.1",kind="minor"} 1',
    'app_gc_duration_seconds_bucket{le="+Inf",kind="minor"} 2',
    'app_gc_duration_seconds_sum{kind="minor"} 0.3',
    'app_gc_duration_seconds_count{kind="minor"} 2',
    '# HELP app_open_fds Open files.',
    '# TYPE app_open_fds gauge',
    'app_open_fds 7',
    '',
  ].join('\n');

  it('adds UNIT, types *_info gauges as info and escapes HELP; samples unchanged; the result parses strictly', () => {
    const out = openMetricsMetadata(PROM_CLIENT);
    expect(out).toContain('# TYPE app_cpu_seconds counter\n# UNIT app_cpu_seconds seconds\n# HELP app_cpu_seconds Total CPU time, \\"user\\" + system, a \\\\ and a \\n.\n');
    expect(out).toContain('# TYPE app_build info\n# HELP app_build Build.\napp_build_info{version="1"} 1\n');
    expect(out).toContain('# TYPE app_gc_duration_seconds histogram\n# UNIT app_gc_duration_seconds seconds\n');
    expect(out).toContain('# TYPE app_open_fds gauge\n# HELP app_open_fds Open files.\napp_open_fds 7\n');
    const samples = (text: string): string[] => text.split('\n').filter((line) => !line.startsWith('#'));
    expect(samples(out)).toEqual(samples(PROM_CLIENT));
    const families = parseOpenMetrics(`${out}# EOF\n`);
    expect(families.find((family) => family.name === 'app_cpu_seconds')?.help).toBe('Total CPU time, "user" + system, a \\ and a \n.');
  });

  it('leaves a type it does not know as it came', () => {
    expect(openMetricsMetadata('# HELP a_x X.\n# TYPE a_x stateset\na_x{a_x="on"} 1\n')).toBe('# HELP a_x X.\n# TYPE a_x stateset\na_x{a_x="on"} 1\n');
  });
});
