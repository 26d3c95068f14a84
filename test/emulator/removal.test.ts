/**
 * Removal semantics: `/interface wireguard remove` deletes a WireGuard interface (DELETE or POST
 * remove), its peers stay with the old id as their interface and stop (inferred, docs/emulator.md);
 * the generic `/interface` menu has no `remove`: 406 with the manual's body.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client, ManualClock } from './helpers.js';

const recorded = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/recorded/${name}`, import.meta.url), 'utf8'));

const clock = new ManualClock();
let emu: Emulator;
let client: Client;
const R = 'r';

beforeAll(async () => {
  emu = await startEmulator({
    now: clock.now,
    routers: [
      {
        name: R,
        interfaces: [{ name: 'wg0' }, { name: 'wg1' }, { name: 'wg2' }],
        peers: [
          { interface: 'wg0', name: 'keep', rxRate: 100, txRate: 100 },
          { interface: 'wg1', name: 'orphan', rxRate: 100, txRate: 100, endpointAddress: '198.51.100.9', endpointPort: 13231 },
        ],
        addresses: [{ address: '10.1.0.1/24', interface: 'wg1' }],
      },
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('removing interfaces', () => {
  it('DELETE /interface/wireguard/<name> removes it from both menus; its peers keep the old id and stop', async () => {
    const wg1 = asRec((await client.get(R, '/rest/interface/wireguard/wg1')).json);
    const id = wg1['.id'] ?? '';
    clock.advance(600); // the peer has handshaken and carried traffic by now
    const del = await client.call(R, 'DELETE', '/rest/interface/wireguard/wg1');
    expect(del.status).toBe(204);
    expect((await client.get(R, '/rest/interface/wireguard/wg1')).status).toBe(404);
    expect(asRows((await client.get(R, '/rest/interface?name=wg1')).json)).toEqual([]);
    const orphan = asRec((await client.get(R, '/rest/interface/wireguard/peers/orphan')).json);
    expect(orphan['interface']).toBe(id);
    expect(orphan['last-handshake']).toBeUndefined();
    clock.advance(60);
    const later = asRec((await client.get(R, '/rest/interface/wireguard/peers/orphan')).json);
    expect(later['rx']).toBe(orphan['rx']);
    expect(asRows((await client.get(R, '/rest/ip/address')).json)[0]).toMatchObject({ interface: id, invalid: 'true' });
    // The other interface and its peer are untouched.
    expect(asRec((await client.get(R, '/rest/interface/wireguard/peers/keep')).json)['interface']).toBe('wg0');
    // Disabled and enabled again, the orphan stays stopped: its interface is gone (found by review).
    await client.call(R, 'PATCH', '/rest/interface/wireguard/peers/orphan', { disabled: 'yes' });
    await client.call(R, 'PATCH', '/rest/interface/wireguard/peers/orphan', { disabled: 'no' });
    clock.advance(600);
    const revived = asRec((await client.get(R, '/rest/interface/wireguard/peers/orphan')).json);
    expect(revived['last-handshake']).toBeUndefined();
    expect(revived['rx']).toBe(orphan['rx']);
    // Ids are never reused: a new interface gets a fresh one.
    const put = asRec((await client.call(R, 'PUT', '/rest/interface/wireguard', { name: 'wg1' })).json);
    expect(put['.id']).not.toBe(id);
  });

  it('POST /interface/wireguard/remove works too', async () => {
    expect((await client.post(R, '/rest/interface/wireguard/remove', { numbers: 'wg2' })).json).toEqual([]);
    expect(asRows((await client.get(R, '/rest/interface/wireguard?name=wg2')).json)).toEqual([]);
  });

  it('the generic menu answers 406 no such command (remove), the body of the manual\'s example', async () => {
    for (const ref of ['ether1', 'lo', 'wg0', '*1']) {
      const a = await client.call(R, 'DELETE', `/rest/interface/${ref}`);
      expect(a.status, ref).toBe(406);
      expect(a.json).toEqual(recorded('error-406-remove-interface.json'));
    }
    expect(asRows((await client.get(R, '/rest/interface?name=ether1')).json)).toHaveLength(1);
    expect(asRows((await client.get(R, '/rest/interface/wireguard?name=wg0')).json)).toHaveLength(1);
    expect((await client.call(R, 'DELETE', '/rest/interface/ethernet/ether1')).status).toBe(406);
  });
});
