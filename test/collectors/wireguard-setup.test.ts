import { describe, expect, it } from 'vitest';
import { mapWireguardSetup, wireguardSetupCollector, SETUP_PROPLISTS } from '../../src/collectors/wireguard-setup.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { auditSetup, type ListRecords, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { RouterOsError } from '../../src/routeros/errors.js';
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
  it('is off by default and asks seven menus read-only (the interface lists last), each with a .proplist and never a key', async () => {
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
      'interface/list': fixtureList('setup-interface-lists.json'),
      'interface/list/member': fixtureList('setup-interface-list-members.json'),
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
    expect(result?.optionalReads).toEqual([{ what: 'the interface lists (interface/list)' }, { what: "the interface lists' members (interface/list/member)" }]);
  });
});

describe('wireguard_setup and the interface lists', () => {
  const LISTS: ListRecords = { lists: fixtureList('setup-interface-lists.json'), members: fixtureList('setup-interface-list-members.json') };
  /** The recorded set-up with an anti-spoofing drop over the LAN list before the accept of traffic to the tunnel. */
  const antiSpoof = (): SetupRecords => {
    const records = recorded();
    const at = records.filter.findIndex((rule) => rule['.id'] === '*C');
    const rule = { '.id': '*E', action: 'drop', chain: 'forward', 'in-interface-list': 'LAN', 'src-address': '!192.168.88.0/24', disabled: 'false' };
    return { ...records, filter: [...records.filter.slice(0, at), rule, ...records.filter.slice(at)] };
  };
  const forwardOf = (result: ReturnType<typeof mapWireguardSetup>) =>
    result.data.interfaces.find((setup) => setup.interface === 'wg-branch')?.checks.find((check) => check.check === 'firewall_forward');

  it("defconf's lists change nothing on the recorded set-up, and count nothing", () => {
    const without = mapWireguardSetup(recorded(), ROUTER, NOW);
    const withLists = mapWireguardSetup(recorded(), ROUTER, NOW, LISTS);
    expect(withLists.data).toEqual(without.data);
    expect(withLists.decodeErrors).toBe(0);
  });

  it('an anti-spoofing drop over the LAN list passes with its members read, and fails (as before) without them', () => {
    expect(forwardOf(mapWireguardSetup(antiSpoof(), ROUTER, NOW, LISTS))).toEqual({ check: 'firewall_forward', ok: true });
    expect(forwardOf(mapWireguardSetup(antiSpoof(), ROUTER, NOW))?.ok).toBe(false);
  });

  /** The job against replies, a menu's read failing with `failure` when given. */
  async function runJob(records: SetupRecords, failing: Record<string, Error>, lists: ListRecords = LISTS) {
    const router = testRouter({ collectors: { wireguard_setup: true } });
    const [job] = wireguardSetupCollector.jobs(router);
    const replies: Record<string, readonly RouterRecord[]> = {
      'interface/wireguard': records.interfaces,
      'interface/wireguard/peers': records.peers,
      'ip/address': records.addresses,
      'ip/route': records.routes,
      'ip/firewall/filter': records.filter,
      'interface/list': lists.lists,
      'interface/list/member': lists.members,
    };
    const asked: string[] = [];
    const client: JobContext['client'] = {
      list: async (menu) => {
        asked.push(menu);
        const failure = failing[menu];
        if (failure !== undefined) throw failure;
        return [...(replies[menu] ?? [])];
      },
      getSingleton: async () => {
        throw new Error('not expected');
      },
      run: async () => {
        throw new Error('not expected');
      },
    };
    const result = await job?.run({ router, client, routerLabel: ROUTER, now: () => NOW, signal: new AbortController().signal, memory: new Map() });
    if (result === undefined) throw new Error('no job');
    return { result, asked };
  }

  it('judges by the members the job read', async () => {
    const { result } = await runJob(antiSpoof(), {});
    expect(forwardOf(result)).toEqual({ check: 'firewall_forward', ok: true });
  });

  it.each([
    ['interface/list/member', 'ROS_ERR_PERMISSION'],
    ['interface/list', 'ROS_ERR_PERMISSION'],
    ['interface/list', 'ROS_ERR_HTTP_4XX'],
  ] as const)('a failed read of %s (%s) leaves the lists judged by their names, exactly as before, and says so', async (menu, code) => {
    const denied = new RouterOsError(code, `${menu}: not enough permissions`);
    const { result, asked } = await runJob(antiSpoof(), { [menu]: denied });
    const before = mapWireguardSetup(antiSpoof(), ROUTER, NOW);
    expect(result.data).toEqual(before.data);
    expect(result.samples.size).toBe(before.samples.size);
    expect(result.optionalReads?.find((read) => read.failure !== undefined)).toEqual({
      what: menu === 'interface/list' ? 'the interface lists (interface/list)' : "the interface lists' members (interface/list/member)",
      failure: { cause: code, message: denied.message },
    });
    // The members are not asked for without the lists.
    expect(asked.includes('interface/list/member')).toBe(menu === 'interface/list/member');
  });

  it('a lists reply that is not the menu\'s data leaves the lists unknown, told as a problem; the audit stands', () => {
    const users = [{ '.id': '*1', name: 'admin', group: 'full' }];
    const result = mapWireguardSetup(antiSpoof(), ROUTER, NOW, { lists: LISTS.lists, members: users });
    expect(result.data).toEqual(mapWireguardSetup(antiSpoof(), ROUTER, NOW).data);
    expect(result.decodeErrors).toBe(1);
    expect(result.problems.join('\n')).toMatch(/interface\/list or its members are not read: interface\/list\/member: none of the 1 records holds list and interface/);
  });

  it("a list's builtin or a member's disabled that does not decode is counted, and leaves that list unknown", () => {
    const garbledMember = { ...LISTS, members: LISTS.members.map((member) => (member['list'] === 'LAN' ? { ...member, disabled: 'maybe' } : member)) };
    const garbledList = { ...LISTS, lists: LISTS.lists.map((list) => (list['name'] === 'LAN' ? { ...list, builtin: 'maybe' } : list)) };
    for (const lists of [garbledMember, garbledList]) {
      const result = mapWireguardSetup(antiSpoof(), ROUTER, NOW, lists);
      expect(result.decodeErrors).toBe(1);
      expect(forwardOf(result)?.ok).toBe(false);
    }
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
