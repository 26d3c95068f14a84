/**
 * The `route` check's fix points the route that wins for a routed subnet at the tunnel: `set *N` by its id, or, when
 * the reply's `.id` is no console id (a proxy's text, none at all), `set [find …]`. Either must select exactly that
 * route among every route the router holds (disabled ones, other routing tables', inactive ones), read as the console
 * reads a find (apply-fix.ts: findSelects), or not be offered, the detail saying why.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditSetup, type SetupRecords } from '../../src/analysis/setup-audit.js';
import { parseIpv4Prefix } from '../../src/analysis/ipv4.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { saysFalse, saysTrue } from '../../src/routeros/decode.js';
import { applyFixes, findSelects, parseWords } from './apply-fix.js';
import { expectConsoleLines } from './console-value.js';

const SEED = Number(process.env['FC_SEED'] ?? 20261205);
const SUBNET = '192.168.20.0/24';

/** wg0 (10.99.0.1/24) routing SUBNET, with the routes given. */
function router(routes: RouterRecord[]): SetupRecords {
  return {
    interfaces: [{ '.id': '*9', name: 'wg0', 'listen-port': '13231', disabled: 'false' }],
    peers: [{ '.id': '*1', interface: 'wg0', 'allowed-address': `10.99.0.2/32,${SUBNET}`, 'public-key': 'k', disabled: 'false' }],
    addresses: [{ '.id': '*2', address: '10.99.0.1/24', interface: 'wg0', disabled: 'false' }],
    routes,
    filter: [],
  };
}

function routeCheck(records: SetupRecords): { ok: boolean; fix?: string; noFix?: string } {
  const check = auditSetup(records)[0]?.checks.find((entry) => entry.check === 'route');
  if (check === undefined) throw new Error('no route check');
  return check;
}

/** The route the router sends SUBNET by, when it is a route for SUBNET itself (the audit's rule: enabled, in use, main, lowest distance, first). */
function winnerFor(routes: readonly RouterRecord[]): RouterRecord | undefined {
  const target = parseIpv4Prefix(SUBNET);
  const candidates = routes.filter((route) => {
    const dst = parseIpv4Prefix(route['dst-address'] ?? '0.0.0.0/0');
    const table = route['routing-table'];
    return (
      dst?.network === target?.network &&
      dst?.length === target?.length &&
      !saysTrue(route['disabled']) &&
      !saysTrue(route['invalid']) &&
      !saysTrue(route['inactive']) &&
      !saysFalse(route['active']) &&
      (table === undefined || table === '' || table === 'main')
    );
  });
  let best: RouterRecord | undefined;
  for (const route of candidates) if (best === undefined || (Number(route['distance'] ?? '1') || 1) < (Number(best['distance'] ?? '1') || 1)) best = route;
  return best;
}

describe("the route fix's `set` when the route's id is no console id", () => {
  it('selects that route alone: not a disabled route to the network, nor one of another routing table', () => {
    const winner = { '.id': 'route-7 (proxy)', 'dst-address': SUBNET, gateway: 'ether1', distance: '1', 'routing-table': 'main', disabled: 'false' };
    const routes = [
      winner,
      { '.id': '*A', 'dst-address': SUBNET, gateway: '10.0.0.9', distance: '1', 'routing-table': 'main', disabled: 'true' },
      { '.id': '*B', 'dst-address': SUBNET, gateway: '172.16.0.1', distance: '1', 'routing-table': 'vrf-guests', disabled: 'false' },
    ];
    const check = routeCheck(router(routes));
    const { target } = parseWords(check.fix ?? '');
    expect(target).toBeDefined();
    // `[find dst-address=192.168.20.0/24]` selected all three: the disabled one and the guest VRF's went to wg0 too.
    expect(findSelects(target as string, routes)).toEqual([winner]);
  });

  it('is not offered when another enabled route of the main table goes to the network (one not in use), and says why', () => {
    const routes: RouterRecord[] = [
      { 'dst-address': SUBNET, gateway: 'ether1', distance: '1', 'routing-table': 'main', disabled: 'false' },
      { 'dst-address': SUBNET, gateway: '10.0.0.9', distance: '1', 'routing-table': 'main', disabled: 'false', inactive: 'true' },
    ];
    const check = routeCheck(router(routes));
    expect(check.ok).toBe(false);
    expect(check.fix).toBeUndefined();
    expect(check.noFix).toContain('1 other enabled route of the main table goes to that network');
  });

  it('a dynamic route (DHCP\'s, BGP\'s) is never set, which RouterOS refuses: a static route of a lower distance is added, or no line when it has distance 1', () => {
    const bgp: RouterRecord = { '.id': '*8000002A', 'dst-address': SUBNET, gateway: '10.0.0.9', distance: '20', 'routing-table': 'main', disabled: 'false', dynamic: 'true' };
    const learned = routeCheck(router([bgp]));
    expect(learned.fix).toBe('/ip route add dst-address=192.168.20.0/24 gateway=wg0 distance=19 comment="WireGuard wg0"');
    expect(routeCheck(applyFixes(router([bgp]), [learned.fix ?? ''])).ok).toBe(true);
    const dhcp: RouterRecord = { ...bgp, distance: '1' };
    const leased = routeCheck(router([dhcp]));
    expect(leased.fix).toBeUndefined();
    expect(leased.noFix).toContain('is dynamic');
  });

  it('any table of routes: a `set` line selects exactly the winning route, and once pasted the check passes; or no line, with a reason', () => {
    const ids = fc.oneof(fc.constant(undefined), fc.constantFrom('', 'x', '*5 gateway=x', '5', '*', '*G'), fc.nat({ max: 0xfff }).map((n) => `*${n.toString(16).toUpperCase()}`));
    const route = fc.record(
      {
        '.id': ids,
        'dst-address': fc.constantFrom(SUBNET, '192.168.20.0/24', '192.168.20.1/24', '192.168.0.0/16', '192.168.20.0/25', '0.0.0.0/0'),
        gateway: fc.constantFrom('ether1', '10.0.0.9', '10.99.0.2', 'wg1', 'wg0%x'),
        distance: fc.constantFrom('1', '2', '5'),
        'routing-table': fc.constantFrom(undefined, '', 'main', 'vrf-guests', 'to-isp2'),
        disabled: fc.constantFrom(undefined, 'false', 'true'),
        inactive: fc.constantFrom(undefined, 'false', 'true'),
        active: fc.constantFrom(undefined, 'true', 'false'),
        invalid: fc.constantFrom(undefined, 'false', 'true'),
        dynamic: fc.constantFrom(undefined, 'false', 'true'),
      },
      { requiredKeys: ['dst-address'] },
    );
    fc.assert(
      fc.property(fc.array(route, { maxLength: 6 }), (generated) => {
        // Console ids are unique on a router; anything else may repeat (it names nothing).
        const seen = new Set<string>();
        const routes = generated.map((entry) => {
          const id = entry['.id'];
          const repeated = id !== undefined && /^\*[0-9A-F]+$/.test(id) && seen.has(id);
          if (id !== undefined) seen.add(id);
          return Object.fromEntries(Object.entries(entry).filter(([key, value]) => value !== undefined && !(key === '.id' && repeated))) as RouterRecord;
        });
        const check = routeCheck(router(routes));
        if (check.ok) return;
        if (check.fix !== undefined) expectConsoleLines(check.fix);
        const lines = (check.fix ?? '').split('\n').filter((line) => line.startsWith('/ip route set'));
        if (check.fix === undefined) expect(check.noFix).toBeDefined();
        for (const line of lines) {
          const { target } = parseWords(line);
          const selected = target?.startsWith('[') === true ? findSelects(target, routes) : routes.filter((entry) => entry['.id'] === target);
          const winner = winnerFor(routes);
          expect(winner, line).toBeDefined();
          expect(selected, `${line} over ${JSON.stringify(routes)}`).toEqual([winner]);
          expect(routeCheck(applyFixes(router(routes), [line])).ok).toBe(true);
        }
        // Whatever the fix's command (a set, or an add that wins over a dynamic route), pasted it mends the check.
        const commands = (check.fix ?? '').split('\n').filter((line) => line.startsWith('/ip route'));
        if (commands.length > 0) expect(routeCheck(applyFixes(router(routes), commands)).ok, `${commands.join(' | ')} over ${JSON.stringify(routes)}`).toBe(true);
      }),
      { seed: SEED, numRuns: 3_000 },
    );
  });
});
