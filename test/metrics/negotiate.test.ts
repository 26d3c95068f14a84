import { describe, expect, it } from 'vitest';
import { acceptsGzip, negotiateFormat } from '../../src/metrics/negotiate.js';
import { escapeLabelValue, formatValue } from '../../src/metrics/text.js';

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
  ] as const)('Accept-Encoding %j → gzip %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
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
