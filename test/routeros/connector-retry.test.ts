/**
 * The connector's one retry without the session (a handshake dropped after the TCP connect while the session was
 * offered), at its edges, found by review: it starts no connect once the client closed, and none after a router
 * held the handshake for most of the timeout (a retry has a whole timeout of its own: two timeouts in all).
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { connect as tcpConnect, createServer as tcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type * as Tls from 'node:tls';
import { createServer as tlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedTls, type TlsMaterial } from '../../src/emulator/tls.js';
import { resumingConnector } from '../../src/routeros/connector.js';
import { HostLookups } from '../../src/routeros/lookup.js';

// undici's connector reaches tls.connect through require('node:tls'): the same module object this wraps.
const tls = createRequire(import.meta.url)('node:tls') as typeof Tls;
const realConnect = tls.connect;
let material: TlsMaterial;
/** A TLS server that hands out sessions. */
let router: Server;
/** A TCP front of it that passes connections through, drops them at the ClientHello, or holds them then resets. */
let front: Server;
let mode: 'pass' | 'drop' | 'drop-offers' | 'hold-then-reset' = 'pass';

/** Whether a TLS ClientHello carries the pre_shared_key extension (41): it offers a session. */
function offersSession(hello: Buffer): boolean {
  try {
    if (hello[0] !== 0x16 || hello[5] !== 0x01) return false;
    let at = 5 + 4 + 2 + 32;
    at += 1 + (hello[at] ?? 0);
    at += 2 + hello.readUInt16BE(at);
    at += 1 + (hello[at] ?? 0);
    const end = at + 2 + hello.readUInt16BE(at);
    at += 2;
    while (at + 4 <= end) {
      if (hello.readUInt16BE(at) === 41) return true;
      at += 4 + hello.readUInt16BE(at + 2);
    }
  } catch {
    return false;
  }
  return false;
}
/** How long the front holds a handshake before it resets it (the router's behaviour under test). */
const HOLD_MS = 600;
let tcpConnects = 0;

beforeAll(async () => {
  material = await selfSignedTls();
  router = tlsServer({ cert: material.cert, key: material.key }, (socket) => {
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
  const routerPort = (router.address() as AddressInfo).port;
  front = tcpServer((inbound: Socket) => {
    tcpConnects++;
    inbound.on('error', () => undefined);
    inbound.once('data', (hello: Buffer) => {
      if (mode === 'drop' || (mode === 'drop-offers' && offersSession(hello))) return void inbound.resetAndDestroy();
      if (mode === 'hold-then-reset') return void setTimeout(() => inbound.resetAndDestroy(), HOLD_MS);
      const outbound = tcpConnect(routerPort, '127.0.0.1');
      outbound.on('error', () => inbound.destroy());
      inbound.on('close', () => outbound.destroy());
      outbound.write(hello);
      inbound.pipe(outbound).pipe(inbound);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
});

afterAll(() => {
  tls.connect = realConnect;
  router.close();
  front.close();
});

function connectOnce(connector: ReturnType<typeof resumingConnector>, hostname = '127.0.0.1'): Promise<{ error: Error | null; socket: Socket | null; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    connector(
      { hostname, host: hostname, protocol: 'https:', port: String((front.address() as AddressInfo).port), servername: '' } as never,
      (error, socket) => resolve({ error, socket: socket as Socket | null, ms: performance.now() - started }),
    );
  });
}

/** A connector holding the router's session: one connect through, and its session handed over. */
async function withSession(timeoutMs: number): Promise<ReturnType<typeof resumingConnector>> {
  mode = 'pass';
  const connector = resumingConnector({ ca: material.cert, rejectUnauthorized: true, timeoutMs });
  const first = await connectOnce(connector);
  expect(first.error).toBeNull();
  await once(first.socket!, 'session');
  first.socket!.destroy();
  return connector;
}

describe('the retry without the session', () => {
  it('is not made once the client closed (abortConnecting) before the dropped handshake was reported', async () => {
    const connector = await withSession(5_000);
    mode = 'drop';
    const sockets: Tls.TLSSocket[] = [];
    tls.connect = ((...args: Parameters<typeof realConnect>) => {
      const socket = realConnect(...args);
      sockets.push(socket);
      if (sockets.length === 1) {
        // The client closes as the reset arrives: after Node destroyed the socket for it, before it reports it (a
        // tick later), when closing can destroy nothing any more.
        const destroy = socket.destroy.bind(socket);
        socket.destroy = ((error?: Error) => {
          const result = destroy(error);
          if ((error as { code?: string } | undefined)?.code === 'ECONNRESET') connector.abortConnecting();
          return result;
        }) as typeof socket.destroy;
      }
      return socket;
    }) as typeof realConnect;
    try {
      const result = await connectOnce(connector);
      expect(result.error).not.toBeNull();
      expect(sockets).toHaveLength(1);
    } finally {
      tls.connect = realConnect;
    }
  });

  it('is not made after a router held the handshake for most of the timeout: one connect, one timeout', async () => {
    const connector = await withSession(1_000);
    mode = 'hold-then-reset';
    const before = tcpConnects;
    // Reset after more than half of the connect's 1 s: a retry would have had a whole second of its own.
    const { error, ms } = await connectOnce(connector);
    expect(error).not.toBeNull();
    expect(tcpConnects - before).toBe(1);
    // At most the connect's own second, give or take a busy machine; a retry would add a whole second more.
    expect(ms).toBeLessThan(1_500);
  });

  it('is made when a slow lookup used much of the connect\'s time: its half counts from the TCP connect', async () => {
    // A resolver answering in 600 ms of a 1 s connect: counted from the attempt's start, the half was gone before
    // the router took the connection, and an endpoint refusing resumption failed every connect (found by review).
    const slow = new HostLookups({
      resolve: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
        setTimeout(() => (options.all === true ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)), 600);
      }) as never,
    });
    mode = 'pass';
    const connector = resumingConnector({ ca: material.cert, rejectUnauthorized: true, timeoutMs: 1_000, servername: '127.0.0.1', lookups: slow });
    const first = await connectOnce(connector, 'router.test');
    expect(first.error).toBeNull();
    await once(first.socket!, 'session');
    first.socket!.destroy();
    mode = 'drop-offers';
    const second = await connectOnce(connector, 'router.test');
    expect(second.error).toBeNull();
    second.socket?.destroy();
  });
});
