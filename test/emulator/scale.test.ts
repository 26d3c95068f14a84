/** Scale scenario smoke check: 100 routers × 1,000 peers start, and a 1,000-peer list is served. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaleRouterName, startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRows, Client } from './helpers.js';

let emu: Emulator;
let client: Client;
let startMs = 0;

beforeAll(async () => {
  const t0 = performance.now();
  emu = await startEmulator({ scenario: 'scale', scale: { routers: 100, interfaces: 4, peers: 1000 } });
  startMs = performance.now() - t0;
  client = new Client(emu);
}, 60_000);

afterAll(async () => {
  await client.close();
  await emu?.close();
});

describe('scale scenario', () => {
  it('has 100 routers on distinct ports, each with 4 interfaces and 1,000 peers', async () => {
    console.log(`scale scenario 100×1000 started in ${Math.round(startMs)} ms`);
    expect(emu.routers).toHaveLength(100);
    expect(new Set(emu.routers.map((r) => r.port)).size).toBe(100);
    const last = emu.router(scaleRouterName(99));
    expect(asRows((await client.get(last, '/rest/interface/wireguard')).json)).toHaveLength(4);
    const t0 = performance.now();
    const peers = asRows((await client.get(last, '/rest/interface/wireguard/peers')).json);
    console.log(`1,000 peers served in ${(performance.now() - t0).toFixed(1)} ms (first, cold request)`);
    expect(peers).toHaveLength(1000);
    expect(new Set(peers.map((p) => p['public-key'])).size).toBe(1000);
    expect(peers.filter((p) => p['last-handshake'] === undefined).length).toBeGreaterThan(0);
    expect(peers.filter((p) => p['disabled'] === 'true').length).toBe(25);
  });

  it('versions cycle 7.16 … 7.23 and every router answers', async () => {
    const versions = new Set(emu.routers.map((r) => r.version));
    expect([...versions].sort()).toEqual(['7.16', '7.17', '7.18', '7.19.4', '7.20.5', '7.21', '7.22', '7.23']);
    const answers = await Promise.all(emu.routers.slice(0, 20).map((r) => client.get(r, '/rest/system/identity')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });

  it('repeated 1,000-peer reads stay quick once every router is built (reported, not asserted)', async () => {
    const t0 = performance.now();
    await emu.ready;
    console.log(`all 100 routers built ${Math.round(performance.now() - t0)} ms later`);
    const r = emu.router(scaleRouterName(0));
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const a = await client.get(r, '/rest/interface/wireguard/peers?.proplist=public-key,rx,tx,last-handshake');
      times.push(performance.now() - t0);
      expect(asRows(a.json)).toHaveLength(1000);
    }
    times.sort((a, b) => a - b);
    const s0 = performance.now();
    const rendered = JSON.stringify(r.rows('interface/wireguard/peers'));
    const serverSide = performance.now() - s0;
    expect(rendered.length).toBeGreaterThan(100_000);
    console.log(`1,000-peer GET median ${times[5]?.toFixed(1)} ms over HTTPS (client included); render + serialise ${serverSide.toFixed(1)} ms`);
  });
});
