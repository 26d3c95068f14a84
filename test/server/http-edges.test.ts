/**
 * Corners of HTTP a hostile client reaches (found by reviews, each failing before its fix): a password in an
 * absolute-form target written to the log (whole, or its rest after a `/`), answers Node gives on its own without the web config's headers, a
 * `100 Continue` sent before the credentials were checked, and a pipelined response whose reader stopped
 * reading held for the whole response deadline instead of the stall cut.
 */
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUEUED_SCRAPES_PER_CONNECTION } from '../../src/server/guard.js';
import { watchStall } from '../../src/server/stall.js';
import { startExporter, WEB_AUTH, type Exporter } from './exporter.js';
import { openSocket, rawRequest } from './raw-client.js';

let exporter: Exporter;

beforeAll(async () => {
  exporter = await startExporter({ basicAuth: true, headers: true });
});

afterAll(async () => {
  await exporter.close();
});

const raw = (request: string) => rawRequest(request, { port: exporter.port });

describe('a request with wrong credentials', () => {
  it('is logged with its route path, never the raw target: no authority, no query', async () => {
    const answer = await raw('GET http://exporter.example/metrics?token=query-secret HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(401);
    const rejected = exporter.logs.lines().filter((line) => String(line['msg']).startsWith('rejected HTTP requests'));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.['path']).toBe('/metrics');
    expect(exporter.logs.text()).not.toMatch(/query-secret|exporter\.example/);
  });

  it('counted within the minute are still told when the server closes, not lost', async () => {
    const own = await startExporter({ basicAuth: true });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest('GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\nConnection: close\r\n\r\n', { port: own.port });
        expect(answer.status).toBe(401);
      }
      expect(own.logs.lines().filter((line) => String(line['msg']).startsWith('rejected HTTP requests'))).toHaveLength(1);
    } finally {
      await own.close();
    }
    const rejected = own.logs.lines().filter((line) => String(line['msg']).startsWith('rejected HTTP requests'));
    expect(rejected.map((line) => line['rejected'])).toEqual([1, 2]);
  });

  it.each([
    'http://prometheus:absolute-form-secret@exporter.example/metrics',
    // A `/` in the password ends the authority early: its rest would read as the path.
    'http://prometheus:pass/word-secret@exporter.example/metrics',
    'https://prometheus@exporter.example/metrics?x=1',
  ])('with userinfo in an absolute-form target (%s): 400 before anything, and nothing of it logged', async (target) => {
    const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.text).not.toMatch(/secret|prometheus/);
    expect(exporter.logs.text()).not.toMatch(/-secret|pass\/word/);
  });
});

describe('answers Node would give on its own', () => {
  it('CONNECT: 405 with the configured headers', async () => {
    const answer = await raw('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    expect(answer.status).toBe(405);
    expect(answer.text).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    expect(answer.text).toMatch(/\r\nAllow: GET, HEAD, POST\r\n/);
  });

  it('an expectation other than 100-continue: 417 with the configured headers', async () => {
    const answer = await raw('GET /-/healthy HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(417);
    expect(answer.text.toLowerCase()).toContain('\r\nx-content-type-options: nosniff\r\n');
  });

  it('Expect: 100-continue without credentials: 401 at once, no invitation to send the body first', async () => {
    const answer = await raw('POST /-/reload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain('100 Continue');
    expect(answer.text.toLowerCase()).toContain('\r\nx-content-type-options: nosniff\r\n');
  });

  it('Expect: 100-continue with credentials: answered as without it', async () => {
    const answer = await raw(`GET /-/healthy HTTP/1.1\r\nHost: x\r\nAuthorization: ${WEB_AUTH}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('100 Continue');
  });
});

describe('a pipelined response whose reader stopped reading', () => {
  let server: Server;
  const closedAfterMs: number[] = [];

  beforeAll(async () => {
    const big = Buffer.alloc(32 * 1024 * 1024, 'x');
    server = createServer((req, res) => {
      watchStall(res, 300);
      if (req.url === '/first') {
        // Still answering when the second request arrives, so the second's response waits without a socket.
        setTimeout(() => res.end('first\n'), 100);
        return;
      }
      res.end(big);
    });
    server.on('connection', (socket: Socket) => {
      const opened = performance.now();
      socket.on('close', () => closedAfterMs.push(performance.now() - opened));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is cut by the stall watch once it has the connection, not held', async () => {
    const socket = await openSocket({ port: (server.address() as AddressInfo).port });
    socket.on('error', () => undefined);
    // Never read: the client's receive window and the server's send buffer fill, then nothing moves.
    socket.pause();
    socket.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => closedAfterMs.length, { timeout: 10_000 }).toBe(1);
    socket.destroy();
    // 100 ms for the first answer, then the second's 32 MB stall within a few hundred ms.
    expect(closedAfterMs[0]).toBeLessThan(5_000);
  });
});

describe('pipelined scrapes', () => {
  it(`take a scrape slot at their turn, not at arrival, ${MAX_QUEUED_SCRAPES_PER_CONNECTION} waiting their turn at most (found by review)`, async () => {
    const one = (last: boolean): string => `GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: ${WEB_AUTH}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
    const requests = Array.from({ length: 12 }, (_, i) => one(i === 11)).join('');
    const socket = await openSocket({ port: exporter.port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(requests);
    await closed;
    const statuses = Buffer.concat(chunks).toString('latin1').match(/^HTTP\/1\.1 (\d{3}) /gm) ?? [];
    // The one answered and the 8 queued behind it: 200 (before, the ninth and on got 503 while one was answered at
    // a time). The rest: 503 at once, so that a queue writes bytes and Node stops reading the connection (taken in
    // without a bound, one connection's scrapes grew the exporter to 1.2 GB in 8 s).
    expect(statuses).toEqual([...Array.from({ length: 9 }, () => 'HTTP/1.1 200 '), ...Array.from({ length: 3 }, () => 'HTTP/1.1 503 ')]);
  });
});

describe('pipelined requests of any mix (property)', () => {
  it('get one answer each, in order; scrapes 200 or 503, and the first 9 not turned away for the queue', async () => {
    const paths = ['/metrics', '/probe?target=hq', '/-/healthy', '/nope', '/health'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...paths.keys()), { minLength: 1, maxLength: 30 }), async (picks) => {
        const requests = picks.map((pick, i) => `GET ${paths[pick] ?? '/'} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WEB_AUTH}\r\n${i === picks.length - 1 ? 'Connection: close\r\n' : ''}\r\n`);
        const socket = await openSocket({ port: exporter.port });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.write(requests.join(''));
        await closed;
        const statuses = (Buffer.concat(chunks).toString('latin1').match(/^HTTP\/1\.1 (\d{3}) /gm) ?? []).map((line) => Number(line.slice(9, 12)));
        expect(statuses).toHaveLength(picks.length);
        statuses.forEach((status, i) => {
          const path = paths[picks[i] ?? 0] ?? '';
          if (path === '/-/healthy') expect(status).toBe(200);
          else if (path === '/nope') expect(status).toBe(404);
          else expect([200, 503]).toContain(status);
        });
        // The one answered and the 8 a connection may queue are never turned away for the queue: among them, a
        // /metrics (which has nothing else to answer 503 for here) is 200.
        statuses.slice(0, 9).forEach((status, i) => {
          if (paths[picks[i] ?? 0] === '/metrics') expect(status).toBe(200);
        });
      }),
      { numRuns: 40 },
    );
  });
});
