/**
 * Interface lists read with their members (`interface/list`, `interface/list/member`): a rule's `in-interface-list`
 * is the set of its enabled members, so an anti-spoofing drop over a list reads as over each member, and a list that
 * holds the tunnel's own interface (or not) is met exactly. Without the members (the read failed), lists read as
 * before: by defconf's names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finishInSlices } from '../../src/util/slices.js';
import { auditSetup, auditSetupSteps, MAX_ARRIVAL_INTERFACES, MAX_LIST_MEMBERS, type ListRecords, type SetupCheckName, type SetupRecords } from '../../src/analysis/setup-audit.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { ADDRESSES, setup } from './lan-router.js';

/** defconf's lists (ether1 in WAN, bridge in LAN) and any others, as `interface/list` and its members print them. */
function lists(members: Record<string, readonly string[]> = {}, extra: RouterRecord[] = []): ListRecords {
  const all: Record<string, readonly string[]> = { WAN: ['ether1'], LAN: ['bridge'], ...members };
  return {
    lists: [
      { '.id': '*2000010', name: 'all', builtin: 'true', dynamic: 'false', include: '', exclude: '' },
      ...Object.keys(all).map((name, index) => ({ '.id': `*${index + 1}`, name, builtin: 'false', dynamic: 'false', include: '', exclude: '', comment: 'defconf' })),
      ...extra,
    ],
    members: Object.entries(all).flatMap(([list, ifaces]) =>
      ifaces.map((iface, index) => ({ '.id': `*${list}${index}`, list, interface: iface, disabled: 'false', dynamic: 'false' })),
    ),
  };
}

function check(name: SetupCheckName, records: SetupRecords, known?: ListRecords): { ok: boolean; detail?: string } {
  const result = auditSetup(records, undefined, known)[0]?.checks.find((c) => c.check === name);
  if (result === undefined) throw new Error(`no ${name} check`);
  return result;
}

const FROM_TUNNEL = { chain: 'forward', action: 'accept', 'in-interface': 'wg0' };
const ANTI_SPOOF = { chain: 'forward', action: 'drop', 'in-interface-list': 'LAN', 'src-address': '!192.168.88.0/24' };

describe('an anti-spoofing drop over a list', () => {
  it('does not block the subnet when it spares every member\'s networks (CRITICAL before the members were read)', () => {
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), lists()).ok).toBe(true);
    // Members not read: as before, the LAN list's members are unknown and the drop may meet the LAN's traffic.
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF])).ok).toBe(false);
  });

  it('reads over a list of any name, and over every member: a member whose networks it does not spare still blocks', () => {
    const trusted = { ...ANTI_SPOOF, 'in-interface-list': 'TRUSTED', 'src-address': '!192.168.0.0/16' };
    expect(check('firewall_forward', setup([FROM_TUNNEL, trusted]), lists({ TRUSTED: ['bridge', 'ether2'] })).ok).toBe(true);
    // ether2's 192.168.99.0/24 is in 192.168.0.0/16, but not in 192.168.88.0/24.
    const narrow = { ...trusted, 'src-address': '!192.168.88.0/24' };
    const blocked = check('firewall_forward', setup([FROM_TUNNEL, narrow]), lists({ TRUSTED: ['bridge', 'ether2'] }));
    expect(blocked.ok).toBe(false);
    expect(blocked.detail).toContain('to 192.168.20.0/24');
    // The WAN reaches everything through the default route: a list holding it cannot be told from spoofing.
    expect(check('firewall_forward', setup([FROM_TUNNEL, trusted]), lists({ TRUSTED: ['bridge', 'ether1'] })).ok).toBe(false);
  });

  it('a list member that is the tunnel itself is not where the LAN side arrives', () => {
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), lists({ LAN: ['bridge', 'wg0'] })).ok).toBe(true);
  });

  it('names are case-sensitive: the rule\'s list `lan` is not the list `LAN`', () => {
    const lower = { ...ANTI_SPOOF, 'in-interface-list': 'lan' };
    expect(check('firewall_forward', setup([FROM_TUNNEL, lower]), lists({ lan: ['bridge'] })).ok).toBe(true);
    expect(check('firewall_forward', setup([FROM_TUNNEL, lower]), lists({ lan: ['ether2'] })).ok).toBe(false);
  });

  it('split over a jump and its target reads as inlined', () => {
    const split: Record<string, string>[] = [FROM_TUNNEL, { chain: 'forward', action: 'jump', 'jump-target': 'antispoof', 'in-interface-list': 'LAN' }, { chain: 'antispoof', action: 'drop', 'src-address': '!192.168.88.0/24' }];
    expect(check('firewall_forward', setup(split), lists()).ok).toBe(true);
    expect(check('firewall_forward', setup(split)).ok).toBe(false);
  });

  it('a list that includes or excludes other lists, or a built-in one, reads as before (its members are not all listed)', () => {
    for (const extra of [{ include: 'WAN' }, { exclude: 'WAN' }, { builtin: 'true' }] as Record<string, string>[]) {
      const known = lists();
      const composed = { ...known, lists: known.lists.map((list) => (list['name'] === 'LAN' ? { ...list, ...extra } : list)) };
      expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), composed).ok, JSON.stringify(extra)).toBe(false);
    }
  });

  it('a member whose disabled flag does not decode leaves its list unknown; a disabled member is no member', () => {
    const known = lists({ LAN: ['bridge', 'ether2'] });
    const garbled = { ...known, members: known.members.map((m) => (m['interface'] === 'ether2' ? { ...m, disabled: 'maybe' } : m)) };
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), garbled).ok).toBe(false);
    const disabled = { ...known, members: known.members.map((m) => (m['interface'] === 'ether2' ? { ...m, disabled: 'true' } : m)) };
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), disabled).ok).toBe(true);
    // Enabled, ether2's network is not spared.
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), known).ok).toBe(false);
  });

  it(`more than ${MAX_LIST_MEMBERS} members read as none read`, () => {
    const many = lists({ BIG: Array.from({ length: MAX_LIST_MEMBERS }, (_, i) => `vlan${i}`) });
    expect(check('firewall_forward', setup([FROM_TUNNEL, ANTI_SPOOF]), many).ok).toBe(false);
  });

  it('are read in steps, a pause possible every 4,096 lists or members, to the result made in one go', async () => {
    const many = lists({ BIG: Array.from({ length: MAX_LIST_MEMBERS - 2 }, (_, i) => `vlan${i}`) }, Array.from({ length: 20_000 }, (_, i) => ({ '.id': `*L${i}`, name: `list${i}`, builtin: 'false', include: '', exclude: '' })));
    const records = setup([FROM_TUNNEL, ANTI_SPOOF]);
    let pauses = 0;
    const sliced = await finishInSlices(auditSetupSteps(records, undefined, many), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(auditSetup(records, undefined, many));
    expect(sliced[0]?.checks.find((c) => c.check === 'firewall_forward')?.ok).toBe(true);
    let without = 0;
    await finishInSlices(auditSetupSteps(records), { budgetMs: 0, onPause: () => without++ });
    expect(pauses - without).toBeGreaterThanOrEqual(Math.floor(20_000 / 4096));
  });

  it(`a list whose members are not all looked up (past ${MAX_ARRIVAL_INTERFACES}) reads as before`, () => {
    const vlans = Array.from({ length: MAX_ARRIVAL_INTERFACES }, (_, i) => `vlan${i}`);
    const records = { ...setup([FROM_TUNNEL, ANTI_SPOOF]), addresses: [...ADDRESSES, ...vlans.map((vlan, i) => ({ '.id': `*V${i}`, address: `192.168.88.${i * 8 + 8}/29`, interface: vlan, disabled: 'false' }))] };
    // bridge and 16 VLANs inside 192.168.88.0/24: one more than the interfaces looked up.
    expect(check('firewall_forward', records, lists({ LAN: ['bridge', ...vlans] })).ok).toBe(false);
    expect(check('firewall_forward', records, lists({ LAN: ['bridge', ...vlans.slice(1)] })).ok).toBe(true);
  });
});

describe('a list that holds the tunnel\'s own interface', () => {
  it('an accept of the list covers the traffic from the tunnel; a drop of `!list` does not block it', () => {
    const fromLan = { chain: 'forward', action: 'accept', 'in-interface-list': 'LAN' };
    const toTunnel = { chain: 'forward', action: 'accept', 'out-interface': 'wg0' };
    const dropOthers = { chain: 'forward', action: 'drop', 'in-interface-list': '!LAN' };
    const rules = setup([fromLan, toTunnel, dropOthers]);
    expect(check('firewall_forward', rules, lists({ LAN: ['bridge', 'wg0'] })).ok).toBe(true);
    // Not a member: the drop of every other list's traffic meets the tunnel's.
    const without = check('firewall_forward', rules, lists());
    expect(without.ok).toBe(false);
    expect(without.detail).toContain('from 192.168.20.0/24');
    // Members not read: as before (the accept of a list says nothing of the tunnel; the drop meets it).
    expect(check('firewall_forward', rules).ok).toBe(false);
  });

  it('a drop of the list meets the tunnel\'s own traffic when it holds the tunnel (passed before: taken as a deny list)', () => {
    const rules = setup([{ chain: 'forward', action: 'drop', 'in-interface-list': 'BLOCKED', 'connection-state': 'new' }]);
    const blocked = check('firewall_forward', rules, lists({ BLOCKED: ['wg0'] }));
    expect(blocked.ok).toBe(false);
    expect(blocked.detail).toContain('from 192.168.20.0/24');
    // Another list's drop may meet the LAN side's traffic to the subnet (any interface but wg0), not the tunnel's.
    for (const known of [lists({ BLOCKED: ['ether1'] }), undefined]) {
      const other = check('firewall_forward', rules, known);
      expect(other.detail).toContain('to 192.168.20.0/24');
      expect(other.detail).not.toContain('from 192.168.20.0/24');
    }
  });

  it('a list of nothing but the tunnel meets none of the other side', () => {
    // Forward to the subnet: the LAN side arrives on some interface other than wg0.
    const rules = setup([{ chain: 'forward', action: 'drop', 'in-interface-list': 'WG' }]);
    const onlyTunnel = check('firewall_forward', rules, lists({ WG: ['wg0'] }));
    expect(onlyTunnel.ok).toBe(false);
    expect(onlyTunnel.detail).toContain('from 192.168.20.0/24');
    expect(onlyTunnel.detail).not.toContain('to 192.168.20.0/24');
    // Input: the handshake does not arrive on the tunnel.
    const input = setup([{ chain: 'input', action: 'drop', 'in-interface-list': 'WG' }]);
    expect(check('firewall_input', input, lists({ WG: ['wg0'] })).ok).toBe(true);
    expect(check('firewall_input', input).ok).toBe(false);
  });
});

describe('members unknown', () => {
  const FIREWALLS: Record<string, string>[][] = [
    [FROM_TUNNEL, ANTI_SPOOF],
    [{ chain: 'input', action: 'drop', 'in-interface-list': '!LAN' }],
    [{ chain: 'input', action: 'accept', protocol: 'udp', 'dst-port': '13231', 'in-interface-list': 'WAN' }, { chain: 'input', action: 'drop' }],
    [{ chain: 'forward', action: 'drop', 'in-interface-list': 'WAN', 'connection-state': 'new' }],
  ];
  it('lists named in no list record read as without members at all, whatever the other lists hold', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIREWALLS), fc.subarray(['WAN', 'LAN']), (firewall, dropped) => {
        const known = lists();
        const partial = { lists: known.lists.filter((list) => !dropped.includes(list['name'] as string)), members: known.members };
        const records = setup(firewall.map((rule) => ({ ...rule, ...(rule['in-interface-list'] === undefined ? {} : { 'in-interface-list': rule['in-interface-list'].replace('LAN', 'OTHER').replace('WAN', 'OTHER') }) })));
        expect(auditSetup(records, undefined, partial)).toEqual(auditSetup(records));
      }),
      { numRuns: 50 },
    );
  });
});

/** Networks to pick matchers from: bridge's, part of it, wider ones, ether2's, the subnet's, elsewhere. */
const NETWORKS = ['192.168.88.0/24', '192.168.88.0/25', '192.168.0.0/16', '192.168.99.0/24', '192.168.20.0/24', '10.0.0.0/8'];
const otherRule = fc
  .tuple(
    fc.constantFrom('accept', 'drop', 'log'),
    fc.record(
      {
        protocol: fc.constantFrom('udp', 'tcp'),
        'in-interface': fc.constantFrom('bridge', 'ether2', '!wg0', 'wg0'),
        'out-interface': fc.constantFrom('wg0', 'bridge', '!wg0'),
        'in-interface-list': fc.constantFrom('LAN', 'WAN', '!LAN', 'TRUSTED', '!TRUSTED'),
        'connection-state': fc.constantFrom('new', 'established,related'),
        'src-address': fc.constantFrom(...NETWORKS, ...NETWORKS.map((network) => `!${network}`)),
        'dst-address': fc.constantFrom(...NETWORKS, ...NETWORKS.map((network) => `!${network}`)),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([action, matchers]): Record<string, string> => ({ chain: 'forward', action, ...matchers }));

/** Sources and the LAN interfaces whose every network each spares (bridge: 192.168.88.0/24, ether2: 192.168.99.0/24). */
const SPARING: readonly [string, readonly string[]][] = [
  ['!192.168.0.0/16', ['bridge', 'ether2']],
  ['10.0.0.0/8', ['bridge', 'ether2']],
  ['198.51.100.7', ['bridge', 'ether2']],
  ['!192.168.88.0/24', ['bridge']],
  ['192.168.99.0/24', ['bridge']],
  ['!192.168.99.0/24', ['ether2']],
  ['192.168.88.0/25', ['ether2']],
];

describe('a drop of spoofed sources over a list', () => {
  it('never changes the forward verdict, wherever it stands, whatever else the lists hold', () => {
    // The list: some of the LAN interfaces the source spares; the other rules' lists hold any of the interfaces.
    const drop = fc.tuple(fc.constantFrom(...SPARING), fc.nat(), fc.constantFrom('drop', 'reject'), fc.constantFrom('LAN', 'TRUSTED', 'SPOOF'));
    fc.assert(
      fc.property(fc.array(otherRule, { maxLength: 6 }), drop, fc.nat(), fc.subarray(['bridge', 'ether2', 'wg0']), ([...rules], [[source, spared], pick, action, list], at, others) => {
        const members = spared.slice(0, 1 + (pick % spared.length));
        const known = lists({ [list]: members, ...(list === 'LAN' ? {} : { LAN: others }) });
        const without = check('firewall_forward', setup(rules), known).ok;
        rules.splice(at % (rules.length + 1), 0, { chain: 'forward', action, 'in-interface-list': list, 'src-address': source });
        expect(check('firewall_forward', setup(rules), known).ok).toBe(without);
      }),
      { numRuns: 300 },
    );
  });
});
