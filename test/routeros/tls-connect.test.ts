/**
 * What each reconnect costs the exporter (issue 14), over real HTTPS against the emulator, TLS verification on:
 * routers trusting the same CA share one TLS context (none is built per connect), and the router's session is
 * handed to the socket once instead of through tls.connect (which sets it twice, decoding the certificate each
 * time), while the router still counts every reconnect as a resumption.
 */
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';

// undici reaches tls.connect through require('node:tls'): the same module object this wraps.
const tls = createRequire(import.meta.url)('node:tls') as typeof Tls;
const realConnect = tls.connect;
const seen: Tls.ConnectionOptions[] = [];

let emulator: Emulator;
const clients: RouterOsClient[] = [];

beforeAll(async () => {
  // Keep-alive 1 s: undici closes a connection 1 s before the router's announced timeout, so here after every
  // reply, and each request reconnects.
  emulator = await startEmulator({ routers: [{ name: 'a' }, { name: 'b' }], keepAliveSeconds: 1, tlsSessionResumption: 'tickets' });
  tls.connect = ((...args: Parameters<typeof realConnect>) => {
    if (typeof args[0] === 'object' && args[0] !== null) seen.push({ ...(args[0] as Tls.ConnectionOptions) });
    return realConnect(...args);
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

describe('a closed client', () => {
  it('fails its reads without opening a connection, whether or not it had one', async () => {
    const used = client('a');
    await used.getSingleton('system/resource');
    const unused = client('b');
    await Promise.all([used.close(), unused.close()]);
    const before = ['a', 'b'].map((name) => emulator.router(name).stats.connections);
    for (const closed of [used, unused]) {
      await expect(closed.getSingleton('system/resource')).rejects.toMatchObject({ code: 'ROS_ERR_CONNECT' });
    }
    expect(['a', 'b'].map((name) => emulator.router(name).stats.connections)).toEqual(before);
  });
});
