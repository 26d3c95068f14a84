import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditSetup, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { cliValue } from '../../src/analysis/setup-fixes.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { fixtureList } from '../helpers/fixtures.js';
import { applyFixes, parseWords } from './apply-fix.js';

function recorded(): SetupRecords {
  return {
    interfaces: fixtureList('setup-interfaces.json'),
    peers: fixtureList('setup-peers.json'),
    addresses: fixtureList('setup-addresses.json'),
    routes: fixtureList('setup-routes.json'),
    filter: fixtureList('setup-filter.json'),
  };
}

function failedFixes(records: SetupRecords): string[] {
  return auditSetup(records).flatMap((setup) => setup.checks.flatMap((check) => (check.ok ? [] : (check.fix ?? '').split('\n'))));
}

function verdicts(records: SetupRecords): Record<string, boolean> {
  return Object.fromEntries(auditSetup(records).flatMap((setup) => setup.checks.map((check) => [`${setup.interface}/${check.check}`, check.ok])));
}

function wg(name = 'wg0', port = '13231'): RouterRecord {
  return { '.id': '*9', name, 'listen-port': port, disabled: 'false' };
}
function peer(allowed: string, extra: Record<string, string> = {}): RouterRecord {
  return { '.id': '*1', interface: 'wg0', 'allowed-address': allowed, disabled: 'false', name: 'branch', ...extra };
}
const ADDRESS = { '.id': '*1', address: '10.99.0.1/24', interface: 'wg0', disabled: 'false' };

function records(partial: Partial<SetupRecords>): SetupRecords {
  return { interfaces: [wg()], peers: [], addresses: [ADDRESS], routes: [], filter: [], ...partial };
}

describe('the audit of the recorded router', () => {
  it('passes every check once its own fixes are applied', () => {
    const before = recorded();
    const fixes = failedFixes(before);
    // wg-road's address and its input rule. (defconf's "drop all from WAN not DSTNATed" is no finding: the
    // tunnel's traffic does not come from the WAN list.)
    expect(fixes.length).toBe(2);
    const after = applyFixes(before, fixes);
    expect(Object.values(verdicts(after)).every(Boolean)).toBe(true);
  });
});

describe('route check', () => {
  const subnet = peer('10.99.0.2/32,192.168.20.0/24');
  it.each<[string, RouterRecord[], boolean]>([
    ['no route at all', [], false],
    ['only the default route elsewhere', [{ 'dst-address': '0.0.0.0/0', gateway: '203.0.113.1' }], false],
    ['a full tunnel: the default route through it', [{ 'dst-address': '0.0.0.0/0', gateway: 'wg0' }], true],
    ['a wider route through it', [{ 'dst-address': '192.168.0.0/16', gateway: 'wg0' }], true],
    [
      'a more specific route elsewhere wins over a wider one through it',
      [{ 'dst-address': '192.168.0.0/16', gateway: 'wg0' }, { 'dst-address': '192.168.20.0/24', gateway: '192.168.1.1' }],
      false,
    ],
    [
      'the longest prefix wins whatever the distance',
      [{ 'dst-address': '192.168.0.0/16', gateway: 'wg0', distance: '1' }, { 'dst-address': '192.168.20.0/24', gateway: 'ether2', distance: '10' }],
      false,
    ],
    ['a lower distance wins', [{ 'dst-address': '192.168.20.0/24', gateway: 'ether2', distance: '1' }, { 'dst-address': '192.168.20.0/24', gateway: 'wg0', distance: '5' }], false],
    ['a gateway inside the tunnel network', [{ 'dst-address': '192.168.20.0/24', gateway: '10.99.0.2' }], true],
    ['address%interface', [{ 'dst-address': '192.168.20.0/24', gateway: '10.99.0.2%wg0' }], true],
    ['a disabled route does not count', [{ 'dst-address': '192.168.20.0/24', gateway: 'wg0', disabled: 'true' }], false],
    ['another routing table does not count', [{ 'dst-address': '192.168.20.0/24', gateway: 'wg0', 'routing-table': 'vpn' }], false],
    // As the captured 7.x route table shows a route whose next hop is unreachable (no `active`, empty immediate-gw).
    ['an inactive route does not count', [{ 'dst-address': '192.168.20.0/24', gateway: '10.99.0.2', 'immediate-gw': '', inactive: 'true' }], false],
    ['an inactive route written yes does not count either', [{ 'dst-address': '192.168.20.0/24', gateway: '10.99.0.2', inactive: 'yes' }], false],
    // A route that says active: false without an inactive flag is not in use either (found by review).
    ['a route not active does not count', [{ 'dst-address': '192.168.20.0/24', gateway: '10.99.0.2', active: 'false' }], false],
    [
      'a route not active through another way leaves the tunnel in charge',
      [{ 'dst-address': '192.168.20.0/24', gateway: 'ether2', distance: '1', active: 'false' }, { 'dst-address': '192.168.20.0/24', gateway: 'wg0', distance: '5', active: 'true' }],
      true,
    ],
    [
      'an inactive route through it leaves a wider active one elsewhere in charge',
      [{ 'dst-address': '192.168.20.0/24', gateway: 'wg0', inactive: 'true' }, { 'dst-address': '192.168.0.0/16', gateway: 'ether2' }],
      false,
    ],
  ])('%s', (_name, routes, ok) => {
    expect(verdicts(records({ peers: [subnet], routes }))['wg0/route']).toBe(ok);
  });

  it('passes with no routed subnets, and for a subnet inside the tunnel network itself', () => {
    expect(verdicts(records({ peers: [peer('10.99.0.2/32,0.0.0.0/0,::/0,fd00::/64')] }))['wg0/route']).toBe(true);
    expect(verdicts(records({ peers: [peer('10.99.0.128/25')] }))['wg0/route']).toBe(true);
  });

  it('points an existing route for the same network at the tunnel rather than adding a second one', () => {
    const before = records({ peers: [subnet], routes: [{ '.id': '*7', 'dst-address': '192.168.20.0/24', gateway: 'ether2' }] });
    const [setup] = auditSetup(before);
    const check = setup?.checks.find((c) => c.check === 'route');
    expect(check?.detail).toBe('192.168.20.0/24 (peer branch) follows route *7 to 192.168.20.0/24 via ether2, not wg0');
    expect(check?.fix).toBe('/ip route set *7 gateway=wg0');
    expect(verdicts(applyFixes(before, [check?.fix ?? '']))['wg0/route']).toBe(true);
  });

  it('says plainly when the subnet is also a connected network elsewhere', () => {
    const before = records({ peers: [subnet], addresses: [ADDRESS, { address: '192.168.20.1/24', interface: 'bridge' }] });
    const check = auditSetup(before)[0]?.checks.find((c) => c.check === 'route');
    expect(check?.fix).toMatch(/^# 192\.168\.20\.0\/24 is also the connected network of bridge/);
  });
});

describe('address and interface selection', () => {
  it('does not audit disabled interfaces and uses the spec default port when none is given', () => {
    const result = auditSetup(records({ interfaces: [wg('wg0', ''), { ...wg('wg1'), disabled: 'true' }] }));
    expect(result.map((setup) => [setup.interface, setup.listenPort])).toEqual([['wg0', 13231]]);
  });

  it('ignores invalid and disabled addresses, and addresses of other interfaces', () => {
    const check = (addresses: RouterRecord[]) => verdicts(records({ addresses }))['wg0/address'];
    expect(check([])).toBe(false);
    expect(check([{ ...ADDRESS, invalid: 'true' }])).toBe(false);
    expect(check([{ ...ADDRESS, disabled: 'true' }])).toBe(false);
    expect(check([{ ...ADDRESS, interface: 'bridge' }])).toBe(false);
    expect(check([ADDRESS])).toBe(true);
  });
});

describe('fix commands', () => {
  it('quote names and comments that are not plain words, escaping what the console would expand', () => {
    expect(cliValue('wg-branch')).toBe('wg-branch');
    expect(cliValue('WireGuard wg "x" $y\\z')).toBe('"WireGuard wg \\"x\\" \\$y\\\\z"');
    expect(parseWords(`/ip route add gateway=${cliValue('wg "x" $y')}`).args.get('gateway')).toBe('wg "x" $y');
  });

  // Every name, hostile ones included, against the console's own rules: setup-fix-names.property.test.ts.
  it('write any name as one value of one command: line breaks, controls, `?` and `$` escaped, read back as it was, or not at all', () => {
    expect(cliValue('wg0\n/user add name=x group=full')).toBe('"wg0\\0A/user add name=x group=full"');
    expect(cliValue('a?b')).toBe('"a\\?b"');
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\n', '\r', '\u0000', '\u001b', '\u007f', '\u009b', '\u202e', '\u2066', '\u200b', '"', '\\', '$', '?', ';', ' ', '[', ']'), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })) }), (name) => {
        const value = cliValue(name);
        // Not written (its bytes on the router unknown, too long, a secret): setup-fix-names.property.test.ts.
        if (value === undefined) return;
        const command = `/ip route add gateway=${value} comment=x`;
        // One line, no raw control character (C1 ones too) nor a character that reorders or hides text (a bidi
        // override showed a command that read otherwise than it ran; found by review), and nothing the console
        // would expand left unescaped.
        // eslint-disable-next-line no-control-regex
        expect(command).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/);
        expect(command.replace(/\\./g, '')).not.toMatch(/[$?]/);
        const words = parseWords(command);
        expect(words.args.get('gateway')).toBe(name);
        expect(words.args.get('comment')).toBe('x');
      }),
    );
  });

  it('never write a route\'s `.id` that is not one into a command (a proxy\'s text in place of `*5`)', () => {
    const hostile = '*5 gateway=ether1 ; /user add name=support group=full password=Passw0rd ; /ip route set *5';
    const setup = records({
      peers: [peer('10.99.0.2/32,192.168.20.0/24')],
      routes: [{ '.id': hostile, 'dst-address': '192.168.20.0/24', gateway: 'ether1', distance: '1', 'routing-table': 'main', disabled: 'false' }],
    });
    const fix = auditSetup(setup)[0]?.checks.find((check) => check.check === 'route')?.fix ?? '';
    expect(fix).toBe('/ip route set [find dst-address=192.168.20.0/24 routing-table=main disabled=no] gateway=wg0');
    // A real id is used as it is.
    const plain = records({
      peers: [peer('10.99.0.2/32,192.168.20.0/24')],
      routes: [{ '.id': '*5', 'dst-address': '192.168.20.0/24', gateway: 'ether1', distance: '1', 'routing-table': 'main', disabled: 'false' }],
    });
    expect(auditSetup(plain)[0]?.checks.find((check) => check.check === 'route')?.fix).toBe('/ip route set *5 gateway=wg0');
  });

  it('write the connected network\'s interface name in its comment line as a value: a line break does not start a command', () => {
    const setup = records({
      peers: [peer('10.99.0.2/32,192.168.20.0/24')],
      addresses: [ADDRESS, { '.id': '*7', address: '192.168.20.1/24', interface: 'lan\n/user add name=x group=full', disabled: 'false', invalid: 'false' }],
    });
    const fix = auditSetup(setup)[0]?.checks.find((check) => check.check === 'route')?.fix ?? '';
    expect(fix.split('\n')).toHaveLength(1);
    expect(fix).toContain('"lan\\0A/user add name=x group=full"');
  });
});

// Random firewalls and routes built from the kinds of rules found on real routers: whatever the audit finds,
// applying its fixes must make every check pass (except an address clash, which has no command).
const RULES: Record<string, string>[] = [
  { chain: 'input', action: 'accept', 'connection-state': 'established,related,untracked' },
  { chain: 'input', action: 'drop', 'connection-state': 'invalid' },
  { chain: 'input', action: 'accept', protocol: 'icmp' },
  { chain: 'input', action: 'drop', 'in-interface-list': '!LAN' },
  { chain: 'input', action: 'accept', 'in-interface-list': 'LAN' },
  { chain: 'input', action: 'drop', protocol: 'udp', 'dst-port': '13000-14000' },
  { chain: 'input', action: 'accept', protocol: 'udp', 'dst-port': '13231,13232' },
  { chain: 'input', action: 'reject', 'src-address-list': '!allowed' },
  { chain: 'input', action: 'drop' },
  { chain: 'forward', action: 'accept', 'connection-state': 'established,related' },
  { chain: 'forward', action: 'drop', 'connection-state': 'new', 'connection-nat-state': '!dstnat', 'in-interface-list': 'WAN' },
  { chain: 'forward', action: 'accept', 'in-interface': 'wg0' },
  { chain: 'forward', action: 'accept', 'src-address': '192.168.0.0/16', 'dst-address': '172.16.0.0/12' },
  { chain: 'forward', action: 'drop', 'src-address': '192.168.20.0/24' },
  { chain: 'forward', action: 'drop' },
  { chain: 'forward', action: 'jump', 'jump-target': 'custom' },
];
const ROUTES: Record<string, string>[] = [
  { 'dst-address': '0.0.0.0/0', gateway: '203.0.113.1' },
  { 'dst-address': '192.168.0.0/16', gateway: 'wg0' },
  { 'dst-address': '192.168.20.0/24', gateway: 'ether2' },
  { 'dst-address': '10.0.0.0/8', gateway: '10.99.0.2' },
  { 'dst-address': '172.16.5.0/24', gateway: 'bridge', distance: '3' },
];
const SUBNETS = ['192.168.20.0/24', '192.168.30.0/24', '172.16.5.0/24', '10.1.0.0/16', '10.99.0.2/32', '0.0.0.0/0'];

describe('property: the fixes fix', () => {
  it('every failed check passes once its fix is applied', () => {
    const arbitrary = fc.record({
      rules: fc.array(fc.constantFrom(...RULES), { maxLength: 8 }),
      routes: fc.subarray(ROUTES),
      subnets: fc.subarray(SUBNETS, { minLength: 1 }),
      withAddress: fc.boolean(),
      port: fc.constantFrom('13231', '13232', '51820'),
    });
    fc.assert(
      fc.property(arbitrary, ({ rules, routes, subnets, withAddress, port }) => {
        let id = 0;
        const stamp = (record: Record<string, string>): RouterRecord => ({ '.id': `*${(++id).toString(16).toUpperCase()}`, ...record });
        const before = records({
          interfaces: [wg('wg0', port)],
          peers: [peer(subnets.join(','))],
          addresses: withAddress ? [ADDRESS] : [],
          routes: routes.map(stamp),
          filter: rules.map(stamp),
        });
        const after = applyFixes(before, failedFixes(before));
        expect(verdicts(after)).toEqual({ 'wg0/address': true, 'wg0/route': true, 'wg0/firewall_input': true, 'wg0/firewall_forward': true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('forward fixes', () => {
  // A subnet routed through wg0, everything from it accepted (*1), and then `rules` (their ids from *2 on).
  const routedWith = (rules: Record<string, string>[]): SetupRecords =>
    records({
      peers: [peer('10.99.0.2/32,192.168.20.0/24')],
      routes: [{ '.id': '*5', 'dst-address': '192.168.20.0/24', gateway: 'wg0', disabled: 'false' }],
      filter: [{ '.id': '*1', chain: 'forward', action: 'accept', 'in-interface': 'wg0', disabled: 'false' }, ...rules.map((rule) => ({ disabled: 'false', ...rule }))],
    });
  const forwardFixOf = (setup: SetupRecords): string | undefined => auditSetup(setup)[0]?.checks.find((check) => check.check === 'firewall_forward')?.fix;

  it('take only the side a drop of all but one list spares, so the accept does not let the WAN into the subnet', () => {
    const setup = routedWith([{ '.id': '*2', chain: 'forward', action: 'drop', 'in-interface-list': '!TRUSTED' }]);
    const fix = forwardFixOf(setup);
    expect(fix).toBe('/ip firewall filter add chain=forward action=accept dst-address=192.168.20.0/24 out-interface=wg0 in-interface-list=TRUSTED place-before=*2 comment="WireGuard wg0 to 192.168.20.0/24"');
    expect(Object.values(verdicts(applyFixes(setup, fix?.split('\n') ?? []))).every(Boolean)).toBe(true);
  });

  it('take the spared side from the jump that leads to the drop as well', () => {
    const fix = forwardFixOf(
      routedWith([
        { '.id': '*2', chain: 'forward', action: 'jump', 'jump-target': 'guard', 'in-interface-list': '!TRUSTED' },
        { '.id': '*3', chain: 'guard', action: 'drop' },
      ]),
    );
    expect(fix).toBe('/ip firewall filter add chain=forward action=accept dst-address=192.168.20.0/24 out-interface=wg0 in-interface-list=TRUSTED place-before=*2 comment="WireGuard wg0 to 192.168.20.0/24"');
  });

  it.each<[string, Record<string, string>[], string]>([
    ['a drop from a named port spares the other ports', [{ '.id': '*2', chain: 'forward', action: 'drop', 'connection-state': 'new', 'in-interface': 'ether1' }], ' in-interface=!ether1'],
    ['a guest VLAN kept to the internet stays kept', [{ '.id': '*2', chain: 'forward', action: 'drop', 'in-interface': 'vlan-guest', 'out-interface-list': '!WAN' }], ' in-interface=!vlan-guest'],
    [
      'a jump of the LAN to a chain that drops: the fix takes the LAN',
      [
        { '.id': '*2', chain: 'forward', action: 'jump', 'jump-target': 'from-lan', 'in-interface-list': 'LAN' },
        { '.id': '*3', chain: 'forward', action: 'jump', 'jump-target': 'from-wan', 'in-interface-list': 'WAN' },
        { '.id': '*4', chain: 'from-lan', action: 'drop' },
        { '.id': '*5', chain: 'from-wan', action: 'drop' },
      ],
      ' in-interface-list=LAN',
    ],
  ])('never take the side the blocking rule names, which may be the WAN: %s', (_name, rules, side) => {
    const fix = forwardFixOf(routedWith(rules)) ?? '';
    expect(fix).toContain(`out-interface=wg0${side} place-before=*2 `);
  });
});

