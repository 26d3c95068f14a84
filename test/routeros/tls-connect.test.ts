/**
 * What each reconnect costs the exporter (issue 14), over real HTTPS against the emulator, TLS verification on:
 * routers trusting the same CA share one TLS context (none is built per connect), and the router's session is
 * handed to the socket once instead of through tls.connect (which sets it twice, decoding the certificate each
 * time), while the router still counts every reconnect as a resumption.
 */
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';
import { createServer as tcpServer, connect as tcpConnect, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { ownsItsMemory } from '../../src/util/kept-bytes.js';

// undici reaches tls.connect through require('node:tls'): the same module object this wraps.
const tls = createRequire(import.meta.url)('node:tls') as typeof Tls;
const realConnect = tls.connect;
const seen: Tls.ConnectionOptions[] = [];
const sockets: Tls.TLSSocket[] = [];
/** The newest session each socket handed over. */
const sessions = new Map<Tls.TLSSocket, Buffer>();

let emulator: Emulator;
const clients: RouterOsClient[] = [];

beforeAll(async () => {
  // Keep-alive 1 s: undici closes a connection 1 s before the router's announced timeout, so here after every
  // reply, and each request reconnects.
  emulator = await startEmulator({ routers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], keepAliveSeconds: 1, tlsSessionResumption: 'tickets' });
  tls.connect = ((...args: Parameters<typeof realConnect>) => {
    if (typeof args[0] === 'object' && args[0] !== null) seen.push({ ...(args[0] as Tls.ConnectionOptions) });
    const socket = realConnect(...args);
    sockets.push(socket);
    socket.on('session', (session: Buffer) => sessions.set(socket, session));
    return socket;
  }) as typeof realConnect;
});

afterAll(async () => {
  tls.connect = realConnect;
  await Promise.all(clients.map((client) => client.close()));
  await emulator.close();
});

function client(router: string): RouterOsClient {
  const made = new RouterOsClient({
    url: emulator.router(router).url,
    username: 'admin',
    password: new Secret(''),
    timeoutMs: 5_000,
    tls: { ca: emulator.ca },
  });
  clients.push(made);
  return made;
}

describe('reconnects', () => {
  it('share one TLS context per CA, offer the session once, and resume', async () => {
    const a = client('a');
    const b = client('b');
    for (let round = 0; round < 4; round++) {
      await a.getSingleton('system/resource');
      await b.getSingleton('system/resource');
    }
    const stats = ['a', 'b'].map((name) => emulator.router(name).stats);
    for (const s of stats) {
      // One full handshake per router, then a resumption for each reconnect.
      expect(s.connections).toBe(4);
      expect(s.resumed).toBe(3);
    }
    expect(seen).toHaveLength(8);
    // Not rebuilt from the CA's text on every connect: one context, made once, for both routers.
    const context = seen[0]?.secureContext;
    expect(context).toBeDefined();
    for (const options of seen) {
      expect(options.secureContext).toBe(context);
      expect(options.ca).toBeUndefined();
      // Verification stays on; the session is set on the socket itself, not passed to tls.connect.
      expect(options.rejectUnauthorized).toBe(true);
      expect(options.session ?? null).toBeNull();
    }
  });
});

describe('a connect the network fails', () => {
  it('keeps the session: the next connect resumes (a TCP reset made it a full handshake)', async () => {
    // A middlebox before router c that resets one connection as it is accepted, before any TLS.
    const target = new URL(emulator.router('c').url);
    let resetNext = false;
    const proxy: TcpServer = tcpServer((inbound) => {
      inbound.on('error', () => undefined);
      if (resetNext) {
        resetNext = false;
        inbound.resetAndDestroy();
        return;
      }
      const outbound = tcpConnect(Number(target.port), target.hostname);
      outbound.on('error', () => inbound.destroy());
      inbound.on('close', () => outbound.destroy());
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const c = new RouterOsClient({
      url: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      username: 'admin',
      password: new Secret(''),
      timeoutMs: 5_000,
      tls: { ca: emulator.ca, serverName: target.hostname },
    });
    clients.push(c);
    try {
      const stats = emulator.router('c').stats;
      await c.getSingleton('system/resource');
      await c.getSingleton('system/resource');
      expect([stats.connections, stats.resumed]).toEqual([2, 1]);
      // A reset as the connection is taken, before any TLS: the read fails, and the session is kept for it.
      resetNext = true;
      await expect(c.getSingleton('system/resource')).rejects.toMatchObject({ reason: 'connect' });
      await c.getSingleton('system/resource');
      // The connect after the reset resumed the session the router had handed over.
      expect([stats.connections, stats.resumed]).toEqual([3, 2]);
    } finally {
      proxy.close();
    }
  });
});

describe('the session held for the next connect', () => {
  it('is kept in memory of its own, not as the view of a shared block it came as', async () => {
    // Node 24 hands a session over as a view of its 64 KiB allocation pool; kept as it is, each router's session
    // keeps a block shared with whatever else was allocated then. Here the router's own session is handed over
    // again as such a view (a copy from the pool, on any Node), and the next connect must offer the same bytes
    // from memory of their own.
    const used = client('b');
    const first = sockets.length;
    await used.getSingleton('system/resource');
    const socket = sockets[first];
    const real = sessions.get(socket as Tls.TLSSocket);
    expect(real).toBeInstanceOf(Uint8Array);
    const pooled = Buffer.from(real as Buffer);
    expect(ownsItsMemory(pooled)).toBe(false);
    socket?.emit('session', pooled);
    const offered: Buffer[] = [];
    // TLSSocket's session setter (what the connector calls), not in Node's typings.
    const prototype = tls.TLSSocket.prototype as unknown as { setSession(session: Buffer): void };
    const setSession = prototype.setSession;
    prototype.setSession = function (this: Tls.TLSSocket, session: Buffer) {
      offered.push(session);
      setSession.call(this, session);
    };
    try {
      const resumed = emulator.router('b').stats.resumed;
      await used.getSingleton('system/resource');
      expect(emulator.router('b').stats.resumed).toBe(resumed + 1);
    } finally {
      prototype.setSession = setSession;
    }
    expect(offered).toHaveLength(1);
    expect(offered[0]?.equals(pooled)).toBe(true);
    expect(ownsItsMemory(offered[0] as Buffer)).toBe(true);
  });
});

describe('a closed client', () => {
  it('fails its reads and commands as closed, without opening a connection, whether or not it had one', async () => {
    const used = client('a');
    await used.getSingleton('system/resource');
    const unused = client('b');
    await Promise.all([used.close(), unused.close()]);
    const before = ['a', 'b'].map((name) => emulator.router(name).stats.connections);
    // Said as what it is: closed here, not a router that cannot be reached.
    const closedHere = { code: 'ROS_ERR_ABORTED', message: expect.stringContaining("the router's client was closed") as unknown };
    for (const closed of [used, unused]) {
      await expect(closed.getSingleton('system/resource')).rejects.toMatchObject(closedHere);
      await expect(closed.run('ping', { address: '192.0.2.1', count: '1' })).rejects.toMatchObject(closedHere);
    }
    expect(['a', 'b'].map((name) => emulator.router(name).stats.connections)).toEqual(before);
  });
});
