/**
 * The SSRF guard, end to end over HTTP: a target outside its profile's allow list is refused with 403 before any
 * connection (checked at the emulator's and at a raw listener's side), no password leaves for it (a positive
 * control shows the listener would see one), and the cap holds under 10,000 distinct target= values, cheaply.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { writeCa } from '../helpers/emulator-config.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { gc } from '../helpers/gc.js';

const PASSWORD_INSIDE = 'inside-Secret-8841';
const PASSWORD_OUTSIDE = 'outside-Secret-2290';
const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };

let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
const logs = captureLogs();

/** A plain TCP listener that records every byte anyone sends it, and hangs up once it has the request head. */
const heard: { connections: number; bytes: string } = { connections: 0, bytes: '' };
let listener: NetServer;
let listenerPort = 0;

beforeAll(async () => {
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD_INSIDE }], routers: [{ name: 'r1' }] });
  listener = createServer((socket: Socket) => {
    heard.connections += 1;
    socket.on('data', (chunk: Buffer) => {
      heard.bytes += chunk.toString('latin1');
      if (heard.bytes.includes('\r\n\r\n')) socket.destroy();
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', timeout: '2s', tls: { ca_file: writeCa(emulator) }, collectors: ONLY_SYSTEM },
    routers: [],
    profiles: {
      // Reaches loopback: the emulator and the raw listener.
      inside: { targets: ['127.0.0.1/32'], password: PASSWORD_INSIDE, max_targets: 3 },
      // Names no loopback address: every loopback target is outside it.
      outside: { targets: ['192.0.2.0/24', '*.branch.example'], password: PASSWORD_OUTSIDE },
      // Plain HTTP, so a password sent would be readable at the listener (the positive control).
      cleartext: { targets: ['127.0.0.1/32'], scheme: 'http', password: PASSWORD_OUTSIDE },
    },
  });
  app = createApp(config, { logger: logs.logger, jitter: false });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  app.start();
});

afterAll(async () => {
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await new Promise<void>((resolve) => listener?.close(() => resolve()));
  await emulator?.close();
});

function probe(target: string, profile: string): Promise<Response> {
  return fetch(`${base}/probe?${new URLSearchParams({ target, profile })}`, { headers: { 'x-prometheus-scrape-timeout-seconds': '3' } });
}

describe('a target outside its profile', () => {
  it('is refused with 403 and the emulator sees no connection and no request', async () => {
    const router = emulator.router('r1');
    const target = new URL(router.url).host;
    const before = { ...router.stats };
    const response = await probe(target, 'outside');
    expect(response.status).toBe(403);
    expect(await response.text()).toBe("Refused: target is outside the profile's targets.\n");
    expect(router.stats.connections).toBe(before.connections);
    expect(router.stats.requests).toBe(before.requests);
    expect(app.discovery.size).toBe(0);
    expect(await app.self.render('text')).toContain('routeros_exporter_discovery_refused_total{profile="outside",reason="outside_allow_list"} 1');
  });

  it('gets no password: the listener hears nothing, though it hears the password when the profile allows it', async () => {
    const target = `127.0.0.1:${listenerPort}`;
    expect((await probe(target, 'outside')).status).toBe(403);
    expect(heard).toEqual({ connections: 0, bytes: '' });
    // Positive control: the same target under a profile that allows it, over plain HTTP.
    const allowed = await probe(target, 'cleartext');
    expect(allowed.status).toBe(200);
    expect(heard.connections).toBeGreaterThan(0);
    const basic = Buffer.from(`monitor:${PASSWORD_OUTSIDE}`).toString('base64');
    expect(heard.bytes).toContain(basic);
    expect(logs.text()).not.toContain(PASSWORD_OUTSIDE);
    expect(logs.text()).not.toContain(PASSWORD_INSIDE);
  });

  it('a name is refused by a profile of networks, and an address by a profile of names, without a DNS lookup', async () => {
    expect((await probe('localhost', 'inside')).status).toBe(403);
    expect((await probe('127.0.0.1', 'outside')).status).toBe(403);
    expect((await probe('[::1]:443', 'inside')).status).toBe(403);
  });
});

describe('the cap', () => {
  it('holds under 10,000 distinct target= values, and a refused value costs no memory of its own', async () => {
    // One real target first (the emulator), so the rest fill the cap with targets that fail to connect.
    const router = new URL(emulator.router('r1').url).host;
    expect((await probe(router, 'inside')).status).toBe(200);
    const values = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? `127.0.0.1:${1024 + i}` : `10.${(i >> 8) & 255}.${i & 255}.1:443`));
    // Warm up the path, then measure.
    for (const value of values.slice(0, 200)) await app.discovery.discover(value, 'inside', 0);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const kinds = new Map<string, number>();
    for (const value of values) {
      const result = await app.discovery.discover(value, 'inside', 0);
      kinds.set(result.kind, (kinds.get(result.kind) ?? 0) + 1);
    }
    const elapsed = performance.now() - started;
    gc();
    const grown = process.memoryUsage().heapUsed - heapBefore;
    console.log(
      `cap: 10,000 values in ${elapsed.toFixed(0)} ms (${((elapsed * 1000) / 10_000).toFixed(1)} µs each), heap ${(grown / 1024).toFixed(0)} KiB, ${JSON.stringify(Object.fromEntries(kinds))}`,
    );
    // Three under `inside`, and the listener under `cleartext` from the test before.
    expect(app.discovery.size).toBe(4);
    expect(app.discovery.routers().filter((entry) => entry.url.startsWith('https://'))).toHaveLength(3);
    expect(kinds.get('full')).toBe(values.filter((value) => value.startsWith('127.')).length - 2);
    expect(kinds.get('refused')).toBe(5_000);
    expect(elapsed).toBeLessThan(2_000);
    // Nothing kept per value: well under 100 bytes each.
    expect(grown).toBeLessThan(1_000_000);
    const self = await app.self.render('text');
    expect(self).toContain('routeros_exporter_discovered_targets{profile="inside"} 3');
    expect(self.split('\n').filter((line) => line.startsWith('routeros_exporter_discovery_refused_total')).length).toBeLessThanOrEqual(4);
    expect(self).not.toContain('10.0.0.1');
    // Over HTTP: the next new target is 429 with Retry-After, and still no connection to it.
    const full = await probe('127.0.0.1:7', 'inside');
    expect(full.status).toBe(429);
    // When the first of the profile's targets is due to go: its forget period (150 s here) and the sweep's 10 s, not a made-up minute.
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(full.headers.get('retry-after'))).toBeLessThanOrEqual(160);
  });
});
