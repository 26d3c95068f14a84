import { describe, expect, it } from 'vitest';
import { mapWireguardSetup, wireguardSetupCollector, SETUP_PROPLISTS } from '../../src/collectors/wireguard-setup.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { auditSetup, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { fixtureList } from '../helpers/fixtures.js';
import { testRouter } from '../helpers/config.js';
import { plainOf } from '../../src/metrics/gzip.js';
import { routerLabel } from '../../src/metrics/family.js';

const ROUTER = routerLabel('hq');
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function recorded(): SetupRecords {
  return {
    interfaces: fixtureList('setup-interfaces.json'),
    peers: fixtureList('setup-peers.json'),
    addresses: fixtureList('setup-addresses.json'),
    routes: fixtureList('setup-routes.json'),
    filter: fixtureList('setup-filter.json'),
  };
}

function text(result: ReturnType<typeof mapWireguardSetup>): string {
  return result.samples
    .toChunks()
    .filter((chunk) => chunk !== undefined)
    .map((chunk) => plainOf(chunk).toString('utf8'))
    .join('');
}

describe('wireguard_setup mapping of recorded replies', () => {
  const result = mapWireguardSetup(recorded(), ROUTER, NOW);
  const out = text(result);
  const audit = (iface: string, check: string) =>
    result.data.interfaces.find((setup) => setup.interface === iface)?.checks.find((c) => c.check === check);

  it('exports one series per enabled interface and check, and none for a disabled interface', () => {
    expect(out.split('\n').filter((line) => line !== '').sort()).toEqual(
      [
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-branch",check="address"} 1',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-branch",check="route"} 1',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-branch",check="firewall_input"} 1',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-branch",check="firewall_forward"} 1',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-road",check="address"} 0',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-road",check="route"} 1',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-road",check="firewall_input"} 0',
        'routeros_wireguard_interface_setup_ok{router="hq",interface="wg-road",check="firewall_forward"} 1',
      ].sort(),
    );
  });

  it('routes: a gateway address inside the tunnel subnet counts; host bits, IPv6, /32, 0.0.0.0/0 and disabled peers do not make subnets', () => {
    expect(auditSetup(recorded()).map((setup) => [setup.interface, setup.routedSubnets])).toEqual([
      ['wg-branch', ['192.168.20.0/24', '192.168.30.0/24']],
      ['wg-road', []],
    ]);
    // Kept until the next audit: each interface's checks, not the subnets they were made from (up to 10,000 each).
    expect(result.data.interfaces.map((setup) => Object.keys(setup).sort())).toEqual([
      ['checks', 'interface', 'listenPort'],
      ['checks', 'interface', 'listenPort'],
    ]);
  });

  it('firewall_input: the accept before the defconf drop passes; the one after it fails, with a fix placed before the drop', () => {
    expect(audit('wg-branch', 'firewall_input')?.ok).toBe(true);
    const failed = audit('wg-road', 'firewall_input');
    expect(failed?.detail).toContain('rule *5 (drop, in-interface-list=!LAN, "defconf: drop all not coming from LAN")');
    expect(failed?.detail).toContain('UDP to port 13232');
    expect(failed?.fix).toBe(
      '/ip firewall filter add chain=input action=accept protocol=udp dst-port=13232 place-before=*5 comment="WireGuard wg-road"',
    );
  });

  it('firewall_forward: defconf\'s drop of new connections from the WAN is not the tunnel\'s traffic (it failed every defconf router that routes subnets)', () => {
    expect(audit('wg-branch', 'firewall_forward')?.ok).toBe(true);
  });

  it('firewall_forward: an accept for one subnet does not cover another, and the fix goes before the drop that hits it', () => {
    const hardened = recorded();
    const filter = [...hardened.filter, { '.id': '*E', action: 'drop', chain: 'forward', comment: 'drop everything else', disabled: 'false' }];
    const failed = mapWireguardSetup({ ...hardened, filter }, ROUTER, NOW)
      .data.interfaces.find((setup) => setup.interface === 'wg-branch')
      ?.checks.find((c) => c.check === 'firewall_forward');
    expect(failed?.detail).toContain('from 192.168.30.0/24');
    expect(failed?.detail).not.toContain('192.168.20.0/24');
    // `out-interface=wg-branch` (*D) accepts traffic to both subnets.
    expect(failed?.detail).not.toContain('to 192.168.30.0/24');
    expect(failed?.fix).toBe(
      '/ip firewall filter add chain=forward action=accept src-address=192.168.30.0/24 in-interface=wg-branch place-before=*E comment="WireGuard wg-branch from 192.168.30.0/24"',
    );
  });

  it('address: a disabled address does not count, and the fix hints at the peers\' subnet', () => {
    const failed = audit('wg-road', 'address');
    expect(failed?.detail).toContain('10.20.0.2/32');
    expect(failed?.fix).toBe('/ip address add address=<tunnel-address>/<prefix-length> interface=wg-road comment="WireGuard wg-road"');
  });

  it('reports no decoding problems for well-formed replies', () => {
    expect(result.problems).toEqual([]);
    expect(result.data.collectedAt).toBe(NOW);
  });
});

describe('wireguard_setup job', () => {
  it('is off by default and asks five menus read-only, each with a .proplist and never a key', async () => {
    expect(wireguardSetupCollector.defaultEnabled).toBe(false);
    const router = testRouter({ collectors: { wireguard_setup: true } });
    const [job] = wireguardSetupCollector.jobs(router);
    const asked: { menu: string; proplist: readonly string[] | undefined }[] = [];
    const replies: Record<string, RouterRecord[]> = {
      'interface/wireguard': fixtureList('setup-interfaces.json'),
      'interface/wireguard/peers': fixtureList('setup-peers.json'),
      'ip/address': fixtureList('setup-addresses.json'),
      'ip/route': fixtureList('setup-routes.json'),
      'ip/firewall/filter': fixtureList('setup-filter.json'),
    };
    const client: JobContext['client'] = {
      list: async (menu, options) => {
        asked.push({ menu, proplist: options?.proplist });
        return replies[menu] ?? [];
      },
      getSingleton: async () => {
        throw new Error('not expected');
      },
      run: async () => {
        throw new Error('not expected');
      },
    };
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => NOW, signal: new AbortController().signal, memory: new Map() });
    expect(asked.map((call) => call.menu)).toEqual(Object.keys(replies));
    for (const call of asked) {
      expect(call.proplist).toBeDefined();
      expect(call.proplist?.some((key) => /private|preshared/.test(key))).toBe(false);
    }
    expect(job?.schedule).toBe(router.schedules.wireguard_setup);
    expect(result?.samples.size).toBe(8);
    expect(SETUP_PROPLISTS.filter).toContain('connection-state');
  });
});

describe('flags that do not decode (found by a hostile tester: each passed its check, nothing counted)', () => {
  const BOTH = ['wg-branch', 'wg-road'];
  // Each menu's flag, garbled on every record of the menu, and the checks left unjudged on each interface: a peer's
  // and an address's own interface, every interface for what any lookup may take; records another flag excludes
  // (wg-road's address is disabled) leave nothing unjudged.
  const FLAGGED: [keyof SetupRecords, string, Record<string, string[]>][] = [
    ['peers', 'disabled', { route: BOTH, firewall_forward: BOTH }],
    ['addresses', 'disabled', { address: BOTH, route: BOTH }],
    ['addresses', 'invalid', { address: ['wg-branch'], route: BOTH }],
    ['routes', 'disabled', { route: BOTH }],
    ['routes', 'active', { route: BOTH }],
    ['routes', 'inactive', { route: BOTH }],
    ['filter', 'disabled', { firewall_input: BOTH, firewall_forward: BOTH }],
  ];
  const checksOf = (records: SetupRecords) => mapWireguardSetup(records, ROUTER, NOW);
  const UNJUDGED = { ok: false, detail: expect.stringMatching(/^cannot be judged: a record of .* that does not decode$/) as string };

  it.each(FLAGGED)('%s.%s that does not decode leaves the checks resting on it unjudged (failing, saying why), and is counted: %j', (menu, key, unjudged) => {
    const before = checksOf(recorded());
    for (const value of ['maybe', 'perhaps', '1e400', 'truee']) {
      const records = recorded();
      records[menu] = records[menu].map((record) => ({ ...record, [key]: value }));
      const after = checksOf(records);
      expect(after.decodeErrors).toBeGreaterThan(before.decodeErrors);
      for (const setup of after.data.interfaces) {
        for (const check of setup.checks) {
          const was = before.data.interfaces.find((other) => other.interface === setup.interface)?.checks.find((other) => other.check === check.check);
          expect(check, `${setup.interface} ${check.check}`).toEqual(unjudged[check.check]?.includes(setup.interface) === true ? { check: check.check, ...UNJUDGED } : was);
        }
      }
    }
  });

  it('a record the audit leaves out anyway leaves nothing unjudged, though it is counted: a rule of output or of no chain, a route of another table, a disabled record (found by review)', () => {
    const before = checksOf(recorded());
    const cases: [keyof SetupRecords, RouterRecord][] = [
      ['filter', { '.id': '*99', chain: 'output', action: 'drop', disabled: 'maybe' }],
      ['routes', { '.id': '*99', 'dst-address': '192.168.20.0/24', gateway: 'ether1', 'routing-table': 'other', disabled: 'maybe' }],
      ['routes', { '.id': '*98', 'dst-address': '192.168.20.0/24', gateway: 'ether1', disabled: 'true', active: 'maybe' }],
      ['addresses', { '.id': '*99', address: '10.9.9.1/24', interface: 'wg-branch', disabled: 'true', invalid: 'maybe' }],
    ];
    for (const [menu, record] of cases) {
      const records = recorded();
      records[menu] = [...records[menu], record];
      const after = checksOf(records);
      expect(after.data, JSON.stringify(record)).toEqual(before.data);
      expect(after.decodeErrors).toBe(before.decodeErrors + 1);
    }
    // A peer of wg-road leaves wg-branch's checks as they were.
    const records = recorded();
    records.peers = records.peers.map((peer) => (peer['interface'] === 'wg-road' ? { ...peer, disabled: 'maybe' } : peer));
    const after = checksOf(records);
    expect(after.data.interfaces.find((setup) => setup.interface === 'wg-branch')).toEqual(before.data.interfaces.find((setup) => setup.interface === 'wg-branch'));
  });

  it('a flag written as RouterOS also writes it (yes, no) is judged as true and false are, and counts nothing', () => {
    const before = checksOf(recorded());
    for (const [menu, key] of FLAGGED) {
      const records = recorded();
      const spelled: Record<string, string> = { true: 'yes', false: 'no' };
      records[menu] = records[menu].map((record) => (record[key] === undefined ? record : { ...record, [key]: spelled[record[key] as string] ?? (record[key] as string) }));
      const after = checksOf(records);
      expect(after.data).toEqual(before.data);
      expect(after.decodeErrors).toBe(before.decodeErrors);
    }
  });
});
