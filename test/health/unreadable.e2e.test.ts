/**
 * What cannot be read is visible, end to end: two stale peers, then the emulator's `unknownFormats` fault makes
 * every last-handshake undecodable. /health must not turn 200 ok (it says degraded, "cannot judge 2 peers"),
 * `check` must say WARNING, and /metrics counts the values that did not decode.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import type { Config } from '../../src/config/types.js';
import type { HealthReport } from '../../src/health/types.js';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { testConfig } from '../helpers/config.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { check } from '../../src/cli/check.js';
import { captureLogs } from '../helpers/log-capture.js';

const PASSWORD = 'unreadable-e2e-secret';
let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
let config: Config;
let configPath: string;

beforeAll(async () => {
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      {
        name: 'hq',
        interfaces: [{ name: 'wg-branch', listenPort: 13231 }],
        peers: ['a', 'b'].map((name, i) => ({
          interface: 'wg-branch',
          name,
          life: 'stale' as const,
          staleForSeconds: 600,
          allowedAddress: [`10.10.0.${i + 2}/32`],
        })),
      },
    ],
  });
  const ca = writeCa(emulator);
  // The same settings as a file, for the `check` command (JSON is YAML).
  configPath = tempFile(
    'routeros-exporter.yml',
    JSON.stringify({
      log_level: 'error',
      defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca }, health: { handshake_stale_after: '5m', expect: { 'wg-branch': 'always' } } },
      routers: emulator.routers.map((router) => ({ name: router.name, url: router.url, collectors: { ping: false } })),
    }),
  );
  config = testConfig({
    listen: '127.0.0.1:0',
    defaults: {
      username: 'monitor',
      password: PASSWORD,
      timeout: '3s',
      tls: { ca_file: ca },
      health: { handshake_stale_after: '5m', expect: { 'wg-branch': 'always' } },
      collectors: { ping: false, bandwidth_test: false },
    },
    routers: emulator.routers.map((router) => ({ name: router.name, url: router.url })),
  });
  app = createApp(config, { logger: captureLogs().logger, jitter: false });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
});

afterAll(async () => {
  await app.stop();
  await closeServer(server, 1_000);
  await emulator.close();
});

async function health(): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${base}/health`);
  return { status: response.status, body: (await response.json()) as HealthReport };
}

describe('unreadable handshakes', () => {
  it('turn critical into degraded, never into ok; check says WARNING; the problems are counted', async () => {
    await app.collectOnce();
    const before = await health();
    expect(before.body.status).toBe('critical');
    expect(before.body.summary).toMatch(/^2 stale peers/);

    emulator.router('hq').setFaults({ unknownFormats: true });
    await app.collectOnce();
    const after = await health();
    expect(after.status).toBe(503);
    expect(after.body.status).toBe('degraded');
    expect(after.body.summary).toMatch(/cannot judge 2 peers/);
    expect(after.body.routers[0]?.peers.map((peer) => peer.reason)).toEqual(['handshake_unreadable', 'handshake_unreadable']);

    const formatted = formatCheck(evaluateRouters(config.routers, app.store, Date.now()), config.routers);
    expect(formatted.state).toBe('WARNING');
    expect(formatted.text).toMatch(/^ROUTEROS WARNING - .*cannot judge 2 peers/);

    const command = await check(configPath);
    expect(command.code).toBe(1);
    // The emulator's interface says running=maybe too: whether it runs cannot be told, which is not ok either.
    expect(command.text).toMatch(/^ROUTEROS WARNING - 1 router with peers it cannot judge: hq\/wireguard \(cannot judge 2 peers\); 1 interface that cannot be judged: hq\/wg-branch \(cannot tell whether it runs\)\n/);
    expect(after.body.routers[0]?.interfaces).toMatchObject([{ name: 'wg-branch', running: null, status: 'degraded' }]);

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const counted = /routeros_collector_decode_errors_total\{router="hq",collector="wireguard"\} (\d+)/.exec(metrics);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(2);
  });
});
