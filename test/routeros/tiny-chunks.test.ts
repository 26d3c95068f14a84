/**
 * A reply sent as `Transfer-Encoding: chunked` in one-byte chunks (a hostile router, or what answers in its place):
 * undici hands over one piece per chunk, and the reader kept each, ~150 bytes of heap per byte of data, so 3 MB of
 * reply, a tenth of the reply cap, took 470 MB and a shard's 512 MiB limit (found by review). Small pieces are now
 * gathered into blocks (exchange.ts).
 */
import { createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ReplyReader } from '../../src/routeros/exchange.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';

it('a reply of 1 MB of data in 1-byte chunks costs the heap about what 1 MB does', async () => {
  const tls = await selfSignedTls();
  const body = '[' + '{"a":"1"},'.repeat(99_999) + '{"a":"1"}]';
  const wire = Buffer.from([...body].map((c) => `1\r\n${c}\r\n`).join('') + '0\r\n\r\n', 'latin1');
  const server = createServer({ cert: tls.cert, key: tls.key }, (socket: TLSSocket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      socket.write(wire);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new RouterOsClient({
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    username: 'u',
    password: new Secret('p4ssword'),
    timeoutMs: 20_000,
    tls: { ca: tls.cert },
  });
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    expect(await client.list('ip/address')).toHaveLength(100_000);
  } finally {
    clearInterval(sampler);
    await client.close();
    server.close();
  }
  // The same reply with Content-Length costs ~12 bytes of heap per byte of data (records included).
  expect((peak - base) / body.length).toBeLessThan(40);
});

describe('ReplyReader with many small pieces', () => {
  it('gathers them into a few parts, in order, and counts every byte', async () => {
    const reader = new ReplyReader(1 << 20, () => new Error('too large'));
    const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
    reader.onResponseStart(controller, 200, { 'content-type': 'application/json' });
    const text = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    // One-byte pieces, a large one in the middle, then one-byte pieces again.
    for (let i = 0; i < 50_000; i++) reader.onResponseData(controller, Buffer.from(text[i] ?? ''));
    expect(reader.heldBytes).toBe(50_000);
    reader.onResponseData(controller, Buffer.from(text.slice(50_000, 60_000)));
    for (let i = 60_000; i < text.length; i++) reader.onResponseData(controller, Buffer.from(text[i] ?? ''));
    reader.onResponseEnd();
    const reply = await reader.reply;
    expect(Buffer.concat(reply.parts).toString()).toBe(text);
    expect(reply.length).toBe(100_000);
    // 32 kept as they came, then 64 KiB blocks: a handful of parts, not 90,001.
    expect(reply.parts.length).toBeLessThan(40);
  });
});
