/**
 * GET /health end to end: createApp + a real HTTP server on 127.0.0.1, emulated routers over HTTPS trusted
 * through the config's tls.ca_file. One collection, then the answers an on-call engineer would read.
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

const PASSWORD = 'health-e2e-secret';
const PRESHARED = 'q3lJ5xvJ8k1uV3J0kSxWwH9vJq0rYbX7m2Tq1Xy0b8s=';
let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
const logs = captureLogs();

const tunnel = (name: string, peers: { name: string; life: 'live' | 'stale' }[]) => ({
  name,
  interfaces: [{ name: 'wg-branch', listenPort: 13231 }],
  peers: peers.map((peer, i) => ({
    interface: 'wg-branch',
    name: peer.name,
    life: peer.life,
    staleForSeconds: 600,
    allowedAddress: [`10.10.0.${i + 2}/32`],
    presharedKey: PRESHARED,
  })),
  ping: { '10.10.0.2': { kind: 'reachable' as const, rttMs: 12 } },
});

beforeAll(async () => {
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      tunnel('hq', [
        { name: 'branch-1', life: 'live' },
        { name: 'branch-2', life: 'stale' },
      ]),
      tunnel('calm', [{ name: 'branch-9', life: 'live' }]),
      tunnel('gone', []),
    ],
  });
  const ca = writeCa(emulator);
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca }, health: { handshake_stale_after: '5m', expect: { 'wg-branch': 'always' } } },
    routers: emulator.routers.map((router) => ({
      name: router.name,
      url: router.url,
      ping: [{ target: '10.10.0.2', name: 'branch-tunnel', interval: '100ms' }],
    })),
  });
  await emulator.router('gone').stop();
  app = createApp(config, { logger: logs.logger, jitter: false });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  await app.collectOnce();
});

afterAll(async () => {
  await app.stop();
  await closeServer(server, 1_000);
  await emulator.close();
});

async function health(query = ''): Promise<{ status: number; type: string | null; body: HealthReport; text: string }> {
  const response = await fetch(`${base}/health${query}`);
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), body: JSON.parse(text) as HealthReport, text };
}

describe('GET /health', () => {
  it('answers 503 naming the stale peer with its reason and age (the acceptance case)', async () => {
    const { status, type, body } = await health('?router=hq');
    expect(status).toBe(503);
    expect(type).toBe('application/json; charset=utf-8');
    expect(body.status).toBe('critical');
    expect(body.summary).toMatch(/^1 stale peer: hq\/wg-branch\/branch-2 \(last handshake 10m(\d{1,2}s)? ago\)$/);
    const [hq] = body.routers;
    expect(hq).toMatchObject({ name: 'hq', status: 'critical', up: true });
    const stale = hq?.peers.find((peer) => peer.name === 'branch-2');
    expect(stale).toMatchObject({ interface: 'wg-branch', healthy: false, judged: true, reason: 'stale', status: 'critical' });
    expect(stale?.handshakeAgeSeconds).toBeGreaterThanOrEqual(600);
    expect(stale?.handshakeAgeSeconds).toBeLessThan(700);
    expect(Date.parse(stale?.latestHandshake ?? '')).toBeLessThan(Date.now() - 599_000);
    expect(stale?.publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(hq?.peers.find((peer) => peer.name === 'branch-1')).toMatchObject({ healthy: true, reason: 'ok', status: 'ok' });
    expect(hq?.reasons).toEqual([expect.stringMatching(/^hq\/wg-branch\/branch-2: down, last handshake 10m(\d{1,2}s)? ago \(due within 5m, expected always on\)$/)]);
    expect(hq?.interfaces).toEqual([{ name: 'wg-branch', running: true, disabled: false, status: 'ok' }]);
    expect(hq?.pings).toEqual([
      expect.objectContaining({ target: '10.10.0.2', name: 'branch-tunnel', lossRatio: 0, status: 'ok', rttSeconds: expect.objectContaining({ avg: expect.any(Number) }) }),
    ]);
  });

  it('answers 200 only when everything is ok', async () => {
    const { status, body } = await health('?router=calm');
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.routers.map((router) => router.name)).toEqual(['calm']);
  });

  it('reports a router that is down as critical, with why, and no peers rather than "fine"', async () => {
    const { status, body } = await health('?router=gone');
    expect(status).toBe(503);
    expect(body.routers[0]).toMatchObject({ status: 'critical', up: false, lastSuccess: null, peers: [], pings: [] });
    expect(body.routers[0]?.reasons[0]).toMatch(/^gone: down: no answer since the exporter started \(connect\)$/);
  });

  it('without a filter covers every router, worst status overall; several ?router= narrow to those', async () => {
    const all = await health();
    expect(all.body.routers.map((router) => [router.name, router.status])).toEqual([
      ['hq', 'critical'],
      ['calm', 'ok'],
      ['gone', 'critical'],
    ]);
    const two = await health('?router=calm&router=gone');
    expect(two.body.routers.map((router) => router.name)).toEqual(['calm', 'gone']);
  });

  it('answers 404 with the known names for an unknown router', async () => {
    const response = await fetch(`${base}/health?router=nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'no router named "nope"', routers: ['hq', 'calm', 'gone'] });
  });

  it('never includes a password, a preshared key or a private key', async () => {
    const { text } = await health();
    const privateKey = emulator.router('hq').rows('interface/wireguard')[0]?.['private-key'];
    expect(privateKey).toBeDefined();
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(PRESHARED);
    expect(text).not.toContain(privateKey);
  });
});
