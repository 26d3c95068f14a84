/**
 * /metrics and /health answer with the format and coding src/metrics/negotiate.ts picks, headers as a scraper
 * or curl sends them (the rules themselves are proven in test/metrics/negotiate.test.ts).
 */
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_TYPES } from '../../src/metrics/negotiate.js';
import { startExporter, type Exporter } from './exporter.js';

let exporter: Exporter;
beforeAll(async () => {
  exporter = await startExporter();
});
afterAll(async () => exporter.close());

/** The raw answer's headers: node:http does not inflate or add an Accept-Encoding of its own (fetch would). */
function headersOf(path: string, headers: Record<string, string>): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: exporter.port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    }).on('error', reject);
  });
}

describe('negotiation over HTTP', () => {
  it.each([
    ['text/plain;q=0, */*', CONTENT_TYPES.openmetrics],
    // Text 1.0.0 is rated 0.9 by */* here: above OpenMetrics, and the same body as 0.0.4.
    ['text/plain;version=0.0.4;q=0.2, */*;q=0.9, application/openmetrics-text;q=0.5', 'text/plain; version=1.0.0; charset=utf-8'],
    // Prometheus 3 with PrometheusText1.0.0 first in scrape_protocols (it was answered OpenMetrics).
    ['text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2', 'text/plain; version=1.0.0; charset=utf-8'],
    ['*/*', CONTENT_TYPES.text],
    ['text/plain;q=0, application/openmetrics-text;q=0', CONTENT_TYPES.text],
  ])('/metrics with Accept %j is %s', async (accept, contentType) => {
    expect((await headersOf('/metrics', { accept }))['content-type']).toBe(contentType);
  });

  it.each([
    ['gzip', 'gzip'],
    ['*', 'gzip'],
    ['gzip;q=0, *', undefined],
    ['gzip;Q=0', undefined],
    ['identity;q=0', undefined],
  ])('/metrics with Accept-Encoding %j is coded %s', async (acceptEncoding, coding) => {
    expect((await headersOf('/metrics', { 'accept-encoding': acceptEncoding }))['content-encoding']).toBe(coding);
  });
});
