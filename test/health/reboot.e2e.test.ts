/**
 * A hub reboots: RouterOS forgets every handshake, and the branches behind NAT (no endpoint on the hub, keepalive
 * on) come back as their keepalive or old session makes them try. End to end, on the emulator with one clock for
 * both sides: the wireguard run reads the hub's uptime because a peer has no handshake, the peer is due from the
 * boot (healthy, `never_since_boot`), and down once its bound has passed since then; a router whose peers all
 * shook hands pays no extra request.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import type { HealthReport } from '../../src/health/types.js';
import { keepaliveBoundSeconds } from '../../src/analysis/liveness.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';

const PASSWORD = 'reboot-e2e-secret';
const START = Date.UTC(2026, 10, 30, 12, 0, 0);
let clock = START;
let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
const logs = captureLogs();
/** /health after the first collection. */
let firstReport: HealthReport;

/** A hub's peer for a branch behind NAT: keepalive on, no endpoint. `darkAfter`: it makes no handshake after then. */
const branch = (name: string, i: number, darkAfterSeconds?: number) => ({
  interface: 'wg-hub',
  name,
  persistentKeepalive: 25,
  allowedAddress: [`10.20.0.${i + 2}/32`],
  ...(darkAfterSeconds === undefined ? { life: 'live' as const } : { life: 'going-stale' as const, staleAfterSeconds: darkAfterSeconds }),
});

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => clock,
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      {
        name: 'hub',
        interfaces: [{ name: 'wg-hub', listenPort: 13231 }],
        // branch-stale was down before the reboot: the reboot must not call it recovered.
        peers: [branch('branch-live', 0), branch('branch-dark', 1, 60.5), { ...branch('branch-stale', 2), life: 'stale', staleForSeconds: 600 }],
      },
      { name: 'steady', interfaces: [{ name: 'wg-hub', listenPort: 13231 }], peers: [branch('site-1', 0)] },
      // Routers whose uptime says 0 s at every read. liar's only peer never shook hands; liar-2's other peer shook hands
      // before the start it claims.
      { name: 'liar', interfaces: [{ name: 'wg-hub', listenPort: 13231 }], peers: [{ ...branch('ghost', 0), life: 'never' }] },
      { name: 'liar-2', interfaces: [{ name: 'wg-hub', listenPort: 13231 }], peers: [branch('site-1', 0), { ...branch('ghost', 1), life: 'never' }] },
      // Its system/resource answers 500: the uptime read fails, and only adds no grace.
      { name: 'no-uptime', interfaces: [{ name: 'wg-hub', listenPort: 13231 }], peers: [{ ...branch('ghost', 0), life: 'never' }] },
    ],
  });
  for (const name of ['liar', 'liar-2']) {
    emulator.router(name).setFaults({ path: 'system/resource', reply: { status: 200, body: 'data', contentType: 'application/json', text: '{"uptime":"0s","version":"7.19.4 (stable)"}' } });
  }
  emulator.router('no-uptime').setFaults({ status: { 'system/resource': 500 } });
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: writeCa(emulator) } },
    routers: emulator.routers.map((router) => ({ name: router.name, url: router.url })),
  });
  app = createApp(config, { logger: logs.logger, jitter: false, now: () => clock });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  // Every peer has shaken hands by now (the emulator's first handshake comes 1–10 s after a session starts).
  clock += 30_000;
  await app.collectOnce();
  firstReport = await health();
});

afterAll(async () => {
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

async function health(): Promise<HealthReport> {
  const response = await fetch(`${base}/health`);
  return (await response.json()) as HealthReport;
}

async function metrics(): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}

/** Uptime reads (system/resource with `.proplist=uptime` alone) made during one collection, of both routers. */
async function uptimeReadsOfOneCollection(): Promise<number> {
  const spy = vi.spyOn(RouterOsClient.prototype, 'getSingleton');
  try {
    await app.collectOnce();
    return spy.mock.calls.filter(([menu, options]) => menu === 'system/resource' && options?.proplist?.join() === 'uptime').length;
  } finally {
    spy.mockRestore();
  }
}

const peersOf = (report: HealthReport, router: string): [string, string, boolean][] =>
  (report.routers.find((entry) => entry.name === router)?.peers ?? []).map((peer) => [peer.name, peer.reason, peer.healthy]);

describe('a hub that reboots', () => {
  it('before: every peer but the stale one up, and no uptime read by the hub\'s wireguard run', async () => {
    clock += 30_000;
    // The routers whose ghost has no handshake read the uptime (no-uptime tries); the hub and steady do not.
    expect(await uptimeReadsOfOneCollection()).toBe(3);
    const report = await health();
    expect(peersOf(report, 'hub')).toEqual([
      ['branch-live', 'ok', true],
      ['branch-dark', 'ok', true],
      ['branch-stale', 'stale', false],
    ]);
    expect(peersOf(report, 'steady')).toEqual([['site-1', 'ok', true]]);
  });

  it('just after: peers without a handshake are due from the boot, healthy, but not one that was down before; the run read the uptime', async () => {
    emulator.router('hub').reboot();
    // Before the branches' first handshakes (1 s after the boot at the earliest).
    clock += 500;
    expect(await uptimeReadsOfOneCollection()).toBe(4);
    const text = await metrics();
    // The boot as the exporter knows it: the read's time less an uptime RouterOS gives in whole seconds.
    const boot = (clock - 500) / 1000;
    for (const name of ['branch-live', 'branch-dark']) {
      expect(text).toMatch(new RegExp(`routeros_wireguard_peer_healthy\\{router="hub",[^}]*name="${name}"\\} 1\\n`));
      expect(text).toMatch(new RegExp(`routeros_wireguard_peer_state\\{router="hub",[^}]*name="${name}",state="never"\\} 1\\n`));
      const due = Number(new RegExp(`routeros_wireguard_peer_handshake_expected_by_timestamp_seconds\\{router="hub",[^}]*name="${name}"\\} (\\d+)\\n`).exec(text)?.[1]);
      expect(due - keepaliveBoundSeconds(25)).toBeGreaterThanOrEqual(boot);
      expect(due - keepaliveBoundSeconds(25)).toBeLessThanOrEqual(boot + 1);
    }
    // Down before the reboot: never, and still a problem, with no due time made up from the boot.
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{router="hub",[^}]*name="branch-stale"\} 0\n/);
    expect(text).not.toMatch(/expected_by_timestamp_seconds\{router="hub",[^}]*name="branch-stale"\}/);
    const report = await health();
    expect(peersOf(report, 'hub')).toEqual([
      ['branch-live', 'never_since_boot', true],
      ['branch-dark', 'never_since_boot', true],
      ['branch-stale', 'never', false],
    ]);
    expect(logs.text()).not.toMatch(/branch-(live|dark)[^\n]*(has never|has not) shaken hands/);
    expect(logs.text()).not.toMatch(/branch-stale[^\n]*no longer a problem/);
  });

  it('later: a branch that came back is up, one that did not is down once its bound has passed since the boot', async () => {
    // branch-dark stays dark: its handshakes stopped 60.5 s after the start, before its first one after the boot.
    clock += (keepaliveBoundSeconds(25) + 1) * 1000;
    expect(await uptimeReadsOfOneCollection()).toBe(4);
    const report = await health();
    expect(peersOf(report, 'hub')).toEqual([
      ['branch-live', 'ok', true],
      ['branch-dark', 'never', false],
      ['branch-stale', 'never', false],
    ]);
    expect(logs.text()).toMatch(/peer branch-dark on hub\/wg-hub has not shaken hands since the router started at /);
  });
});

describe('a router whose uptime is not one', () => {
  it('that restarts at every read: believed for two starts in a row (an upgrade restarts twice), not for a third', async () => {
    expect(peersOf(firstReport, 'liar')).toEqual([['ghost', 'never_since_boot', true]]);
    // Reads 30 s apart: a start within a minute of the one believed is taken for it, so a new start every few reads,
    // and the third in a row is refused for good.
    const states: string[] = [];
    for (let i = 0; i < 12; i++) {
      clock += 30_000;
      await app.collectOnce();
      states.push(peersOf(await health(), 'liar')[0]?.[1] ?? '');
    }
    expect(states.slice(-4)).toEqual(['never', 'never', 'never', 'never']);
  });

  it('that puts the start after a handshake it still shows: not believed, from the first read on', async () => {
    expect(peersOf(firstReport, 'liar-2')).toEqual([
      ['site-1', 'ok', true],
      ['ghost', 'never', false],
    ]);
  });

  it('that cannot be read: the wireguard run stands, its peers judged without the boot', async () => {
    const text = await metrics();
    expect(text).toContain('routeros_collector_success{router="no-uptime",collector="wireguard"} 1');
    expect(text).toContain('routeros_collector_success{router="no-uptime",collector="system"} 0');
    expect(peersOf(await health(), 'no-uptime')).toEqual([['ghost', 'never', false]]);
  });
});
