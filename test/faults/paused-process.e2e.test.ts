/**
 * A process paused (a VM paused, SIGSTOP) end to end: createApp and its real HTTP server over an emulated router,
 * one clock for both sides, stepped. A heartbeat (util/pauses.ts) on that clock tells the pause: /health right
 * after the resume, before any run lands, judges the live peers as their last read found them, not stale.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import type { HealthReport } from '../../src/health/types.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { PauseWatch } from '../../src/util/pauses.js';

const PASSWORD = 'paused-e2e-secret';
const START = Date.UTC(2026, 11, 4, 12, 0, 0);
const MINUTE = 60_000;
let clock = START;
let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
let pauses: PauseWatch;
const logs = captureLogs();

const branch = (name: string, i: number) => ({ interface: 'wg-hub', name, persistentKeepalive: 25, allowedAddress: [`10.20.0.${i + 2}/32`], life: 'live' as const });

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => clock,
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [{ name: 'hub', interfaces: [{ name: 'wg-hub', listenPort: 13231 }], peers: [branch('site-1', 0), branch('site-2', 1)] }],
  });
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: writeCa(emulator) } },
    routers: emulator.routers.map((router) => ({ name: router.name, url: router.url })),
  });
  // Both clocks step together, as over a pause: the wall clock and the monotonic one.
  // The exporter's heartbeat on that clock: it beats on real time, and sees the clock move only when the test steps it.
  pauses = new PauseWatch(() => clock - START);
  pauses.start();
  app = createApp(config, { logger: logs.logger, jitter: false, now: () => clock, elapsed: () => clock - START, paused: (since) => pauses.pausedSince(since) });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  clock += 30_000;
  await app.collectOnce();
});

afterAll(async () => {
  pauses?.stop();
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

async function health(): Promise<HealthReport> {
  return (await (await fetch(`${base}/health`)).json()) as HealthReport;
}

const peers = (report: HealthReport): [string, string][] => (report.routers[0]?.peers ?? []).map((peer) => [peer.name, peer.reason]);

describe('an exporter paused for 10 minutes, then resumed', () => {
  it('before: both peers up', async () => {
    const report = await health();
    expect(report.status).toBe('ok');
    expect(peers(report)).toEqual([
      ['site-1', 'ok'],
      ['site-2', 'ok'],
    ]);
  });

  it('just after the resume, before any run: the peers as their last read found them, not stale (they read stale, critical)', async () => {
    clock += 10 * MINUTE;
    const report = await health();
    expect(peers(report)).toEqual([
      ['site-1', 'ok'],
      ['site-2', 'ok'],
    ]);
    expect(report.status).toBe('ok');
  });

  it('after the runs: up on fresh data, and the verdict log said nothing of the peers', async () => {
    await app.collectOnce();
    expect(peers(await health())).toEqual([
      ['site-1', 'ok'],
      ['site-2', 'ok'],
    ]);
    expect(logs.lines().filter((line) => /stale|recovered/.test(String(line['msg'])))).toEqual([]);
  });
});
