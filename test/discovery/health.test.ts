/** A router from inventory is judged like a configured one: /health lists it, under the target as given. */
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { writeCa } from '../helpers/emulator-config.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };

let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
const logs = captureLogs();

beforeAll(async () => {
  emulator = await startEmulator({ users: [{ name: 'monitor', password: 'pw' }], routers: [{ name: 'r1' }, { name: 'r2' }] });
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: 'pw', timeout: '2s', tls: { ca_file: writeCa(emulator) }, collectors: ONLY_SYSTEM },
    routers: [{ name: 'configured', url: emulator.router('r1').url }],
    profiles: { inventory: { targets: ['127.0.0.1/32'] } },
  });
  app = createApp(config, { logger: logs.logger, jitter: false });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  app.start();
});

afterAll(async () => {
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

it('lists a discovered target in /health beside the configured routers once it has been probed', async () => {
  const target = new URL(emulator.router('r2').url).host;
  const names = async (): Promise<string[]> => {
    const body = (await (await fetch(`${base}/health`)).json()) as { routers: { name: string }[] };
    return body.routers.map((router) => router.name);
  };
  expect(await names()).toEqual(['configured']);
  const probed = await fetch(`${base}/probe?${new URLSearchParams({ target, profile: 'inventory' })}`, {
    headers: { 'x-prometheus-scrape-timeout-seconds': '5' },
  });
  expect(probed.status).toBe(200);
  expect(await probed.text()).toContain(`routeros_up{router="${target}"} 1`);
  expect(await names()).toEqual(['configured', target]);
});
