/**
 * GET /health of a large router is judged and written in slices: a hub of 75,000 peers held the event loop
 * 1.3 s per request (judging 0.5–0.7 s, JSON.stringify 0.3 s, its Buffer 0.4 s), every scrape and collection
 * waiting behind it. The answer is the same; a timer fires before its first byte; a client that leaves stops it.
 */
import { EventEmitter } from 'node:events';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRouters } from '../../src/health/report.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { serveHealth } from '../../src/server/health-route.js';
import { whileConnected } from '../../src/server/respond.js';
import type { Steps } from '../../src/util/slices.js';
import { testRouter } from '../helpers/config.js';
import { peerRecord, SITE_LINKS, systemOk, T0, WG_UP, wireguard } from '../health/snapshots.js';

const router = testRouter({}, SITE_LINKS);
const peers = Array.from({ length: 20_000 }, (_, i) => peerRecord(`p${i}`, i % 9 === 0 ? '2h' : `${i % 60}s`));
const snapshots: JobSnapshot[] = [systemOk(), wireguard(router, [WG_UP], peers)];
const app = { store: { snapshots: () => snapshots }, routers: () => [router], now: () => T0 + 30_000, elapsed: () => 30_000 };

let server: Server;
let port = 0;
/** What happened while the last request was served, in order. */
let events: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    events = [];
    setTimeout(() => events.push('timer'), 1);
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args) => {
      events.push('head');
      return writeHead(...args);
    };
    void serveHealth(app as never, req, res, new URL(req.url ?? '/', 'http://x').searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => new Promise((resolve) => server.close(resolve)));

function health(acceptEncoding: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/health', headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('GET /health of a router with 20,000 peers', () => {
  it('answers what one go would, plain and gzip, byte for byte', async () => {
    const expected = `${JSON.stringify(evaluateRouters([router], app.store, T0 + 30_000).report, null, 2)}\n`;
    const plain = await health('identity');
    expect(plain.status).toBe(503);
    expect(plain.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
    expect(plain.body.toString('utf8')).toBe(expected);
    const compressed = await health('gzip');
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(compressed.body).toString('utf8')).toBe(expected);
  });

  it('lets a timer fire before its first byte: judged and written in slices, not in one task', async () => {
    await health('identity');
    expect(events.slice(0, 2)).toEqual(['timer', 'head']);
  });
});

describe('whileConnected', () => {
  function* endless(): Steps<number> {
    for (;;) yield;
  }

  it('stops the work at its next pause once the client has gone, and sends nothing', async () => {
    const res = Object.assign(new EventEmitter(), { destroyed: false });
    const work = whileConnected(res as unknown as ServerResponse, endless());
    setTimeout(() => {
      res.destroyed = true;
      res.emit('close');
    }, 20);
    await expect(work).resolves.toBeUndefined();
    expect(res.listenerCount('close')).toBe(0);
  });

  it('still reports an error the work threw in the slice the client left in (found by review)', async () => {
    const res = Object.assign(new EventEmitter(), { destroyed: false });
    function* failing(): Steps<number> {
      yield;
      res.destroyed = true;
      res.emit('close');
      throw new Error('a real failure');
    }
    await expect(whileConnected(res as unknown as ServerResponse, failing())).rejects.toThrow('a real failure');
  });

  it('starts nothing for a client already gone, and hands back what finished', async () => {
    function* answer(): Steps<number> {
      yield;
      return 42;
    }
    const gone = Object.assign(new EventEmitter(), { destroyed: true });
    await expect(whileConnected(gone as unknown as ServerResponse, answer())).resolves.toBeUndefined();
    const here = Object.assign(new EventEmitter(), { destroyed: false });
    await expect(whileConnected(here as unknown as ServerResponse, answer())).resolves.toBe(42);
  });
});
