/**
 * Request fuzzing against the emulator's HTTPS server: random targets (REST paths, the control endpoint,
 * targets the URL parser refuses), methods, headers and bodies over raw TLS sockets, a few seconds. The
 * process must survive, every request must get a well-formed status line, and the REST API must still answer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { rawRequest } from '../server/raw-client.js';
import { request, wire } from './requests.js';

const BUDGET_MS = 5000;
const BATCH = 16;
const ADMIN = `Basic ${Buffer.from('admin:').toString('base64')}`;

const escaped: unknown[] = [];
const onEscape = (error: unknown): void => void escaped.push(error);
let emulator: Emulator;
beforeAll(async () => {
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
  emulator = await startEmulator({ routers: [{ name: 'fuzz' }], control: true, commandTimeoutMs: 2000 });
});
afterAll(async () => {
  await emulator.close();
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

const REST = ['/rest', '/rest/', '/rest/system/resource', '/rest/interface/wireguard/peers', '/rest/ip/address', '/rest/user', '/emulator/faults', '/emulator/reboot', '/webfig/'];
/** REST-shaped targets besides the generic ones, so the dispatcher is reached. */
const target = fc.oneof(
  request.map((r) => r.target),
  fc.tuple(fc.constantFrom(...REST), fc.constantFrom('', '/', '/*1', '/..', '/%2e%2e', '?.proplist=name', '?name=%zz', '/print', '//x')).map(([a, b]) => a + b),
);
const credentials = fc.constantFrom<[string, string][]>([], [['Authorization', ADMIN]], [['Authorization', ADMIN]]);
const body = fc.oneof(fc.constant(''), fc.constantFrom('{}', '[]', '{"name":1}', '{"numbers":"1"}', 'null', '{'), fc.json({ maxDepth: 2 }));

describe('request fuzzing: the emulator', () => {
  it('answers every request and survives', async () => {
    const port = new URL(emulator.router('fuzz').url).port;
    let tried = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(request, target, credentials, body), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const wires = batch.map(([req, path, extra, content]) =>
          wire({ ...req, target: path, body: content || req.body }, extra),
        );
        const answers = await Promise.all(wires.map((bytes) => rawRequest(bytes, { port: Number(port), tls: true, timeoutMs: 4000 })));
        tried += batch.length;
        for (const [index, answer] of answers.entries()) {
          const sent = JSON.stringify(wires[index]?.toString('latin1'));
          expect(answer.status, `no status line for ${sent}: ${JSON.stringify(answer.statusLine)}`).toBeTypeOf('number');
          statuses.set(answer.status ?? 0, (statuses.get(answer.status ?? 0) ?? 0) + 1);
        }
        expect(escaped).toEqual([]);
      }),
      { numRuns: 1_000_000, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false },
    );
    const after = await rawRequest(`GET /rest/system/identity HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\n\r\n`, { port: Number(port), tls: true });
    expect(after.status).toBe(200);
    expect(escaped).toEqual([]);
    console.log(`request fuzzing (emulator): ${tried} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(tried).toBeGreaterThan(0);
  }, 30_000);

  it('refuses CONNECT with 405 instead of dropping it unanswered', async () => {
    const port = Number(new URL(emulator.router('fuzz').url).port);
    const answer = await rawRequest(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: ${ADMIN}\r\n\r\n`, { port, tls: true });
    expect(answer.status).toBe(405);
  });
});
