/**
 * The TLS records the exporter sends are at most MAX_SEND_FRAGMENT_BYTES of plaintext (issue 14: OpenSSL keeps
 * a write buffer of that size for each kept connection). Seen on the wire, over real HTTPS against the emulator
 * with verification on: a TCP relay between client and router reads the record headers the client sends. A router
 * reached over plain HTTP (a discovery profile's scheme) has no records, and is read as before.
 */
import { createServer as createHttpServer } from 'node:http';
import { connect as tcpConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { MAX_SEND_FRAGMENT_BYTES } from '../../src/routeros/connector.js';
import { Secret } from '../../src/util/secret.js';

/** TLS's own bound on a record's ciphertext beyond its plaintext (RFC 8446 §5.2, RFC 5246 §6.2.3). */
const RECORD_EXPANSION_MAX = 256;
const APPLICATION_DATA = 23;

let emulator: Emulator;
let relay: Server;
const relayed: Socket[] = [];
/** The client's records after the first application-data one, by length: its requests. */
const sent: number[] = [];

/** Reads record headers (type, version, length) from the client's byte stream as it passes. */
function recordReader(): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let skip = 0;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (skip > 0) {
        const dropped = Math.min(skip, pending.length);
        pending = pending.subarray(dropped);
        skip -= dropped;
        if (skip > 0) return;
      }
      if (pending.length < 5) return;
      const type = pending[0]!;
      const length = pending.readUInt16BE(3);
      if (type === APPLICATION_DATA) sent.push(length);
      pending = pending.subarray(5);
      skip = length;
    }
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'a' }] });
  const target = new URL(emulator.router('a').url);
  relay = createServer((client) => {
    const router = tcpConnect(Number(target.port), target.hostname);
    relayed.push(client, router);
    const read = recordReader();
    client.on('data', (chunk: Buffer) => {
      read(chunk);
      router.write(chunk);
    });
    router.pipe(client);
    client.on('error', () => router.destroy());
    router.on('error', () => client.destroy());
    client.on('close', () => router.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of relayed) socket.destroy();
  await new Promise((resolve) => relay.close(resolve));
  await emulator.close();
});

describe('TLS records sent', () => {
  it('carry at most MAX_SEND_FRAGMENT_BYTES of plaintext, a long request split into several', async () => {
    const { port } = relay.address() as AddressInfo;
    const client = new RouterOsClient({
      url: `https://127.0.0.1:${port}`,
      username: 'admin',
      password: new Secret(''),
      timeoutMs: 5_000,
      tls: { ca: emulator.ca },
    });
    try {
      await client.getSingleton('system/resource');
      // A request line of ~6 KB: unlimited, it would go as one record of that size.
      const proplist = Array.from({ length: 200 }, (_, index) => `property-${index}-${'x'.repeat(16)}`);
      await client.list('interface', { proplist });
    } finally {
      await client.close();
    }
    const total = sent.reduce((sum, length) => sum + length, 0);
    expect(total).toBeGreaterThan(3 * MAX_SEND_FRAGMENT_BYTES);
    expect(Math.max(...sent)).toBeLessThanOrEqual(MAX_SEND_FRAGMENT_BYTES + RECORD_EXPANSION_MAX);
  });
});

describe('a router reached over plain HTTP', () => {
  it('is read as before: its connection is TCP, with no TLS records to size', async () => {
    const plain = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"uptime":"1d"}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const client = new RouterOsClient({
      url: `http://127.0.0.1:${(plain.address() as AddressInfo).port}`,
      username: 'admin',
      password: new Secret(''),
      timeoutMs: 5_000,
    });
    try {
      expect(await client.getSingleton('system/resource')).toEqual({ uptime: '1d' });
    } finally {
      await client.close();
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
