/**
 * Whatever a client sends to the HTTPS port, generated: random bytes, a real ClientHello cut short or with bytes
 * flipped, plain HTTP, and real TLS clients with no certificate, one from another CA, an expired one or the right one,
 * over TLS 1.2 or 1.3, several in a row. The server keeps serving the right client after each; the refusal log
 * counts every certificate that does not verify by its code, keeps its reasons bounded, and never quotes what a
 * client sent. Before this, refused handshakes had case tests only.
 */
import fc from 'fast-check';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect as netConnect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/cli/daemon.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { httpsGet, makeCert, type Pem } from './tls-helpers.js';

const DAY = 86_400_000;
/** Written into what hostile clients send: it must never reach a log line. */
const MARKER = 'Authorization: Basic bWFya2VyOnNlY3JldA==';

let daemon: Daemon;
let server: Pem;
let admitted: Pem;
let otherCa: Pem;
let foreign: Pem;
let expired: Pem;
/** The first flight of a real TLS client (its ClientHello), recorded once. */
let clientHello: Buffer;
const logs = captureLogs();

async function recordClientHello(): Promise<Buffer> {
  const sink = createNetServer();
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  const first = once(sink, 'connection').then(async ([socket]) => {
    const [chunk] = (await once(socket as NodeJS.EventEmitter, 'data')) as [Buffer];
    (socket as { destroy(): void }).destroy();
    return chunk;
  });
  const client = tlsConnect({ host: '127.0.0.1', port: (sink.address() as AddressInfo).port, servername: 'localhost', rejectUnauthorized: false });
  client.on('error', () => undefined);
  const hello = await first;
  client.destroy();
  sink.close();
  return hello;
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-tls-hostile-'));
  const clientCa = await makeCert({ commonName: 'Scrapers CA', isCa: true });
  otherCa = await makeCert({ commonName: 'Another CA', isCa: true });
  [server, admitted, foreign, expired] = await Promise.all([
    makeCert(),
    makeCert({ commonName: 'prometheus', client: true, ca: clientCa }),
    makeCert({ commonName: 'prometheus', client: true, ca: otherCa }),
    makeCert({ commonName: 'prometheus', client: true, ca: clientCa, notBefore: new Date(Date.now() - 60 * DAY), notAfter: new Date(Date.now() - 30 * DAY) }),
  ]);
  writeFileSync(join(dir, 'server.crt'), server.cert);
  writeFileSync(join(dir, 'server.key'), server.key, { mode: 0o600 });
  writeFileSync(join(dir, 'clients.crt'), clientCa.cert);
  writeFileSync(
    join(dir, 'web.yml'),
    'tls_server_config: { cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: clients.crt }\n',
  );
  const config = testConfig({
    listen: '127.0.0.1:0',
    web_config_file: join(dir, 'web.yml'),
    defaults: { username: 'admin', password: '', schedules: { system: '0 0 1 1 *', wireguard: '0 0 1 1 *' } },
    routers: [{ name: 'r1', url: 'https://192.0.2.1' }],
  });
  daemon = await startDaemon(config, logs.logger, undefined);
  clientHello = await recordClientHello();
}, 60_000);

afterAll(async () => {
  await daemon?.shutdown('test');
});

const port = (): number => Number(new URL(daemon.url).port);

/** A TLS client's request for /-/healthy: its status, or undefined when the connection failed. */
function tlsClient(client: Pem | undefined, maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<number | undefined> {
  return httpsGet(`${daemon.url}/-/healthy`, { ca: server.cert, maxVersion, ...(client === undefined ? {} : { client }) }).then(
    (answer) => answer.status,
    () => undefined,
  );
}

/** Sends bytes and the end of them, then waits until the server has closed the connection. */
function raw(bytes: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    const socket = netConnect(port(), '127.0.0.1', () => {
      socket.end(bytes);
    });
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.resume();
  });
}

type Client =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'hello'; cut: number; flips: [number, number][] }
  | { kind: 'http' }
  | { kind: 'tls'; cert: 'none' | 'foreign' | 'expired' | 'admitted'; version: 'TLSv1.2' | 'TLSv1.3' };

const client: fc.Arbitrary<Client> = fc.oneof(
  fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 400 }) }),
  fc.record({ kind: fc.constant('hello' as const), cut: fc.nat(), flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('http' as const) }),
  fc.record({
    kind: fc.constant('tls' as const),
    cert: fc.constantFrom('none' as const, 'foreign' as const, 'expired' as const, 'admitted' as const),
    version: fc.constantFrom('TLSv1.2' as const, 'TLSv1.3' as const),
  }),
);

/** What each refused kind of certificate is counted as (a verification code is never folded into `other`). */
const CODE_OF = { foreign: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', expired: 'CERT_HAS_EXPIRED' } as const;

describe('hostile clients on the HTTPS port', () => {
  it('never stop it serving, and are counted by a bounded set of codes without a word of what they sent', async () => {
    const sent = { foreign: 0, expired: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(client, { minLength: 1, maxLength: 4 }), async (clients) => {
        for (const one of clients) {
          if (one.kind === 'bytes') {
            await raw(Buffer.concat([Buffer.from(one.bytes), Buffer.from(MARKER)]));
          } else if (one.kind === 'hello') {
            const bytes = Buffer.from(clientHello.subarray(0, one.cut % (clientHello.length + 1)));
            for (const [at, xor] of one.flips) {
              if (bytes.length > 0) bytes.writeUInt8((bytes.readUInt8(at % bytes.length) ^ xor) & 0xff, at % bytes.length);
            }
            await raw(Buffer.concat([bytes, Buffer.from(MARKER)]));
          } else if (one.kind === 'http') {
            await raw(Buffer.from(`GET /metrics HTTP/1.1\r\nHost: x\r\n${MARKER}\r\n\r\n`));
          } else {
            const pem = { none: undefined, foreign, expired, admitted }[one.cert];
            const status = await tlsClient(pem, one.version);
            expect({ cert: one.cert, status }).toEqual({ cert: one.cert, status: one.cert === 'admitted' ? 200 : undefined });
            if (one.cert === 'foreign' || one.cert === 'expired') sent[one.cert]++;
          }
        }
        // Still serving the scraper it should.
        expect(await tlsClient(admitted, 'TLSv1.3')).toBe(200);
      }),
      { numRuns: 25 },
    );
    // The server's close says what is still counted.
    await daemon.shutdown('test');
    const lines = logs.lines().filter((line) => typeof line['refused'] === 'number');
    expect(lines.length).toBeGreaterThan(0);
    const total: Record<string, number> = {};
    for (const line of lines) {
      const reasons = line['reasons'] as Record<string, number>;
      // Eight reasons, the verification codes apart, and `other`.
      expect(Object.keys(reasons).length).toBeLessThanOrEqual(8 + 29 + 1);
      for (const reason of Object.keys(reasons)) expect(reason).toMatch(/^(?:[A-Z0-9_]{1,64}|other)$/);
      expect(Object.values(reasons).reduce((sum, count) => sum + count, 0)).toBe(line['refused']);
      for (const [reason, count] of Object.entries(reasons)) total[reason] = (total[reason] ?? 0) + count;
    }
    expect(total[CODE_OF.foreign] ?? 0).toBe(sent.foreign);
    expect(total[CODE_OF.expired] ?? 0).toBe(sent.expired);
    expect(logs.text()).not.toContain('bWFya2VyOnNlY3JldA');
  }, 120_000);
});
