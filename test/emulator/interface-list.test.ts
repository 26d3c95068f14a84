/** `interface/list` and `interface/list/member`: the built-in lists, defconf's, members, and what the router refuses. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client } from './helpers.js';
import { seedRouter } from './fixtures.js';

let emu: Emulator;
let client: Client;
const R = 'lists';
const BRIDGED = 'bridged';
const SEEDED = 'seeded';

beforeAll(async () => {
  emu = await startEmulator({
    routers: [
      seedRouter(R),
      seedRouter(BRIDGED, '7.19.4', { links: [{ name: 'ether1' }, { name: 'ether2', bridge: 'bridge' }, { name: 'bridge', type: 'bridge' }] }),
      seedRouter(SEEDED, '7.19.4', {
        interfaceLists: [{ name: 'TRUSTED' }, { name: 'ALL-BUT-WAN', include: 'all', exclude: 'TRUSTED' }],
        interfaceListMembers: [{ list: 'TRUSTED', interface: 'ether2' }, { list: 'TRUSTED', interface: 'wg0', disabled: true }],
      }),
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

const bad = (detail: string): unknown => ({ detail, error: 400, message: 'Bad Request' });

describe('interface/list', () => {
  it("lists the four built-in lists, then defconf's WAN and LAN", async () => {
    const lists = asRows((await client.get(R, '/rest/interface/list')).json);
    expect(lists.map((list) => [list['name'], list['builtin']])).toEqual([
      ['all', 'true'],
      ['none', 'true'],
      ['dynamic', 'true'],
      ['static', 'true'],
      ['WAN', 'false'],
      ['LAN', 'false'],
    ]);
    expect(lists[4]).toEqual({ '.id': lists[4]?.['.id'], builtin: 'false', comment: 'defconf', dynamic: 'false', exclude: '', include: '', name: 'WAN' });
  });

  it('answers .proplist as the exporter asks it', async () => {
    const rows = asRows((await client.get(R, '/rest/interface/list?.proplist=name,builtin,include,exclude')).json);
    expect(rows[5]).toEqual({ builtin: 'false', exclude: '', include: '', name: 'LAN' });
  });

  it('refuses to change or remove a built-in list, a second list of a name, and a list including itself', async () => {
    const all = asRows((await client.get(R, '/rest/interface/list?name=all')).json)[0]?.['.id'] ?? '';
    expect((await client.call(R, 'DELETE', `/rest/interface/list/${all}`)).json).toEqual(bad('failure: can not remove builtin list'));
    expect((await client.call(R, 'PATCH', `/rest/interface/list/${all}`, { comment: 'x' })).json).toEqual(bad('failure: can not change builtin list'));
    expect((await client.call(R, 'PUT', '/rest/interface/list', { name: 'WAN' })).json).toEqual(bad('failure: list with such name already exists'));
    expect((await client.call(R, 'PUT', '/rest/interface/list', { name: 'X', include: 'nope' })).json).toEqual(bad('input does not match any value of include'));
    const x = asRec((await client.call(R, 'PUT', '/rest/interface/list', { name: 'X', include: 'LAN' })).json);
    expect(x).toMatchObject({ name: 'X', include: 'LAN', exclude: '', builtin: 'false' });
    expect((await client.call(R, 'PATCH', `/rest/interface/list/${x['.id'] ?? ''}`, { exclude: 'X' })).json).toEqual(bad('failure: list can not include or exclude itself'));
  });
});

describe('interface/list/member', () => {
  it("holds defconf's members the router has interfaces for: ether1 in WAN, and bridge in LAN where there is one", async () => {
    const plain = asRows((await client.get(R, '/rest/interface/list/member?.proplist=list,interface,disabled')).json);
    expect(plain).toEqual([{ disabled: 'false', interface: 'ether1', list: 'WAN' }]);
    const bridged = asRows((await client.get(BRIDGED, '/rest/interface/list/member?.proplist=list,interface,disabled')).json);
    expect(bridged).toEqual([
      { disabled: 'false', interface: 'bridge', list: 'LAN' },
      { disabled: 'false', interface: 'ether1', list: 'WAN' },
    ]);
  });

  it('holds seeded lists and members instead, disabled ones included', async () => {
    const lists = asRows((await client.get(SEEDED, '/rest/interface/list?builtin=false')).json);
    expect(lists.map((list) => [list['name'], list['include'], list['exclude']])).toEqual([
      ['TRUSTED', '', ''],
      ['ALL-BUT-WAN', 'all', 'TRUSTED'],
    ]);
    const members = asRows((await client.get(SEEDED, '/rest/interface/list/member')).json);
    expect(members.map((member) => [member['list'], member['interface'], member['disabled'], member['dynamic']])).toEqual([
      ['TRUSTED', 'ether2', 'false', 'false'],
      ['TRUSTED', 'wg0', 'true', 'false'],
    ]);
  });

  it('refuses a member of a built-in or unknown list, of an unknown interface, or twice', async () => {
    expect((await client.call(R, 'PUT', '/rest/interface/list/member', { list: 'all', interface: 'ether2' })).json).toEqual(bad('input does not match any value of list'));
    expect((await client.call(R, 'PUT', '/rest/interface/list/member', { list: 'LAN', interface: 'nope' })).json).toEqual(bad('input does not match any value of interface'));
    expect((await client.call(R, 'PUT', '/rest/interface/list/member', { list: 'WAN', interface: 'ether1' })).json).toEqual(bad('failure: interface already in list'));
    expect((await client.call(R, 'PUT', '/rest/interface/list/member', { interface: 'ether2' })).json).toEqual(bad('missing =list='));
  });

  it('follows a renamed list and a renamed interface', async () => {
    const added = asRec((await client.call(R, 'PUT', '/rest/interface/list/member', { list: 'LAN', interface: 'wg1' })).json);
    expect(added).toMatchObject({ list: 'LAN', interface: 'wg1', disabled: 'false', dynamic: 'false' });
    const lan = asRows((await client.get(R, '/rest/interface/list?name=LAN')).json)[0]?.['.id'] ?? '';
    expect((await client.call(R, 'PATCH', `/rest/interface/list/${lan}`, { name: 'INSIDE' })).status).toBe(200);
    expect((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg1', { name: 'wg-renamed' })).status).toBe(200);
    const member = asRec((await client.get(R, `/rest/interface/list/member/${added['.id'] ?? ''}`)).json);
    expect(member).toMatchObject({ list: 'INSIDE', interface: 'wg-renamed' });
  });
});
