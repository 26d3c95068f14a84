/**
 * A router whose connection cannot be made (its certificate names another host): reads that fire together —
 * system and wireguard at the same tick — each fail at once with reason tls, cycle after cycle. On the
 * one-connection read path undici left the second read waiting past its own timeout (found by the fault matrix).
 * The same for its commands, which take turns on connections of their own. And one whose connection is never made (it accepts TCP and never answers the handshake, as an overloaded
 * www-ssl does): every request ends at its own timeout, not undici's 10 s connect timeout (found by a review).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import type { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';
import { timedOutFailure } from '../../src/routeros/transport-errors.js';
import { errors } from 'undici';

const PASSWORD = 'failed-connect-secret';
let emulator: Emulator;
let client: RouterOsClient;

beforeAll(async () => {
  const tls = await selfSignedTls(['router.other.example']);
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], tls, routers: [{ name: 'hq' }] });
  client = new RouterOsClient({
    url: emulator.router('hq').url,
    username: 'monitor',
    password: new Secret(PASSWORD),
    timeoutMs: 3_000,
    tls: { ca: tls.cert },
  });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('reads to a router whose certificate names another host', () => {
  it('fail together with reason tls, every time, well inside the timeout', async () => {
    for (let cycle = 0; cycle < 3; cycle++) {
      const started = performance.now();
      const results = await Promise.allSettled([client.list('system/resource'), client.list('interface/wireguard'), client.list('interface')]);
      expect(performance.now() - started).toBeLessThan(2_000);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason as RouterOsError).toMatchObject({ reason: 'tls' });
      }
    }
  });
});

describe('commands to a router whose certificate names another host', () => {
  it('fail together with reason tls, every time, well inside the timeout: a connection that was never made is not asked again', async () => {
    const ping = (): Promise<unknown> => client.run('ping', { address: '192.0.2.1', count: '1', interval: '10ms' });
    for (let cycle = 0; cycle < 3; cycle++) {
      const started = performance.now();
      const results = await Promise.allSettled([ping(), ping(), ping()]);
      expect(performance.now() - started).toBeLessThan(2_000);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason as RouterOsError).toMatchObject({ reason: 'tls' });
      }
    }
  });
});

describe('requests to a router that accepts TCP and never answers the TLS handshake', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let port = 0;

  beforeAll(async () => {
    silent = createServer((socket) => {
      // Reads (and drops) what comes, so it sees a close; answers nothing.
      socket.resume();
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  const silentClient = (): RouterOsClient =>
    new RouterOsClient({ url: `https://127.0.0.1:${port}`, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 1_000 });

  it('end at their own timeout, reads and commands alike, and the next read is not held behind them', async () => {
    const c = silentClient();
    try {
      for (let cycle = 0; cycle < 2; cycle++) {
        const started = performance.now();
        const results = await Promise.allSettled([
          c.list('system/resource'),
          c.list('interface/wireguard'),
          c.run('ping', { address: '10.0.0.2', count: '1' }),
          c.run('ping', { address: '10.0.0.3', count: '1' }),
          c.run('ping', { address: '10.0.0.4', count: '1' }),
        ]);
        const took = performance.now() - started;
        // Each request's own 1 s (the second read waits its turn behind the first: up to 1 s of its own); it
        // was 10 s, undici's connect timeout, for every one of them. 7 s leaves a busy machine room on both sides.
        expect(took).toBeLessThan(7_000);
        for (const result of results) {
          expect(result.status).toBe('rejected');
          expect((result as PromiseRejectedResult).reason as RouterOsError).toMatchObject({ reason: 'timeout' });
        }
      }
    } finally {
      await c.close();
    }
  });

  it('a client closed while its connects wait ends them at once, not at the router\'s timeout (shutdown, check)', async () => {
    const c = new RouterOsClient({ url: `https://127.0.0.1:${port}`, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 20_000 });
    // The earlier tests' connections are gone once their clients closed.
    await expect.poll(() => sockets.size, { timeout: 5_000 }).toBe(0);
    const before = 0;
    const requests = [c.list('system/resource'), c.run('ping', { address: '10.0.0.2', count: '1' })];
    for (const request of requests) request.catch(() => undefined);
    // Both connects are under way: the silent router has accepted them, and they wait for its handshake.
    await expect.poll(() => sockets.size).toBe(before + 2);
    await c.close();
    // The sockets go at once. They stayed open for the whole 20 s (undici's destroy leaves a connect under way
    // to its own timeout), and kept a stopped daemon or a finished check from exiting.
    await expect.poll(() => sockets.size, { timeout: 2_000 }).toBe(before);
    for (const result of await Promise.allSettled(requests)) expect(result.status).toBe('rejected');
  });
});

describe('a connect that runs out of the router\'s timeout', () => {
  it('is the timeout, whichever of the two equal timers fires first (it was connect when undici\'s came first)', () => {
    const connectTimeout = new errors.ConnectTimeoutError();
    expect(connectTimeout.code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(timedOutFailure(connectTimeout, false)).toBe(true);
    expect(timedOutFailure(new Error('fetch failed', { cause: connectTimeout }), false)).toBe(true);
    expect(timedOutFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), false)).toBe(false);
    expect(timedOutFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), true)).toBe(true);
  });
});
