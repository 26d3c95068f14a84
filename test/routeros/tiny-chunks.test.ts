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
import { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';

/** A TLS server answering every request with `body` in chunks of `size` bytes, and a client of it. */
async function chunkedRouter(body: string, size: number) {
  const tls = await selfSignedTls();
  let wire = '';
  for (let at = 0; at < body.length; at += size) {
    const piece = body.slice(at, at + size);
    wire += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  const bytes = Buffer.from(`${wire}0\r\n\r\n`, 'latin1');
  const server = createServer({ cert: tls.cert, key: tls.key }, (socket: TLSSocket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      socket.write(bytes);
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
  return {
    client,
    close: async (): Promise<void> => {
      await client.close();
      server.close();
    },
  };
}

/** The heap's peak above where it was, sampled while `work` runs. */
async function heapPeak<T>(work: () => Promise<T>): Promise<{ outcome: T | unknown; grew: number }> {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    return { outcome: await work().catch((error: unknown) => error), grew: peak - base };
  } finally {
    clearInterval(sampler);
  }
}

it('reads a reply of 60 KB in one-byte chunks whole, for about what its bytes cost', async () => {
  const body = '[' + '{"a":"1"},'.repeat(5_999) + '{"a":"1"}]';
  const router = await chunkedRouter(body, 1);
  try {
    const { outcome, grew } = await heapPeak(() => router.client.list('ip/address'));
    expect(outcome).toHaveLength(6_000);
    // Bounded whatever the gathering does: 65,536 pieces at most (the unit tests above hold the gathering).
    expect(grew).toBeLessThan(20 * 1024 * 1024);
  } finally {
    await router.close();
  }
});

it('stops a reply of 1 MB in one-byte chunks after 65,536 pieces: parse, having held little (it took 168 MB of heap)', async () => {
  const body = '[' + '{"a":"1"},'.repeat(99_999) + '{"a":"1"}]';
  const router = await chunkedRouter(body, 1);
  try {
    const { outcome, grew } = await heapPeak(() => router.client.list('ip/address'));
    expect(outcome).toBeInstanceOf(RouterOsError);
    expect((outcome as RouterOsError).reason).toBe('parse');
    expect((outcome as RouterOsError).message).toMatch(/more than 65536 pieces of under 64 bytes/);
    expect(grew).toBeLessThan(40 * 1024 * 1024);
  } finally {
    await router.close();
  }
});

describe('ReplyReader with many small pieces', () => {
  it('gathers them into a few parts, in order, and counts every byte', async () => {
    const reader = new ReplyReader(1 << 20, () => new Error('too large'));
    const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
    reader.onResponseStart(controller, 200, { 'content-type': 'application/json' });
    const text = Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    // One-byte pieces, a large one in the middle, then one-byte pieces again.
    for (let i = 0; i < 30_000; i++) reader.onResponseData(controller, Buffer.from(text[i] ?? ''));
    expect(reader.heldBytes).toBe(30_000);
    reader.onResponseData(controller, Buffer.from(text.slice(30_000, 40_000)));
    for (let i = 40_000; i < text.length; i++) reader.onResponseData(controller, Buffer.from(text[i] ?? ''));
    reader.onResponseEnd();
    const reply = await reader.reply;
    expect(Buffer.concat(reply.parts).toString()).toBe(text);
    expect(reply.length).toBe(60_000);
    // 32 kept as they came, then blocks of 4 to 64 KiB: a handful of parts, not 50,001.
    expect(reply.parts.length).toBeLessThan(50);
  });
});

describe('ReplyReader with small pieces between large ones', () => {
  const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
  /** Bytes of memory the parts keep alive: each distinct block once. */
  const retained = (parts: readonly Buffer[]): number => [...new Set(parts.map((part) => part.buffer))].reduce((sum, buffer) => sum + buffer.byteLength, 0);

  it('keeps about what the bytes are: 1-byte and 4 KiB pieces in turn kept a 64 KiB block per byte (found by review)', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'));
    reader.onResponseStart(controller, 200, { 'content-type': 'application/json' });
    let length = 0;
    for (let i = 0; i < 2_000; i++) {
      reader.onResponseData(controller, Buffer.alloc(1, 0x20));
      reader.onResponseData(controller, Buffer.alloc(4096, 0x20));
      length += 4097;
    }
    expect(reader.heldBytes).toBe(length);
    reader.onResponseEnd();
    const reply = await reader.reply;
    expect(Buffer.concat(reply.parts).length).toBe(length);
    expect(retained(reply.parts) / length).toBeLessThan(1.1);
  });

  it('keeps no large block for a reply just past the pieces kept as they come', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'));
    reader.onResponseStart(controller, 200, {});
    for (let i = 0; i < 33; i++) reader.onResponseData(controller, Buffer.alloc(1, 0x20));
    reader.onResponseEnd();
    const reply = await reader.reply;
    expect(retained(reply.parts.slice(32))).toBeLessThanOrEqual(16);
  });
});

describe('the piece cap', () => {
  const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
  it('refuses the 65,537th piece under 64 bytes, however many large ones come between (an average hid them)', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'), () => new Error('too many pieces'));
    reader.onResponseStart(controller, 200, {});
    let small = 0;
    for (let i = 0; small <= 65_536; i++) {
      if (i % 251 === 250) reader.onResponseData(controller, Buffer.alloc(16_384, 0x20));
      else {
        small++;
        reader.onResponseData(controller, Buffer.alloc(1, 0x20));
      }
    }
    await expect(reader.reply).rejects.toThrow('too many pieces');
  });

  it('never refuses pieces of 64 bytes or more, however many (a server writing small chunks)', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'), () => new Error('too many pieces'));
    reader.onResponseStart(controller, 200, {});
    for (let i = 0; i < 100_000; i++) reader.onResponseData(controller, Buffer.alloc(64, 0x20));
    reader.onResponseEnd();
    expect((await reader.reply).length).toBe(6_400_000);
  });

  it('refuses the 65,537th piece of a reply of one-byte pieces', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'), () => new Error('too many pieces'));
    reader.onResponseStart(controller, 200, {});
    for (let i = 0; i < 65_537; i++) reader.onResponseData(controller, Buffer.alloc(1, 0x20));
    await expect(reader.reply).rejects.toThrow('too many pieces');
  });
});

describe('large pieces in reads much larger than themselves', () => {
  const controller = { aborted: false, paused: false, reason: null, abort() {}, pause() {}, resume() {} };
  it('are copied out: a view kept each whole socket read alive (chunk extensions padding a reply, found by review)', async () => {
    const reader = new ReplyReader(32 * 1024 * 1024, () => new Error('too large'));
    reader.onResponseStart(controller, 200, {});
    let length = 0;
    for (let i = 0; i < 200; i++) {
      // 4 KiB of body in a 64 KiB read, the rest of it chunk extensions.
      const read = Buffer.alloc(64 * 1024, 0x20);
      reader.onResponseData(controller, read.subarray(1000, 1000 + 4096));
      length += 4096;
    }
    reader.onResponseEnd();
    const reply = await reader.reply;
    const retained = [...new Set(reply.parts.map((part) => part.buffer))].reduce((sum, buffer) => sum + buffer.byteLength, 0);
    expect(retained / length).toBeLessThan(1.1);
  });
});
