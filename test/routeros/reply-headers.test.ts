/**
 * A reply whose head says it is not plain JSON is not believed, over a real TLS connection: a Content-Encoding the
 * exporter did not ask for (gzip, br: a `[]` under it was read as "no peers"), or Content-Type given twice with one
 * of them not JSON (the first alone was read). Both found by review. The same `[]` with a plain head is data.
 */
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { readsResent, RouterOsClient } from '../../src/routeros/client.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { isIdentityEncoding, isJsonContentType } from '../../src/routeros/body.js';
import { Secret } from '../../src/util/secret.js';
import { unanswered } from '../../src/scheduler/standing.js';

let server: Server;
let ca: string;
/** The head lines (after the status line) the next reply is sent with, or the whole raw reply. */
let head: string[] = [];
let raw: string | undefined;
/** Whether the connection is closed right after the reply (a body then cut off by the close). */
let closeAfter = false;

beforeAll(async () => {
  const tls = await selfSignedTls();
  ca = tls.cert;
  server = createServer({ cert: tls.cert, key: tls.key }, (socket: TLSSocket) => {
    socket.on('error', () => undefined);
    socket.on('data', () => {
      const reply = raw ?? ['HTTP/1.1 200 OK', ...head, 'Content-Length: 2', '', '[]'].join('\r\n');
      if (closeAfter) socket.end(reply, 'latin1');
      else socket.write(reply, 'latin1');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => {
  server.close();
});

/** A client of the test's router. */
function clientOfServer(): RouterOsClient {
  return new RouterOsClient({
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    username: 'u',
    password: new Secret('p4ssword'),
    timeoutMs: 5_000,
    tls: { ca },
  });
}

async function read(lines: string[], rawReply?: string, close = false): Promise<unknown> {
  head = lines;
  raw = rawReply;
  closeAfter = close;
  const client = clientOfServer();
  try {
    return await client.list('interface/wireguard/peers');
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe('a reply whose head says it is not plain JSON', () => {
  it.each([
    ['gzip', ['Content-Type: application/json', 'Content-Encoding: gzip']],
    ['br', ['Content-Type: application/json', 'Content-Encoding: br']],
    ['gzip, identity', ['Content-Type: application/json', 'Content-Encoding: gzip, identity']],
    ['JSON and HTML', ['Content-Type: application/json', 'Content-Type: text/html']],
    ['HTML and JSON', ['Content-Type: text/html', 'Content-Type: application/json']],
  ])('%s: fails as parse, never "no peers"', async (_name, lines) => {
    const outcome = await read(lines);
    expect(outcome).toBeInstanceOf(RouterOsError);
    expect((outcome as RouterOsError).reason).toBe('parse');
    expect((outcome as RouterOsError).message).toMatch(/not data and nothing was believed/);
    // The message names what the head said, every Content-Type of it.
    if (lines.some((line) => line.includes('text/html'))) expect((outcome as RouterOsError).message).toMatch(/answered HTML \(application\/json, text\/html|answered HTML \(text\/html, application\/json/);
  });

  it.each([
    ['plain', ['Content-Type: application/json']],
    ['identity', ['Content-Type: application/json', 'Content-Encoding: identity']],
    ['JSON twice', ['Content-Type: application/json', 'Content-Type: application/json; charset=utf-8']],
  ])('%s: is data', async (_name, lines) => {
    expect(await read(lines)).toEqual([]);
  });
});

describe('an answer that is no HTTP reply', () => {
  // The router, or what answers in its place, sent bytes: `parse`, not `connect` ("is www-ssl enabled and
  // reachable?"), which also counted the router as silent (found by review).
  it.each([
    ['a head over 16 KiB (a proxy cookie)', `HTTP/1.1 200 OK\r\nSet-Cookie: ${'a'.repeat(20_000)}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]`],
    ['two Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n[]'],
    ['a control byte in a header', 'HTTP/1.1 200 OK\r\nX-A: b\x01\r\nContent-Length: 2\r\n\r\n[]'],
    ['another protocol on the port', 'SSH-2.0-OpenSSH_9.0\r\n'],
    // undici closes these itself: they read as a kept connection closed underneath, sent again, then `connect`.
    ['a 100 Continue nobody asked for', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]'],
    ['a 101 switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'],
  ])('%s: fails as parse, and the router answered', async (_name, reply) => {
    const outcome = await read([], reply);
    expect(outcome).toBeInstanceOf(RouterOsError);
    expect((outcome as RouterOsError).reason).toBe('parse');
    expect((outcome as RouterOsError).message).toMatch(/not a valid HTTP reply/);
    expect(unanswered((outcome as RouterOsError).reason)).toBe(false);
    // The parser's refusal, which holds the raw bytes, is not kept.
    expect((outcome as RouterOsError).cause).toBeUndefined();
  });
});

describe("undici's own closes of an answer it would not take", () => {
  it('are not read as a kept connection closed underneath: not sent again', async () => {
    const client = clientOfServer();
    try {
      head = ['Content-Type: application/json'];
      raw = undefined;
      closeAfter = false;
      expect(await client.list('interface/wireguard/peers')).toEqual([]);
      // On the kept connection now: a close under a read sent on it is what the one resend is for.
      raw = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]';
      const resentBefore = readsResent();
      const outcome = await client.list('interface/wireguard/peers').catch((error: unknown) => error);
      expect((outcome as RouterOsError).reason).toBe('parse');
      expect(readsResent()).toBe(resentBefore);
    } finally {
      await client.close();
    }
  });
});

describe('a reply cut off mid-body by a close', () => {
  // After the head, undici reports the cut as a length mismatch or a parser error: the reply was cut off, not
  // "something other than the router's www-ssl service answers on that port" (found by review).
  const part = '[{"a":"1"},'.padEnd(1000, ' ');
  it.each([
    ['Content-Length', `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 100000\r\n\r\n${part}`],
    ['chunked', `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n${part.length.toString(16)}\r\n${part}\r\n`],
  ])('%s: parse, cut off', async (_name, reply) => {
    const outcome = await read([], reply, true);
    expect(outcome).toBeInstanceOf(RouterOsError);
    expect((outcome as RouterOsError).reason).toBe('parse');
    expect((outcome as RouterOsError).message).toMatch(/cut off/);
    expect((outcome as RouterOsError).message).not.toMatch(/answers on that port/);
  });
});

describe('a reply whose body is no valid HTTP framing', () => {
  // Bytes that came whole but are no HTTP body (a chunk size that is no number, trailers over 16 KiB): something
  // mangles the reply, not a connection that dropped; "check the network path" sent operators the wrong way.
  const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  it.each([
    ['a chunk size that is no number', `${HEAD}2\r\n[]\r\nzz\r\n`],
    ['a chunk without its line end', `${HEAD}2\r\n[]xx0\r\n\r\n`],
    ['trailers past undici\'s bound', `${HEAD}2\r\n[]\r\n0\r\n${'X-A: b\r\n'.repeat(20_000)}\r\n`],
  ])('%s: parse, not valid HTTP, not cut off', async (_name, reply) => {
    const outcome = await read([], reply);
    expect(outcome).toBeInstanceOf(RouterOsError);
    expect((outcome as RouterOsError).reason).toBe('parse');
    expect((outcome as RouterOsError).message).toMatch(/body was not valid HTTP/);
    expect((outcome as RouterOsError).message).not.toMatch(/cut off|network path/);
    expect((outcome as RouterOsError).cause).toBeUndefined();
  });
});

describe('the head checks', () => {
  it('read every value given', () => {
    expect(isJsonContentType(['application/json', 'text/html'])).toBe(false);
    expect(isJsonContentType([])).toBe(false);
    expect(isJsonContentType(undefined)).toBe(true);
    expect(isIdentityEncoding(undefined)).toBe(true);
    expect(isIdentityEncoding(['identity', 'GZIP'])).toBe(false);
    expect(isIdentityEncoding(' Identity ')).toBe(true);
  });
});
