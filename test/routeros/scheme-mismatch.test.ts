/**
 * A url whose scheme does not match the port it names, the two ways round: the hint says which RouterOS service the
 * port belongs to, not "is www-ssl enabled?" for an http:// url or "check that url uses https" for an https:// one
 * (found by a hostile tester). Real servers: a TLS one and a plain HTTP one.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';

let tlsServer: HttpsServer;
let plainServer: HttpServer;

beforeAll(async () => {
  const tls = await selfSignedTls();
  tlsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.end('{}'));
  plainServer = createHttpServer((_req, res) => res.end('{}'));
  await Promise.all([new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve)), new Promise<void>((resolve) => plainServer.listen(0, '127.0.0.1', resolve))]);
});

afterAll(async () => {
  await Promise.all([new Promise((resolve) => tlsServer.close(resolve)), new Promise((resolve) => plainServer.close(resolve))]);
});

async function failure(url: string): Promise<RouterOsError> {
  const client = new RouterOsClient({ url, username: 'monitor', password: new Secret('pw-scheme-1'), timeoutMs: 3_000, tls: { insecureSkipVerify: true } });
  try {
    await client.getSingleton('system/resource');
  } catch (error) {
    if (error instanceof RouterOsError) return error;
    throw error;
  } finally {
    await client.close();
  }
  throw new Error('the request did not fail');
}

describe('a url whose scheme does not match its port', () => {
  it('http:// at a TLS port: the www service is named, and the www-ssl port said to want https://', async () => {
    const error = await failure(`http://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`);
    expect(error.message).toMatch(/is the www service \(http\) enabled and reachable, and is the port not the www-ssl one \(which wants https:\/\/\)\?$/);
    expect(error.message).not.toContain('is www-ssl enabled');
  });

  it('https:// at a plain HTTP port: the port is said to answer without TLS', async () => {
    const error = await failure(`https://127.0.0.1:${(plainServer.address() as AddressInfo).port}`);
    expect(error.reason).toBe('tls');
    expect(error.message).toContain("that port answers without TLS, as RouterOS's www service (http) does");
    expect(error.message).not.toContain('check that url uses https');
  });
});
