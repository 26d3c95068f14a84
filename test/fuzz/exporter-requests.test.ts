/**
 * Request fuzzing against the exporter's real server (createApp + startServer), plain, behind Basic
 * authentication, and over HTTPS: thousands of random targets, methods, headers and bodies over raw sockets, a few seconds
 * each, half of them from a client that half-closes once its request is sent (it still wants the answer). The
 * process must survive (no uncaught exception or unhandled rejection), every request must get a well-formed
 * status line (never a 500: nothing may throw), at most one log line each, and /metrics must still answer
 * afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../server/raw-client.js';
import { startExporter, WEB_AUTH, WEB_PASSWORD, WEB_USER } from '../server/exporter.js';
import { request, wire } from './requests.js';

const BUDGET_MS = 4000;
const BATCH = 12;

const escaped: unknown[] = [];
const onEscape = (error: unknown): void => void escaped.push(error);
beforeAll(() => {
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
afterAll(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

/** Credentials sent with some requests, so authenticated routes (and reload) are reached too. */
const credentials = fc.constantFrom<[string, string][]>([], [], [['Authorization', WEB_AUTH]], [['Authorization', `Basic ${Buffer.from(`${WEB_USER}:x${WEB_PASSWORD}`).toString('base64')}`]]);

describe.each([
  ['plain', false, false],
  ['behind Basic authentication', true, false],
  // Over TLS an answer's writes complete on later turns, and the TLS layer has its own end of stream.
  ['over HTTPS, behind Basic authentication', true, true],
])('request fuzzing: the exporter, %s', (name, basicAuth, tls) => {
  it('answers every request and survives', async () => {
    const exporter = await startExporter({ basicAuth, tls, enableLifecycle: true });
    let tried = 0;
    const statuses = new Map<number, number>();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(request, credentials, fc.boolean()), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          const answers = await Promise.all(batch.map(([req, extra, halfClose]) => rawRequest(wire(req, extra), { port: exporter.port, tls, timeoutMs: 3000, halfClose })));
          tried += batch.length;
          for (const [index, answer] of answers.entries()) {
            const sent = `${JSON.stringify(wire(batch[index]?.[0] as never).toString('latin1'))}${batch[index]?.[2] === true ? ', half-closed' : ''}`;
            expect(answer.status, `no status line for ${sent}: ${JSON.stringify(answer.statusLine)}`).toBeTypeOf('number');
            expect(answer.status, `500 for ${sent}`).not.toBe(500);
            statuses.set(answer.status ?? 0, (statuses.get(answer.status ?? 0) ?? 0) + 1);
          }
          expect(escaped).toEqual([]);
        }),
        { numRuns: 1_000_000, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false },
      );
      const metrics = await rawRequest(`GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: ${WEB_AUTH}\r\n\r\n`, { port: exporter.port, tls });
      expect(metrics.status).toBe(200);
      expect(exporter.logs.lines().length).toBeLessThanOrEqual(tried);
      expect(escaped).toEqual([]);
      console.log(`request fuzzing (exporter, ${name}): ${tried} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
      expect(tried).toBeGreaterThan(0);
    } finally {
      await exporter.close();
    }
  }, 30_000);
});
