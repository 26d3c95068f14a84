/**
 * The demo scenario's interfaces, health and firmware (DEMO_FACTS): hq's uplink flaps once two
 * minutes after start, a dynamic session is present, branch-1 has a firmware upgrade pending; and
 * the control routes that drive links and health from outside the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS, startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client, ManualClock } from './helpers.js';
import type { Rec } from './helpers.js';

const clock = new ManualClock();
let emu: Emulator;
let client: Client;

beforeAll(async () => {
  emu = await startEmulator({ scenario: 'demo', now: clock.now, control: true });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

const iface = async (router: string, name: string): Promise<Rec> =>
  asRows((await client.get(router, `/rest/interface?name=${encodeURIComponent(name)}`)).json)[0] ?? {};

describe('demo: interfaces, health, firmware', () => {
  it('hq lists ethernet, bridge, vlan, loopback, wg and a dynamic pppoe-in session', async () => {
    const rows = asRows((await client.get('hq', '/rest/interface')).json);
    expect(new Set(rows.map((r) => r['type']))).toEqual(new Set(['loopback', 'ether', 'bridge', 'vlan', 'pppoe-in', 'wg']));
    const dyn = rows.filter((r) => r['dynamic'] === 'true').map((r) => r['name']);
    expect(dyn).toEqual([DEMO_FACTS.dynamicInterface.interface]);
  });

  it('the uplink carries traffic and goes down once after linkDownAfterSeconds', async () => {
    const { router, interface: name, linkDownAfterSeconds, downForSeconds } = DEMO_FACTS.uplink;
    const before = await iface(router, name);
    expect(before).toMatchObject({ running: 'true', 'link-downs': '0' });
    expect(BigInt(before['rx-byte'] ?? '0')).toBeGreaterThan(10n ** 9n);
    clock.advance(linkDownAfterSeconds + 1);
    expect(await iface(router, name)).toMatchObject({ running: 'false', 'link-downs': '1' });
    clock.advance(downForSeconds);
    const after = await iface(router, name);
    expect(after).toMatchObject({ running: 'true', 'link-downs': '1' });
    expect(BigInt(after['rx-byte'] ?? '0')).toBeGreaterThan(BigInt(before['rx-byte'] ?? '0'));
  });

  it('hq health rows have fans and PSUs; branch-1 has a firmware upgrade pending and a newer version known', async () => {
    const health = asRows((await client.get(DEMO_FACTS.health.router, '/rest/system/health')).json);
    expect(health.filter((r) => /^fan\d+-speed$/.test(r['name'] ?? ''))).toHaveLength(DEMO_FACTS.health.fans);
    expect(health.filter((r) => /^psu\d+-state$/.test(r['name'] ?? ''))).toHaveLength(DEMO_FACTS.health.psus);
    const f = DEMO_FACTS.firmwareUpgradePending;
    expect(asRec((await client.get(f.router, '/rest/system/routerboard')).json)).toMatchObject({ 'current-firmware': f.currentFirmware, 'upgrade-firmware': f.upgradeFirmware });
    const u = DEMO_FACTS.newerVersionKnown;
    expect(asRec((await client.get(u.router, '/rest/system/package/update')).json)).toMatchObject({ 'installed-version': u.installed, 'latest-version': u.latest, status: 'New version is available' });
    expect(asRec((await client.get('hq', '/rest/system/routerboard')).json)['current-firmware']).toBe(asRec((await client.get('hq', '/rest/system/routerboard')).json)['upgrade-firmware']);
  });
});

describe('control routes for links', () => {
  it('POST /emulator/link pulls and plugs a cable; unknown names are 404, bad bodies 400', async () => {
    expect((await client.post('hq', '/emulator/link', { name: 'ether3', up: false })).status).toBe(204);
    expect(await iface('hq', 'ether3')).toMatchObject({ running: 'false', 'link-downs': '1' });
    expect((await client.post('hq', '/emulator/link', { name: 'ether3', up: true })).status).toBe(204);
    expect((await iface('hq', 'ether3'))['running']).toBe('true');
    expect((await client.post('hq', '/emulator/link', { name: 'nope', up: false })).status).toBe(404);
    expect((await client.post('hq', '/emulator/link', { name: 'ether3' })).status).toBe(400);
    expect((await client.post('hq', '/emulator/health', { failedPsus: 'all' })).status).toBe(400);
  });
});
