/**
 * Reload requests that wait for their reload are bounded: a waiting request writes nothing, so Node's brake on a
 * connection whose answers pile up never engaged, and a client pipelining POST /-/reload on one connection grew the
 * exporter for as long as the reload took (found by review). Past MAX_RELOADS_WAITING the answer is 503 at once.
 */
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { MAX_RELOADS_WAITING } from '../../src/server/router.js';
import { closeServer, startServer } from '../../src/server/listen.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const config = { ...testConfig({ listen: '127.0.0.1:0', routers: [{ name: 'a', url: 'https://192.0.2.1', username: 'u', password: 'reload-wait-pw' }] }), enableLifecycle: true };
let release: () => void = () => undefined;
let reads = 0;
let app: App;
let server: Server;

beforeAll(async () => {
  app = createApp(config, {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    // A reload that reads its file only when told: every request meanwhile waits for it.
    loadConfig: () => {
      reads++;
      return new Promise((resolve) => {
        release = () => resolve(config);
      });
    },
  });
  server = await startServer(app, config.listen);
});

afterAll(async () => {
  await app.stop();
  await closeServer(server, 1_000);
});

it(`answers at most ${MAX_RELOADS_WAITING} waiting reload requests later; the rest at once with 503, pipelined on one connection`, async () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const socket = connect(address.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  const count = MAX_RELOADS_WAITING + 40;
  const statuses = (): string[] => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => match[1] as string);
  const answered = new Promise<void>((resolve) => {
    socket.on('data', () => {
      if (statuses().length === count) resolve();
    });
  });
  let seen = 0;
  server.on('request', () => seen++);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n'.repeat(count));
  // Every request has arrived while the first reload reads its file: each after it waits (for the reload queued
  // behind it) or is turned away.
  await expect.poll(() => seen).toBe(count);
  expect(reads).toBe(1);
  release();
  await expect.poll(() => reads).toBe(2);
  release();
  await answered;
  socket.destroy();
  // In order on the connection: the first 16 were let wait and reloaded; the rest were answered 503 meanwhile.
  expect(statuses().slice(0, MAX_RELOADS_WAITING)).toEqual(Array.from({ length: MAX_RELOADS_WAITING }, () => '200'));
  expect(statuses().slice(MAX_RELOADS_WAITING)).toEqual(Array.from({ length: count - MAX_RELOADS_WAITING }, () => '503'));
  expect(text).toContain('retry-after: 1');
});
