/**
 * The set-up audit finds the route a subnet follows with one lookup per prefix length. This checks it against
 * the router's rule read plainly, on random tables: every usable main-table route and connected network that
 * contains the subnet is a candidate; the longest prefix wins, then the lowest distance, then the first listed
 * (routes before connected networks).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouteTable, routeProblems, type Address } from '../../src/analysis/setup-routes.js';
import { contains, formatPrefix, parseIpv4, parseIpv4Prefix, type Ipv4Prefix } from '../../src/analysis/ipv4.js';
import { parseRouterList } from '../../src/routeros/decode.js';
import type { RouterRecord } from '../../src/routeros/records.js';

// A small address space, so random prefixes nest and collide often.
const prefixText = fc
  .tuple(fc.constantFrom(10, 192), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.constantFrom(0, 8, 16, 20, 23, 24, 25, 30, 32))
  .map(([a, b, c, length]) => `${a}.${b}.${c}.0/${length}`);

const routeArb = fc.record(
  {
    '.id': fc.integer({ min: 1, max: 999 }).map((n) => `*${n.toString(16)}`),
    'dst-address': fc.oneof(prefixText, fc.constant('not-an-address')),
    gateway: fc.array(fc.constantFrom('wg0', 'ether1', '10.0.0.1', '10.1.0.9', '192.2.3.1', '10.0.0.2%wg0', 'x%wg0', 'wg0%', '%wg0', '10.0.0.2%x%wg0', '10.0.0.2%wg0%'), { minLength: 1, maxLength: 3 }).map((list) => list.join(',')),
    'immediate-gw': fc.constantFrom('wg0', '10.0.0.1%ether1', '10.1.0.7'),
    distance: fc.constantFrom('1', '2', '0', '', 'x', '250'),
    'routing-table': fc.constantFrom('main', 'other', ''),
    disabled: fc.constantFrom('false', 'true'),
  },
  { requiredKeys: ['.id'] },
);

const addressArb = fc.tuple(prefixText, fc.constantFrom('wg0', 'ether1')).map(([text, iface]): Address => ({ interface: iface, prefix: parseIpv4Prefix(text) as Ipv4Prefix }));

function plainBest(routes: readonly RouterRecord[], addresses: readonly Address[], subnet: Ipv4Prefix) {
  const candidates: { length: number; distance: number; what: string; through: boolean }[] = [];
  for (const route of routes) {
    const table = route['routing-table'];
    if (route['disabled'] === 'true' || (table !== undefined && table !== '' && table !== 'main')) continue;
    const dst = parseIpv4Prefix(route['dst-address'] ?? '0.0.0.0/0');
    if (dst === undefined || !contains(dst.range, subnet.range)) continue;
    const gateways = [...parseRouterList(route['gateway'] ?? ''), ...parseRouterList(route['immediate-gw'] ?? '')];
    candidates.push({ length: dst.length, distance: Number(route['distance'] ?? '1') || 1, what: `route ${route['.id']} to ${formatPrefix(dst)}`, through: gateways.some(via) });
  }
  for (const address of addresses) {
    if (contains(address.prefix.range, subnet.range)) candidates.push({ length: address.prefix.length, distance: 0, what: `the connected network ${formatPrefix(address.prefix)} of ${address.interface}`, through: address.interface === 'wg0' });
  }
  candidates.sort((a, b) => b.length - a.length || a.distance - b.distance);
  return candidates[0];
}

/** The old reading of "through wg0": the interface, address%interface, or an address in one of wg0's networks. */
let wg0Networks: readonly Address[] = [];
function via(gateway: string): boolean {
  // `address%wg0`; `x%wg0`, `%wg0` name other interfaces.
  const at = gateway.indexOf('%');
  if (gateway === 'wg0' || (at > 0 && parseIpv4(gateway.slice(0, at)) !== undefined && gateway.slice(at + 1) === 'wg0')) return true;
  const ip = parseIpv4(gateway);
  return ip !== undefined && wg0Networks.some((address) => ip >= address.prefix.range.lo && ip <= address.prefix.range.hi);
}

describe('the route a subnet follows', () => {
  it('is the one the plain reading of the table picks, and goes through wg0 exactly when that reading says, on random tables', () => {
    fc.assert(
      fc.property(fc.array(routeArb, { maxLength: 12 }), fc.array(addressArb, { maxLength: 4 }), prefixText, (routes, addresses, subnetText) => {
        const subnet = parseIpv4Prefix(subnetText) as Ipv4Prefix;
        const best = new RouteTable(routes, addresses).best(subnet);
        wg0Networks = addresses.filter((address) => address.interface === 'wg0');
        const expected = plainBest(routes, addresses, subnet);
        // The audit words a route as "route *id to prefix via gateway"; the plain reading leaves the gateway out.
        expect(best?.what.replace(/ via .*$/, '')).toBe(expected?.what);
        const [details] = routeProblems('wg0', [{ prefix: subnet, text: subnetText, peers: ['p'] }], wg0Networks, new RouteTable(routes, addresses));
        expect(details.length === 0).toBe(expected?.through === true);
      }),
      { numRuns: 2000 },
    );
  });
});
