/** Conformance of writes: PUT/PATCH/DELETE shapes and statuses, console verbs over POST, request values. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client } from './helpers.js';
import { PEER_KEY_A, seedRouter } from './fixtures.js';

let emu: Emulator;
let client: Client;
const R = 'w';
const NEW_KEY = 'hHbyA0OAsfHGMcpEuvcMPJiX59rPw6P9a3NoV82VPxo=';

beforeAll(async () => {
  emu = await startEmulator({ routers: [seedRouter(R, '7.19.4')] });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

const bad = (detail: string): unknown => ({ detail, error: 400, message: 'Bad Request' });

describe('PUT creates one record', () => {
  it('answers 201 with the whole record; an address without prefix is stored /32 with its network', async () => {
    const a = await client.call(R, 'PUT', '/rest/ip/address', { address: '10.9.9.9', interface: 'ether1', comment: 'x' });
    expect(a.status).toBe(201);
    const rec = asRec(a.json);
    expect(rec).toMatchObject({ address: '10.9.9.9/32', network: '10.9.9.9', interface: 'ether1', 'actual-interface': 'ether1', disabled: 'false', dynamic: 'false', invalid: 'false', comment: 'x' });
    expect(rec['.id']).toMatch(/^\*[0-9A-F]+$/);
    const withPrefix = asRec((await client.call(R, 'PUT', '/rest/ip/address', { address: '172.16.5.77/20', interface: 'ether1' })).json);
    expect(withPrefix['network']).toBe('172.16.0.0');
    expect(withPrefix).not.toHaveProperty('comment');
  });

  it('refuses a list body (one record per PUT) and missing required fields', async () => {
    expect((await client.call(R, 'PUT', '/rest/ip/address', [{ address: '1.1.1.1', interface: 'ether1' }])).status).toBe(400);
    expect((await client.call(R, 'PUT', '/rest/ip/address', { address: '1.1.1.1' })).json).toEqual(bad('missing =interface='));
  });

  it('refuses references to things that do not exist', async () => {
    const a = await client.call(R, 'PUT', '/rest/ip/address', { address: '1.1.1.1', interface: 'nope' });
    expect(a.json).toEqual(bad('input does not match any value of interface'));
  });

  it('creates a peer with every documented field rendered', async () => {
    const a = await client.call(R, 'PUT', '/rest/interface/wireguard/peers', {
      interface: 'wg0', 'public-key': NEW_KEY, 'allowed-address': '10.5.0.0/24,fd00::2', 'endpoint-address': 'vpn.example.com', 'endpoint-port': 51820,
    });
    expect(a.status).toBe(201);
    const p = asRec(a.json);
    expect(p).toMatchObject({
      interface: 'wg0', 'public-key': NEW_KEY, 'allowed-address': '10.5.0.0/24,fd00::2/128', 'endpoint-address': 'vpn.example.com',
      'endpoint-port': '51820', 'current-endpoint-address': '', 'current-endpoint-port': '0', disabled: 'false', dynamic: 'false',
      rx: '0', tx: '0', 'preshared-key': '', name: expect.stringMatching(/^peer\d+$/) as unknown,
    });
    expect(p).not.toHaveProperty('last-handshake');
    expect(p).not.toHaveProperty('persistent-keepalive');
    const dup = await client.call(R, 'PUT', '/rest/interface/wireguard/peers', { interface: 'wg0', 'public-key': NEW_KEY });
    expect(dup.status).toBe(400);
  });
});

describe('PATCH updates and returns the whole record', () => {
  it('returns the updated record', async () => {
    const a = await client.call(R, 'PATCH', '/rest/interface/wireguard/wg1', { mtu: '1380', comment: 'patched' });
    expect(a.status).toBe(200);
    expect(asRec(a.json)).toMatchObject({ name: 'wg1', mtu: '1380', comment: 'patched', 'listen-port': '51820', running: 'true' });
  });

  it('refuses read-only fields with a clear 400', async () => {
    for (const [path, field] of [['/rest/interface/wireguard/wg0', 'public-key'], ['/rest/interface/wireguard/wg0', 'running'], ['/rest/interface/wireguard/peers/alpha', 'rx'], ['/rest/interface/wireguard/peers/alpha', 'last-handshake']] as const) {
      const a = await client.call(R, 'PATCH', path, { [field]: '1' });
      expect(a.json).toEqual(bad(`cannot set ${field} (read-only property)`));
    }
  });

  it('refuses unknown parameters with `unknown parameter <name>`', async () => {
    expect((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', { nonexistent: '1' })).json).toEqual(bad('unknown parameter nonexistent'));
  });

  it('accepts request numbers as decimal, leading-0 octal, 0x hex and decimal strings; rejects exponents', async () => {
    const mtu = async (raw: string): Promise<unknown> => asRec((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', undefined, { raw: `{"mtu":${raw}}` })).json)['mtu'];
    expect(await mtu('1300')).toBe('1300');
    expect(await mtu('02000')).toBe('1024');
    expect(await mtu('0x500')).toBe('1280');
    expect(await mtu('"02000"')).toBe('2000');
    const exp = await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', undefined, { raw: '{"mtu":1.3e3}' });
    expect(exp.status).toBe(400);
    expect(asRec(exp.json)['detail']).toMatch(/exponent/);
    expect((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', undefined, { raw: '{"mtu":1300.5}' })).json).toEqual(bad('invalid value for argument mtu'));
    expect((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', { mtu: 70000 })).json).toEqual(bad('value of mtu is out of range (0..65536)'));
  });

  it('accepts booleans as yes/no/true/false and prints "true"/"false"', async () => {
    for (const [input, shown] of [['yes', 'true'], ['no', 'false'], [true, 'true'], ['false', 'false']] as const) {
      const a = asRec((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg1', { disabled: input })).json);
      expect(a['disabled']).toBe(shown);
      expect(a['running']).toBe(shown === 'true' ? 'false' : 'true');
    }
    expect((await client.call(R, 'PATCH', '/rest/interface/wireguard/wg1', { disabled: 'maybe' })).status).toBe(400);
  });

  it('keepalive accepts seconds, 25s and 00:00:25; 0 makes it absent again', async () => {
    for (const v of [25, '25s', '00:00:25']) {
      expect(asRec((await client.call(R, 'PATCH', '/rest/interface/wireguard/peers/alpha', { 'persistent-keepalive': v })).json)['persistent-keepalive']).toBe('25s');
    }
    expect(asRec((await client.call(R, 'PATCH', '/rest/interface/wireguard/peers/alpha', { 'persistent-keepalive': 0 })).json)).not.toHaveProperty('persistent-keepalive');
  });

  it('renaming an interface carries peers, addresses and routes along', async () => {
    await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', { name: 'wg-main' });
    const peers = asRows((await client.get(R, '/rest/interface/wireguard/peers?public-key=' + encodeURIComponent(PEER_KEY_A))).json);
    expect(peers[0]?.['interface']).toBe('wg-main');
    expect(asRows((await client.get(R, '/rest/ip/address?interface=wg-main')).json)).toHaveLength(1);
    expect(asRows((await client.get(R, '/rest/ip/route?gateway=wg-main')).json)).toHaveLength(1);
    await client.call(R, 'PATCH', '/rest/interface/wireguard/wg-main', { name: 'wg0' });
  });

  it('PATCH of a missing id is 404', async () => {
    expect((await client.call(R, 'PATCH', '/rest/ip/route/*7777', { distance: 2 })).status).toBe(404);
  });
});

describe('ip/route: active only with a reachable next hop', () => {
  it('names the next hop as addr%interface; an unreachable one leaves the route inactive, as the captured 7.x table shows', async () => {
    const made: string[] = [];
    const put = async (menu: string, body: Record<string, string>): Promise<Record<string, unknown>> => {
      const record = asRec((await client.call(R, 'PUT', `/rest/${menu}`, body)).json);
      made.push(`${menu}/${String(record['.id'])}`);
      return record;
    };
    try {
      await put('ip/address', { address: '10.123.0.1/24', interface: 'ether1' });
      const viaAddress = await put('ip/route', { 'dst-address': '10.200.0.0/16', gateway: '10.123.0.9' });
      expect(viaAddress).toMatchObject({ active: 'true', inactive: 'false', 'immediate-gw': '10.123.0.9%ether1' });
      const viaInterface = await put('ip/route', { 'dst-address': '10.201.0.0/16', gateway: 'ether1' });
      expect(viaInterface).toMatchObject({ active: 'true', 'immediate-gw': 'ether1' });
      const unreachable = await put('ip/route', { 'dst-address': '10.202.0.0/16', gateway: '192.0.2.77' });
      expect(unreachable).toMatchObject({ inactive: 'true', 'immediate-gw': '' });
      expect(unreachable).not.toHaveProperty('active');
      // ECMP as the capture prints it: true over two next hops, false over one, no key on an inactive route.
      const twoHops = await put('ip/route', { 'dst-address': '10.203.0.0/16', gateway: '10.123.0.9,10.123.0.10' });
      expect(twoHops).toMatchObject({ active: 'true', ecmp: 'true', 'immediate-gw': '10.123.0.9%ether1,10.123.0.10%ether1' });
      expect(viaAddress).toMatchObject({ ecmp: 'false' });
      expect(unreachable).not.toHaveProperty('ecmp');
    } finally {
      for (const path of made.reverse()) await client.call(R, 'DELETE', `/rest/${path}`);
    }
  });
});

describe('DELETE', () => {
  it('answers 204 with an empty body, then 404 for the same id', async () => {
    const id = asRec((await client.call(R, 'PUT', '/rest/ip/route', { 'dst-address': '10.77.0.0/16', gateway: '10.0.0.2' })).json)['.id'];
    const del = await client.call(R, 'DELETE', `/rest/ip/route/${id}`);
    expect(del.status).toBe(204);
    expect(del.bytes.length).toBe(0);
    const again = await client.call(R, 'DELETE', `/rest/ip/route/${id}`);
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ error: 404, message: 'Not Found' });
  });

  it('removes peers, addresses and firewall rules', async () => {
    for (const menu of ['interface/wireguard/peers', 'ip/address', 'ip/firewall/filter']) {
      const before = asRows((await client.get(R, `/rest/${menu}`)).json);
      const last = before[before.length - 1]?.['.id'] ?? '';
      expect((await client.call(R, 'DELETE', `/rest/${menu}/${last}`)).status).toBe(204);
      expect(asRows((await client.get(R, `/rest/${menu}`)).json)).toHaveLength(before.length - 1);
    }
  });

  it('interfaces in the generic menu cannot be removed: 406 no such command (remove)', async () => {
    const a = await client.call(R, 'DELETE', '/rest/interface/ether1');
    expect(a.status).toBe(406);
    expect(a.json).toEqual({ detail: 'no such command or directory (remove)', error: 406, message: 'Not Acceptable' });
    expect((await client.call(R, 'DELETE', '/rest/interface/wg1')).status).toBe(406);
    expect((await client.call(R, 'DELETE', '/rest/system/resource')).status).toBe(406);
    expect(asRows((await client.get(R, '/rest/interface?name=ether1')).json)).toHaveLength(1);
    expect(asRows((await client.get(R, '/rest/interface/wireguard?name=wg1')).json)).toHaveLength(1);
  });
});

describe('console verbs over POST', () => {
  it('add returns {"ret":"*ID"}; set, disable, enable and remove return []', async () => {
    const add = await client.post(R, '/rest/ip/address/add', { address: '10.44.0.1/24', interface: 'ether2' });
    expect(add.status).toBe(200);
    const ret = asRec(add.json)['ret'] ?? '';
    expect(ret).toMatch(/^\*[0-9A-F]+$/);
    expect((await client.post(R, '/rest/ip/address/set', { '.id': ret, comment: 'via set' })).json).toEqual([]);
    expect((await client.post(R, '/rest/ip/address/disable', { numbers: ret })).json).toEqual([]);
    expect(asRec((await client.get(R, `/rest/ip/address/${ret}`)).json)).toMatchObject({ comment: 'via set', disabled: 'true' });
    expect((await client.post(R, '/rest/ip/address/enable', { numbers: ret })).json).toEqual([]);
    expect((await client.post(R, '/rest/ip/address/remove', { numbers: ret })).json).toEqual([]);
    expect((await client.get(R, `/rest/ip/address/${ret}`)).status).toBe(404);
    expect((await client.post(R, '/rest/ip/address/remove', { numbers: ret })).json).toEqual(bad('no such item'));
  });

  it('system/identity set changes the name', async () => {
    expect((await client.post(R, '/rest/system/identity/set', { name: 'renamed' })).json).toEqual([]);
    expect((await client.get(R, '/rest/system/identity')).json).toEqual({ name: 'renamed' });
    await client.post(R, '/rest/system/identity/set', { name: R });
  });

  it('firewall rules keep their order; place-before inserts ahead; move reorders', async () => {
    const rules = asRows((await client.get(R, '/rest/ip/firewall/filter')).json);
    const first = rules[0]?.['.id'] ?? '';
    const put = asRec((await client.call(R, 'PUT', '/rest/ip/firewall/filter', { chain: 'input', action: 'accept', protocol: 'icmp', 'place-before': first })).json);
    const after = asRows((await client.get(R, '/rest/ip/firewall/filter')).json);
    expect(after[0]?.['.id']).toBe(put['.id']);
    expect(after[0]).toMatchObject({ chain: 'input', action: 'accept', protocol: 'icmp', bytes: '0', packets: '0', log: 'false' });
    await client.post(R, '/rest/ip/firewall/filter/move', { numbers: put['.id'] });
    const moved = asRows((await client.get(R, '/rest/ip/firewall/filter')).json);
    expect(moved[moved.length - 1]?.['.id']).toBe(put['.id']);
    expect((await client.call(R, 'PUT', '/rest/ip/firewall/filter', { chain: 'input', action: 'explode' })).json).toEqual(bad('input does not match any value of action'));
  });

  it('unknown commands are 400 no such command', async () => {
    expect((await client.post(R, '/rest/ip/address/frobnicate')).json).toEqual(bad('no such command or directory (frobnicate)'));
    expect((await client.post(R, '/rest/interface/remove', { numbers: 'ether1' })).json).toEqual(bad('no such command or directory (remove)'));
    expect((await client.post(R, '/rest/nonexistent/thing')).json).toEqual(bad('no such command or directory (nonexistent)'));
  });

  it('broken JSON bodies are 400', async () => {
    const a = await client.call(R, 'PATCH', '/rest/interface/wireguard/wg0', undefined, { raw: '{"mtu":' });
    expect(a.status).toBe(400);
    expect(asRec(a.json)['detail']).toMatch(/^JSON parse error/);
  });
});
