/**
 * The forward check's unknown local side: a packet that arrives on a LAN interface comes from a network that
 * interface reaches (its connected networks, or one routed through it), so a drop that meets only other sources on
 * that interface (anti-spoofing) does not block the tunnel's subnet, while a drop that meets real LAN traffic still
 * does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditSetup, auditSetupSteps, MAX_ARRIVAL_INTERFACES, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { finishInSlices } from '../../src/util/slices.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { ADDRESSES, ROUTES, setup } from './lan-router.js';

function forward(records: SetupRecords): { ok: boolean; detail?: string } {
  const check = auditSetup(records)[0]?.checks.find((result) => result.check === 'firewall_forward');
  if (check === undefined) throw new Error('no forward check');
  return check;
}

const FROM_TUNNEL = { chain: 'forward', action: 'accept', 'in-interface': 'wg0' };

describe('the forward check and the LAN side of a flow', () => {
  it.each<[string, Record<string, string>]>([
    ['a drop of sources outside bridge\'s network, on bridge', { 'in-interface': 'bridge', 'src-address': '!192.168.88.0/24' }],
    ['the same, widened to a supernet', { 'in-interface': 'bridge', 'src-address': '!192.168.0.0/16' }],
    ['a drop of a bogon range that is not bridge\'s, on bridge', { 'in-interface': 'bridge', 'src-address': '10.0.0.0/8' }],
    ['a drop of sources outside ether2\'s network, on ether2', { 'in-interface': 'ether2', 'src-address': '!192.168.99.0/24' }],
  ])('%s does not block the subnet', (_name, matchers) => {
    expect(forward(setup([FROM_TUNNEL, { chain: 'forward', action: 'drop', ...matchers }]))).toEqual({ check: 'firewall_forward', ok: true });
  });

  it.each<[string, Record<string, string>, RouterRecord[]?]>([
    ['a drop of bridge\'s own network, on bridge', { 'in-interface': 'bridge', 'src-address': '192.168.88.0/24' }],
    ['a drop that spares only part of bridge\'s network', { 'in-interface': 'bridge', 'src-address': '!192.168.88.0/25' }],
    ['a drop that spares another interface\'s network', { 'in-interface': 'bridge', 'src-address': '!192.168.99.0/24' }],
    // The WAN reaches everything through the default route: its sources cannot be told from spoofed ones.
    ['a drop of all but one network on the WAN', { 'in-interface': 'ether1', 'src-address': '!203.0.113.0/30' }],
    [
      'a drop that spares bridge\'s network but not one routed through it',
      { 'in-interface': 'bridge', 'src-address': '!192.168.88.0/24' },
      [...ROUTES, { '.id': '*7', 'dst-address': '10.50.0.0/16', gateway: '192.168.88.254', disabled: 'false' }],
    ],
    // Without in-interface the source may be any LAN's: the audit does not know which interfaces are LAN.
    ['a drop of all but one LAN network, on any interface', { 'src-address': '!192.168.88.0/24' }],
    ['a drop of all but one LAN network from the LAN list', { 'in-interface-list': 'LAN', 'src-address': '!192.168.88.0/24' }],
  ])('%s still blocks the subnet', (_name, matchers, routes) => {
    const result = forward(setup([FROM_TUNNEL, { chain: 'forward', action: 'drop', ...matchers }], routes));
    expect(result.ok).toBe(false);
    expect(result.detail).toContain('to 192.168.20.0/24');
  });
});

describe('an anti-spoofing pair split over a jump', () => {
  it('meets none of the flow when the jump and the rule behind it name different interfaces (a packet arrives on one)', () => {
    // Both looked up (each beside a source address): before, the first interface named was kept and the drop blocked.
    const split: Record<string, string>[] = [
      FROM_TUNNEL,
      { chain: 'forward', action: 'jump', 'jump-target': 'lan', 'in-interface': 'bridge', 'src-address': '!10.0.0.0/8' },
      { chain: 'lan', action: 'drop', 'in-interface': 'ether2', 'src-address': '!192.168.99.0/25' },
    ];
    expect(forward(setup(split)).ok).toBe(true);
    // The same interface on both: the drop behind the jump meets bridge's LAN, and blocks.
    expect(forward(setup(split.map((rule) => (rule['chain'] === 'lan' ? { ...rule, 'in-interface': 'bridge' } : rule)))).ok).toBe(false);
  });

  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['the interface on the jump, the address behind it', { 'in-interface': 'bridge' }, { 'src-address': '!192.168.88.0/24' }],
    ['the address on the jump, the interface behind it', { 'src-address': '!192.168.88.0/24' }, { 'in-interface': 'bridge' }],
  ])('reads as the drop inlined: %s', (_name, onJump, behind) => {
    const split: Record<string, string>[] = [FROM_TUNNEL, { chain: 'forward', action: 'jump', 'jump-target': 'antispoof', ...onJump }, { chain: 'antispoof', action: 'drop', ...behind }];
    expect(forward(setup(split)).ok).toBe(true);
    // The same split with the address sparing only part of bridge's network blocks, as that drop inlined does.
    const partial = split.map((rule) => (rule['src-address'] === undefined ? rule : { ...rule, 'src-address': '!192.168.88.0/25' }));
    expect(forward(setup(partial)).ok).toBe(false);
  });
});

/** Networks to pick matchers from: bridge's, part of it, wider ones, the other LAN's, the subnet's, elsewhere. */
const NETWORKS = ['192.168.88.0/24', '192.168.88.0/25', '192.168.0.0/16', '192.168.99.0/24', '192.168.20.0/24', '10.0.0.0/8', '198.51.100.7'];
const matcherSets = fc.record(
  {
    protocol: fc.constantFrom('udp', 'tcp'),
    'dst-port': fc.constantFrom('445', '13231'),
    'in-interface': fc.constantFrom('bridge', 'ether2', '!wg0', 'wg0'),
    'out-interface': fc.constantFrom('wg0', 'bridge', '!wg0'),
    'in-interface-list': fc.constantFrom('LAN', 'WAN', '!LAN'),
    'connection-state': fc.constantFrom('new', 'established,related'),
    'src-address': fc.constantFrom(...NETWORKS, ...NETWORKS.map((network) => `!${network}`)),
    'dst-address': fc.constantFrom(...NETWORKS, ...NETWORKS.map((network) => `!${network}`)),
  },
  { requiredKeys: [] },
);
const rule = fc
  .tuple(fc.constantFrom('accept', 'drop', 'log'), matcherSets)
  .map(([action, matchers]): Record<string, string> => ({ chain: 'forward', action, ...matchers }));

describe('a drop of spoofed sources only', () => {
  it('never changes the forward verdict, wherever it stands', () => {
    // bridge reaches 192.168.88.0/24 (and ether2 192.168.99.0/24): a drop on bridge of sources outside a network that
    // holds all of that, or inside one that meets none of it, meets no real packet.
    const spoofed = fc.tuple(
      fc.constantFrom('!192.168.88.0/24', '!192.168.0.0/16', '10.0.0.0/8', '192.168.99.0/24', '198.51.100.7'),
      fc.record({ protocol: fc.constantFrom('udp', 'tcp'), 'out-interface': fc.constantFrom('wg0', '!ether1') }, { requiredKeys: [] }),
      fc.constantFrom('drop', 'reject'),
    );
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), spoofed, fc.nat(), ([...rules], [source, extra, action], at) => {
        const without = forward(setup(rules)).ok;
        rules.splice(at % (rules.length + 1), 0, { chain: 'forward', action, 'in-interface': 'bridge', 'src-address': source, ...extra });
        expect(forward(setup(rules)).ok).toBe(without);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the networks an interface reaches', () => {
  // VLAN i has 172.16.i.1/24; each gets the anti-spoofing drop, in the order the filter lists them.
  const vlans = MAX_ARRIVAL_INTERFACES + 1;
  const vlanSetup = (routes: RouterRecord[]): SetupRecords => {
    const records = setup(
      [FROM_TUNNEL, ...Array.from({ length: vlans }, (_, i) => ({ chain: 'forward', action: 'drop', 'in-interface': `vlan${i}`, 'src-address': `!172.16.${i}.0/24` }))],
      routes,
    );
    return { ...records, addresses: [...ADDRESSES, ...Array.from({ length: vlans }, (_, i) => ({ '.id': `*V${i}`, address: `172.16.${i}.1/24`, interface: `vlan${i}`, disabled: 'false' }))] };
  };

  it(`are looked up for the first ${MAX_ARRIVAL_INTERFACES} interfaces the filter names; a drop on another reads as before`, () => {
    const result = forward(vlanSetup(ROUTES));
    expect(result.ok).toBe(false);
    expect(result.detail).toContain(`rule *${MAX_ARRIVAL_INTERFACES + 2}`);
  });

  it('are found in steps, a pause possible every 256 routes, to the result made in one go', async () => {
    const routes = Array.from({ length: 20_000 }, (_, i) => ({ '.id': `*R${i}`, 'dst-address': `10.${i >> 8}.${i & 255}.0/24`, gateway: '203.0.113.1', disabled: 'false' }));
    const records = vlanSetup([...ROUTES, ...routes]);
    let pauses = 0;
    const sliced = await finishInSlices(auditSetupSteps(records), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced).toEqual(auditSetup(records));
    // Once building the table, once finding what each interface reaches.
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(routes.length / 256));
  });
});
