/**
 * `check` looks twice at WireGuard peers whose verdict hangs on traffic: a site link without keepalive whose far
 * end is gone shows only as this side's tx moving (handshake initiations), which one look cannot see. The daemon
 * compares each run with the one before and pages; check called the same peer idle and answered OK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { check, TRAFFIC_LOOK_GAP_MS } from '../../src/cli/check.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';

const PASSWORD = 'check-traffic-secret';
const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
let clock = T0;
let emulator: Emulator;
let ca: string;

function configFile(router: string, health: object = {}): string {
  const config = { defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca }, health }, routers: [{ name: router, url: emulator.router(router).url }] };
  return tempFile('routeros-exporter.yml', JSON.stringify(config, null, 2));
}

/** The pause between the looks, on the emulated routers' clock: no waiting in the test. */
const pauses: number[] = [];
async function step(ms: number): Promise<void> {
  pauses.push(ms);
  clock += ms;
  return Promise.resolve();
}

beforeAll(async () => {
  const siteLink = { interface: 'wg-sites', allowedAddress: ['10.10.0.9/32'], endpointAddress: '198.51.100.99', endpointPort: 13231, persistentKeepalive: 0 };
  emulator = await startEmulator({
    now: () => clock,
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      // This side keeps sending handshake initiations to a far end that is gone an hour.
      { name: 'hub', interfaces: [{ name: 'wg-sites' }], peers: [{ ...siteLink, name: 'site-dead', life: 'stale', staleForSeconds: 3_600 }] },
      // A road warrior asleep: no endpoint, nothing to send to, idle is right.
      { name: 'road', interfaces: [{ name: 'wg-road' }], peers: [{ interface: 'wg-road', name: 'laptop', allowedAddress: ['10.8.0.5/32'], life: 'stale', staleForSeconds: 3_600, responder: true }] },
    ],
  });
  ca = writeCa(emulator);
});

afterAll(async () => {
  await emulator.close();
});

describe('check and peers whose verdict hangs on traffic', () => {
  it('a dead site link without keepalive that this side keeps trying: CRITICAL after a second look (it answered OK)', async () => {
    pauses.length = 0;
    const out = await check(configFile('hub'), undefined, { now: () => clock, pause: step });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: hub\/wg-sites\/site-dead/);
  });

  it('a road warrior asleep (no endpoint) needs no second look, and is OK', async () => {
    pauses.length = 0;
    const out = await check(configFile('road'), undefined, { now: () => clock, pause: step });
    expect(pauses).toEqual([]);
    expect(out.code).toBe(0);
  });

  it('peers whose expectation the config sets (on_demand, always) do not hang on traffic: no second look', async () => {
    for (const mode of ['on_demand', 'always']) {
      pauses.length = 0;
      await check(configFile('hub', { expect: { 'wg-sites': mode } }), undefined, { now: () => clock, pause: step });
      expect({ mode, pauses }).toEqual({ mode, pauses: [] });
    }
  });

  it('without room before the deadline for the gap and a request\'s timeout (6 s + 3 s of 8 s), the first look stands', async () => {
    pauses.length = 0;
    const out = await check(configFile('hub'), undefined, { now: () => clock, pause: step, timeoutSeconds: 8 });
    expect(pauses).toEqual([]);
    expect(out.code).toBe(0);
  });
});
