/** Basic auth on every request and the user policies that gate REST, reads, writes, tests and secrets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client } from './helpers.js';
import { seedRouter } from './fixtures.js';

let emu: Emulator;
let client: Client;
const R = 'a';
const UNAUTHORIZED = { error: 401, message: 'Unauthorized' };

beforeAll(async () => {
  emu = await startEmulator({
    routers: [seedRouter(R)],
    users: [
      { name: 'admin', password: '' },
      { name: 'monitor', password: 's3cret:with:colons', policies: ['read', 'api', 'rest-api', 'test'] },
      { name: 'noapi', password: 'x', policies: ['read', 'rest-api'] },
      { name: 'norest', password: 'x', policies: ['read', 'api'] },
      { name: 'noread', password: 'x', policies: ['api', 'rest-api'] },
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('authentication', () => {
  it('no credentials → 401 with the RouterOS body and a Basic challenge', async () => {
    const a = await client.call(R, 'GET', '/rest/system/resource', undefined, { auth: false });
    expect(a.status).toBe(401);
    expect(a.json).toEqual(UNAUTHORIZED);
    expect(a.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"$/);
  });

  it('wrong password or unknown user → 401; admin with the empty password works', async () => {
    expect((await client.as('admin', 'guess').get(R, '/rest/system/resource')).json).toEqual(UNAUTHORIZED);
    expect((await client.as('ghost', '').get(R, '/rest/system/resource')).status).toBe(401);
    expect((await client.get(R, '/rest/system/resource')).status).toBe(200);
  });

  it('passwords may contain colons (split at the first one)', async () => {
    expect((await client.as('monitor', 's3cret:with:colons').get(R, '/rest/system/identity')).status).toBe(200);
  });

  it('every request is checked, also on a kept-alive connection', async () => {
    const c = client.as('monitor', 's3cret:with:colons');
    expect((await c.get(R, '/rest/system/identity')).status).toBe(200);
    expect((await c.call(R, 'GET', '/rest/system/identity', undefined, { auth: false })).status).toBe(401);
    await c.close();
  });
});

describe('policies (real-formats §9)', () => {
  it('without rest-api: 401; without api: 500 not allowed; without read: 500 not enough permissions', async () => {
    expect((await client.as('norest', 'x').get(R, '/rest/system/resource')).json).toEqual(UNAUTHORIZED);
    expect((await client.as('noapi', 'x').get(R, '/rest/system/resource')).json).toEqual({ detail: 'std failure: not allowed (9)', error: 500, message: 'Internal Server Error' });
    expect((await client.as('noread', 'x').get(R, '/rest/system/resource')).json).toEqual({ detail: 'not enough permissions (9)', error: 500, message: 'Internal Server Error' });
  });

  it('a read-only monitor may read and ping, not write', async () => {
    const m = client.as('monitor', 's3cret:with:colons');
    expect((await m.post(R, '/rest/ping', { address: '10.0.0.2', count: 1, interval: '10ms' })).status).toBe(200);
    expect((await m.call(R, 'PATCH', '/rest/interface/wireguard/wg0', { mtu: 1300 })).status).toBe(500);
    expect((await m.post(R, '/rest/ip/address/add', { address: '1.2.3.4', interface: 'ether1' })).status).toBe(500);
    expect((await m.post(R, '/rest/ip/address/print', { '.proplist': 'address' })).status).toBe(200);
    await m.close();
  });

  it('without sensitive, private and preshared keys are masked, as a captured reply shows (they were left out; found by review)', async () => {
    const m = client.as('monitor', 's3cret:with:colons');
    const wg = asRows((await m.get(R, '/rest/interface/wireguard')).json);
    expect(wg[0]?.['private-key']).toBe('*****');
    expect(wg[0]?.['public-key']).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const peer = asRows((await m.get(R, '/rest/interface/wireguard/peers')).json)[0];
    expect(peer?.['preshared-key'] ?? '*****').toBe('*****');
    expect(peer?.['private-key'] ?? '*****').toBe('*****');
    expect(Object.values(asRec(peer)).filter((value) => /^[A-Za-z0-9+/]{43}=$/.test(String(value)))).toEqual([peer?.['public-key']]);
    const full = asRec((await client.get(R, '/rest/interface/wireguard/wg0')).json);
    expect(full['private-key']).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    await m.close();
  });

  it('without test, ping is refused', async () => {
    expect((await client.as('noread', 'x').post(R, '/rest/ping', { address: '10.0.0.2', count: 1 })).status).toBe(500);
  });
});
