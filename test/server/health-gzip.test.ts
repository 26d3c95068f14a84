/** GET /health is gzip-compressed when the client accepts gzip (tens of MB of JSON at tens of thousands of peers). */
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExporter, type Exporter } from './exporter.js';

let exporter: Exporter;
beforeAll(async () => {
  exporter = await startExporter({ routers: 40 });
});
afterAll(async () => exporter.close());

/** The raw answer: node:http does not inflate (fetch would, silently). */
function health(acceptEncoding: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: exporter.port, path: '/health', headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('GET /health', () => {
  it('is gzip-compressed when the client accepts gzip, and inflates to the plain answer', async () => {
    const plain = await health('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const compressed = await health('gzip, deflate');
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toBe('Accept-Encoding');
    expect(compressed.body.length).toBeLessThan(plain.body.length / 4);
    const inflated = JSON.parse(gunzipSync(compressed.body).toString('utf8')) as { routers: unknown[] };
    const expected = JSON.parse(plain.body.toString('utf8')) as { routers: unknown[] };
    expect(inflated.routers).toHaveLength(40);
    expect(inflated.routers).toEqual(expected.routers);
  });

  it('stays plain when gzip is refused (q=0)', async () => {
    expect((await health('gzip;q=0')).headers['content-encoding']).toBeUndefined();
  });

  it.each(['gzip;q=0, *', 'gzip;Q=0', 'gzip ; q=0'])('stays plain when gzip is refused as %j, though the body is worth compressing', async (header) => {
    // `*` alone compresses this very body, so plain here is the refusal, not the size threshold.
    expect((await health('*')).headers['content-encoding']).toBe('gzip');
    expect((await health(header)).headers['content-encoding']).toBeUndefined();
  });
});
