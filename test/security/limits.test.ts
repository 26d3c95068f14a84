/**
 * Server limits against slow and greedy clients: slow headers and bodies are cut, huge heads refused,
 * scrapes capped (503 + Retry-After, other endpoints unaffected), responses a client never reads cut at a
 * deadline, connections capped. Short limits and a stand-in app keep it fast; the defaults are checked too.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../../src/server/guard.js';

const held: ServerResponse[] = [];
let server: Server | undefined;
const sockets: Socket[] = [];

/**
 * A stand-in app: /metrics and /hold are held open until released, /metrics?big sends more than socket buffers
 * hold, /upload reads its body first; everything else answers at once.
 */
function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/metrics' || req.url === '/hold') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('# held\n');
    held.push(res);
    return;
  }
  if (req.url === '/upload') {
    req.resume();
    req.on('end', () => res.end('got it\n'));
    return;
  }
  if (req.url === '/metrics?big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    // More than the socket buffers of both ends hold, so a client that does not read leaves it unsent.
    for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024 * 1024, 0x61));
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok\n');
}

/** The server's side of each connection, to see when the server (not the client) let go of it. */
const accepted: Socket[] = [];

async function start(limits: Partial<ServerLimits>): Promise<string> {
  server = await startServer({ handle }, '127.0.0.1:0', { limits });
  server.on('connection', (socket: Socket) => accepted.push(socket));
  return serverUrl(server);
}

function rawSocket(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
    // Flowing, so the client sees the server's end of the connection.
    socket.resume();
    socket.once('error', reject);
    sockets.push(socket);
  });
}

const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => (socket.closed || socket.destroyed ? resolve() : socket.once('close', () => resolve())));

afterEach(async () => {
  for (const res of held.splice(0)) res.end();
  for (const socket of sockets.splice(0)) socket.destroy();
  accepted.length = 0;
  if (server !== undefined) await closeServer(server, 500);
  server = undefined;
});

describe('server limits', () => {
  it('uses the documented defaults', async () => {
    await start({});
    expect(server?.headersTimeout).toBe(DEFAULT_LIMITS.headersTimeoutMs);
    expect(server?.requestTimeout).toBe(DEFAULT_LIMITS.requestTimeoutMs);
    expect(server?.keepAliveTimeout).toBe(DEFAULT_LIMITS.keepAliveTimeoutMs);
    expect(server?.maxConnections).toBe(DEFAULT_LIMITS.maxConnections);
    expect(DEFAULT_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      handshakeTimeoutMs: 5_000,
      maxConnections: 512,
      maxConnectionsPerClient: 64,
      maxHeaderBytes: 16_384,
      maxConcurrentScrapes: 16,
      maxScrapesPerClient: 8,
      responseTimeoutMs: 30_000,
      writeStallMs: 10_000,
    });
  });

  it('cuts a client that sends its headers too slowly (slowloris), while others are served', async () => {
    const url = await start({ headersTimeoutMs: 400 });
    const slow = await Promise.all(Array.from({ length: 20 }, () => rawSocket(url)));
    for (const socket of slow) socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: 1');
    expect((await fetch(`${url}/-/healthy`)).status).toBe(200);
    const started = performance.now();
    await Promise.all(slow.map(closed));
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('cuts a request whose body trickles in past the request timeout', async () => {
    const url = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const socket = await rawSocket(url);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc');
    await closed(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses a request head over the size limit with 431', async () => {
    const url = await start({ maxHeaderBytes: 4096 });
    const response = await fetch(`${url}/-/healthy`, { headers: { 'x-padding': 'a'.repeat(8000) } });
    expect(response.status).toBe(431);
  });

  it('caps scrapes answered at once: 503 with Retry-After beyond, other endpoints unaffected, slots freed after', async () => {
    const url = await start({ maxConcurrentScrapes: 2 });
    const first = await Promise.all([fetch(`${url}/metrics`), fetch(`${url}/metrics`)]);
    expect(first.map((response) => response.status)).toEqual([200, 200]);
    const third = await fetch(`${url}/metrics`);
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await fetch(`${url}/-/healthy`)).status).toBe(200);
    for (const res of held.splice(0)) res.end();
    await Promise.all(first.map((response) => response.text()));
    await expect.poll(async () => (await fetch(`${url}/metrics`)).status).toBe(200);
  });

  it('cuts a response the client never reads at the response deadline, freeing its scrape slot', async () => {
    const url = await start({ responseTimeoutMs: 500, maxConcurrentScrapes: 1 });
    const reader = await rawSocket(url);
    reader.pause(); // never reads
    reader.write('GET /metrics?big HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => accepted.length).toBe(1);
    const started = performance.now();
    await closed(accepted[0] as Socket);
    expect(performance.now() - started).toBeLessThan(3000);
    // The one scrape slot is free again: the next scrape is admitted (held open by the stand-in), not refused.
    const next = await rawSocket(url);
    next.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => held.length).toBe(1);
  });

  it('closes connections beyond the connection cap', async () => {
    const url = await start({ maxConnections: 3 });
    const open = await Promise.all(Array.from({ length: 3 }, () => rawSocket(url)));
    for (const socket of open) socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => held.length).toBe(3);
    const extra = await rawSocket(url);
    await closed(extra);
    expect(open.every((socket) => !socket.destroyed)).toBe(true);
  });
});
