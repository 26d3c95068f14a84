/**
 * A kept connection the router closes as a request arrives (its idle timer firing as the request crosses it, with
 * or without a Keep-Alive hint): a read goes once more, on a new connection, and succeeds; a command, which may
 * change the router, is not sent twice; and a router that drops new connections is not asked twice either.
 * Over real HTTPS against the emulator's `closeKept` fault, and a bare TLS server that drops every request.
 */
import fc from 'fast-check';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { readsResent, RouterOsClient } from '../../src/routeros/client.js';
import type { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';
import { SelfMetrics } from '../../src/metrics/self.js';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'a' }] });
});

afterAll(async () => {
  await emulator.close();
});

function clientOf(url: string, ca: string): RouterOsClient {
  return new RouterOsClient({ url, username: 'admin', password: new Secret(''), timeoutMs: 5_000, tls: { ca } });
}

/** What the router counted since `before`. */
function since(before: { connections: number; requests: number }): { connections: number; requests: number } {
  const now = emulator.router('a').stats;
  return { connections: now.connections - before.connections, requests: now.requests - before.requests };
}

describe('a kept connection the router closes as a request arrives', () => {
  it('costs a read one more try on a new connection, not a failure', async () => {
    const router = emulator.router('a');
    router.setFaults({ closeKept: true });
    const client = clientOf(router.url, emulator.ca);
    const before = { ...router.stats };
    const resentBefore = readsResent();
    try {
      for (let read = 0; read < 4; read++) {
        expect(await client.getSingleton('system/resource')).toHaveProperty('uptime');
      }
    } finally {
      await client.close();
      router.clearFaults();
    }
    // The first read opens a connection; each later one is dropped on the kept connection and read on a new one.
    expect(since(before)).toEqual({ connections: 4, requests: 7 });
    // Counted, and served as the exporter's own routeros_exporter_reads_resent_total.
    expect(readsResent() - resentBefore).toBe(3);
    const self = new SelfMetrics({ version: 'test' });
    for (const format of ['text', 'openmetrics'] as const) {
      expect(await self.render(format)).toMatch(new RegExp(`^routeros_exporter_reads_resent_total ${readsResent()}$`, 'm'));
    }
  });

  it('does not send a command twice: it fails as the connection did', async () => {
    const router = emulator.router('a');
    const client = clientOf(router.url, emulator.ca);
    const monitor = (): Promise<unknown> => client.run('interface/ethernet/monitor', { numbers: 'ether1', once: '' });
    try {
      // A command connection opened and kept (one after the other, both commands take the first).
      await monitor();
      await monitor();
      router.setFaults({ closeKept: true });
      const before = { ...router.stats };
      const resentBefore = readsResent();
      await expect(monitor()).rejects.toMatchObject({ code: 'ROS_ERR_CONNECT' });
      expect(since(before)).toEqual({ connections: 0, requests: 1 });
      expect(readsResent()).toBe(resentBefore);
    } finally {
      await client.close();
      router.clearFaults();
    }
  });

  it('reads stay answered whenever the router starts or stops closing kept connections (generator)', async () => {
    const router = emulator.router('a');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), async (closing) => {
        const client = clientOf(router.url, emulator.ca);
        try {
          for (const close of closing) {
            router.setFaults({ closeKept: close });
            expect(await client.list('interface/wireguard')).toBeInstanceOf(Array);
          }
        } finally {
          await client.close();
          router.clearFaults();
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('a router that drops every new connection as its request arrives', () => {
  let server: Server;
  let requests = 0;
  let ca: string;

  beforeAll(async () => {
    const tls = await selfSignedTls(['127.0.0.1']);
    ca = tls.cert;
    server = createServer({ cert: tls.cert, key: tls.key }, (request) => {
      requests++;
      request.socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is asked once per read: the read fails at once with reason connect', async () => {
    const client = clientOf(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca);
    const resentBefore = readsResent();
    try {
      for (let read = 1; read <= 3; read++) {
        const error = (await client.getSingleton('system/resource').catch((caught: unknown) => caught)) as RouterOsError;
        expect(error).toMatchObject({ code: 'ROS_ERR_CONNECT', reason: 'connect' });
        expect(requests).toBe(read);
      }
      expect(readsResent()).toBe(resentBefore);
    } finally {
      await client.close();
    }
  });
});
