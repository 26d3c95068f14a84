/**
 * Endpoints against hostile clients (issue 11, point 7): the scrape cap counts the routed path whatever its
 * spelling; a reader that stops reading loses its connection after the write-progress deadline, and its slot
 * is free once the body is handed to the kernel; one client cannot take every scrape slot or connection; idle
 * keep-alive connections make room under pressure; a TLS handshake that never starts is cut quickly.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerLimits } from '../../src/server/guard.js';
import { closeServer, startServer } from '../../src/server/listen.js';
import { sendParts, sendText } from '../../src/server/respond.js';
import { targetOf } from '../../src/server/target.js';
import { WebConfigSource } from '../../src/server/web-source.js';
import { tempFile } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { makeCert } from '../security/tls-helpers.js';
import { openSocket, rawRequest } from './raw-client.js';

const BIG = Buffer.alloc(64 * 1024 * 1024, 0x61);
const held: ServerResponse[] = [];
const sockets: Socket[] = [];
let server: Server | undefined;
let port = 0;
/** The server's side of each connection: a client that does not read never sees the server let go. */
const accepted: Socket[] = [];

/**
 * A stand-in app routed like the real one (by the normalised path): /metrics is held open until released,
 * /metrics?big sends 64 MB, /metrics?small 100 KB, everything else answers at once.
 */
function handle(req: IncomingMessage, res: ServerResponse): void {
  const target = targetOf(req);
  const size = target.ok ? target.query.get('size') : null;
  if (target.ok && target.path === '/metrics' && size === null) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('# held\n');
    held.push(res);
    return;
  }
  if (size === 'big' || size === 'small') {
    void sendParts(res, 200, { 'content-type': 'application/octet-stream' }, [size === 'big' ? BIG : BIG.subarray(0, 100 * 1024)]);
    return;
  }
  sendText(res, 200, 'ok\n');
}

async function start(limits: Partial<ServerLimits>, web?: WebConfigSource): Promise<void> {
  server = await startServer({ handle }, '127.0.0.1:0', { limits, ...(web === undefined ? {} : { web }) });
  server.on('connection', (socket: Socket) => accepted.push(socket));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
}

async function socketFrom(localAddress = '127.0.0.1'): Promise<Socket> {
  const socket = await openSocket({ port, localAddress });
  socket.on('error', () => undefined);
  sockets.push(socket);
  return socket;
}

const closed = (socket: Socket): Promise<void> =>
  new Promise((resolve) => (socket.closed || socket.destroyed ? resolve() : socket.once('close', () => resolve())));

const get = (target: string, localAddress?: string): Promise<number | undefined> =>
  rawRequest(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`, { port, ...(localAddress === undefined ? {} : { localAddress }) }).then((a) => a.status);

afterEach(async () => {
  for (const res of held.splice(0)) res.end();
  for (const socket of sockets.splice(0)) socket.destroy();
  accepted.length = 0;
  if (server !== undefined) await closeServer(server, 500);
  server = undefined;
});

describe('the scrape cap', () => {
  it('counts the routed path, however the target spells it', async () => {
    await start({ maxConcurrentScrapes: 1 });
    const holder = await socketFrom();
    holder.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => held.length).toBe(1);
    for (const target of ['/metrics', '/./metrics', '/%2e/metrics', '/%2E%2E/metrics', '/metrics/../health', '/x/../metrics', 'http://x/metrics', 'HTTP://x/health', '/health']) {
      expect(await get(target), target).toBe(503);
    }
    expect(await get('/-/healthy')).toBe(200);
  });

  it('gives one client at most its share of the slots', async () => {
    await start({ maxConcurrentScrapes: 4, maxScrapesPerClient: 1 });
    const holder = await socketFrom('127.0.0.1');
    holder.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => held.length).toBe(1);
    expect(await get('/./metrics', '127.0.0.1')).toBe(503);
    const other = await socketFrom('127.0.0.2');
    other.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => held.length).toBe(2);
  });
});

describe('a reader that stops reading', () => {
  it('frees its scrape slot once the body is handed to the kernel, though it keeps the connection', async () => {
    await start({ maxConcurrentScrapes: 1 });
    const idle = await socketFrom();
    idle.pause();
    idle.write('GET /metrics?size=small HTTP/1.1\r\nHost: x\r\n\r\n');
    // The next scrape is admitted (and held by the stand-in), not refused, while the first client still sits.
    const next = await socketFrom('127.0.0.2');
    await expect.poll(async () => {
      next.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((resolve) => setImmediate(resolve));
      return held.length;
    }).toBeGreaterThan(0);
    expect(idle.destroyed).toBe(false);
  });

  it('loses its connection after the write-progress deadline, long before the response deadline', async () => {
    await start({ writeStallMs: 400, responseTimeoutMs: 60_000 });
    const reader = await socketFrom();
    reader.pause();
    reader.write('GET /metrics?size=big HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => accepted.length).toBe(1);
    const started = performance.now();
    await closed(accepted[0] as Socket);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('a reader that reads in bursts keeps its response past the write-progress deadline', async () => {
    await start({ writeStallMs: 1000, responseTimeoutMs: 60_000 });
    const reader = await socketFrom();
    let received = 0;
    reader.pause();
    reader.write('GET /metrics?size=big HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => accepted.length).toBe(1);
    // Takes 2 MiB in every 400 ms for three write-progress deadlines: idle most of the time, never stalled.
    const started = performance.now();
    while (performance.now() - started < 3000) {
      for (let taken = 0; taken < 2 * 1024 * 1024 && performance.now() - started < 10_000; ) {
        const chunk = reader.read() as Buffer | null;
        if (chunk === null) await new Promise((resolve) => setTimeout(resolve, 1));
        else taken += chunk.length;
      }
      received += 2 * 1024 * 1024;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(accepted[0]?.destroyed).toBe(false);
    expect(received).toBeGreaterThan(0);
    // Then it stops reading, and is cut.
    await closed(accepted[0] as Socket);
    expect(received).toBeLessThan(BIG.length);
  });
});

describe('connections', () => {
  it('closes connections beyond the per-client limit as they arrive; other clients are served', async () => {
    await start({ maxConnectionsPerClient: 3 });
    const mine = await Promise.all([1, 2, 3].map(() => socketFrom('127.0.0.2')));
    const extra = await socketFrom('127.0.0.2');
    await closed(extra);
    expect(mine.every((socket) => !socket.destroyed)).toBe(true);
    expect(await get('/metrics?size=small', '127.0.0.1')).toBe(200);
  });

  it('closes idle keep-alive connections to make room when connections run short', async () => {
    await start({ maxConnections: 8, maxConnectionsPerClient: 100 });
    // Six keep-alive connections left idle after a request each: three quarters of eight.
    const idle: Socket[] = [];
    for (let i = 0; i < 6; i++) {
      const socket = await socketFrom('127.0.0.2');
      const answered = new Promise((resolve) => socket.once('data', resolve));
      socket.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n');
      await answered;
      idle.push(socket);
    }
    expect(idle.every((socket) => !socket.destroyed)).toBe(true);
    // The next connection is over three quarters: the idle ones go, and it is served.
    expect(await get('/-/healthy')).toBe(200);
    await Promise.all(idle.map(closed));
    for (let i = 0; i < 10; i++) expect(await get('/-/healthy')).toBe(200);
  });

  it('cuts a TLS connection whose handshake never starts after the handshake timeout', async () => {
    const cert = await makeCert();
    const web = new WebConfigSource(
      tempFile('web.yml', `tls_server_config: { cert_file: "${tempFile('c.pem', cert.cert)}", key_file: "${tempFile('k.pem', cert.key)}" }\n`),
      { logger: captureLogs().logger },
    );
    await start({ handshakeTimeoutMs: 300 }, web);
    const silent = await new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', () => undefined);
      sockets.push(socket);
    });
    const started = performance.now();
    await closed(silent);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await rawRequest('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n', { port, tls: true })).status).toBe(200);
  });
});

describe('a request Node cannot parse, pipelined behind one still being answered (found by a hostile tester)', () => {
  it('answers the earlier request first, then refuses with the configured headers; before, the earlier answer was cut', async () => {
    const web = new WebConfigSource(tempFile('web.yml', 'http_server_config: { headers: { X-Frame-Options: deny } }\n'), { logger: captureLogs().logger });
    await start({}, web);
    const socket = await socketFrom();
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nBad Header Line\r\n\r\n');
    await expect.poll(() => text, { timeout: 5_000 }).toContain('# held\n');
    for (const res of held.splice(0)) res.end('# end\n');
    await closed(socket);
    const held200 = text.indexOf('HTTP/1.1 200');
    const refused = text.indexOf('HTTP/1.1 400 Bad Request');
    expect(held200).toBe(0);
    expect(text).toContain('# end\n');
    expect(refused).toBeGreaterThan(text.indexOf('# end\n'));
    expect(text.slice(refused)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nX-Frame-Options: deny\r\nContent-Length: 0\r\nConnection: close\r\n\r\n$/);
  });

  it('reads nothing more from the refused connection, and refuses it once (found by review: every later chunk a parse error of its own, 1.8 GB in 7 s)', async () => {
    await start({});
    const socket = await socketFrom();
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1\r\nBad Header Line\r\n\r\n');
    await expect.poll(() => text, { timeout: 5_000 }).toContain('# held\n');
    const serverSide = accepted[0] as Socket;
    // The parse errors every further chunk would raise, had the connection been read on.
    const listeners = serverSide.listenerCount('error');
    for (let chunk = 0; chunk < 100; chunk++) server?.emit('clientError', Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' }), serverSide);
    expect(serverSide.listenerCount('error')).toBe(listeners);
    expect(serverSide.isPaused()).toBe(true);
    for (const res of held.splice(0)) res.end('# end\n');
    await closed(socket);
    expect(text.match(/HTTP\/1\.1 400 Bad Request/g)).toHaveLength(1);
    expect(text.indexOf('HTTP/1.1 400')).toBeGreaterThan(text.indexOf('# end\n'));
  });

  it('refuses a bad request alone at once, with the configured headers', async () => {
    const web = new WebConfigSource(tempFile('web.yml', 'http_server_config: { headers: { X-Frame-Options: deny } }\n'), { logger: captureLogs().logger });
    await start({}, web);
    const answer = await rawRequest('GET /x HTTP/1.1\r\nBad Header Line\r\n\r\n', { port });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('\r\nX-Frame-Options: deny\r\n');
  });
});
