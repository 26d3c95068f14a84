/**
 * The `route` check of the set-up audit: is each routed subnet sent through the tunnel? As the router decides:
 * the longest matching prefix wins, then the lowest distance; connected networks (from `ip/address`, distance 0)
 * take part. Only the `main` routing table is read. A route counts as through the interface when its gateway
 * (or immediate-gw) is the interface, `address%interface`, or an address inside a network on the interface.
 */
import type { RouterRecord } from '../routeros/records.js';
import { parseRouterList } from '../routeros/decode.js';
import { isEnabled } from './firewall.js';
import { contains, formatPrefix, parseIpv4, parseIpv4Prefix, type Ipv4Prefix } from './ipv4.js';
import { cliValue } from './setup-fixes.js';

export interface Subnet {
  prefix: Ipv4Prefix;
  text: string;
  peers: string[];
}

export interface Address {
  interface: string;
  prefix: Ipv4Prefix;
}

/** Disabled records are ignored, and so are ones the router marks invalid. */
export function usable(record: RouterRecord): boolean {
  return isEnabled(record) && record['invalid'] !== 'true';
}

interface Candidate {
  length: number;
  distance: number;
  through: boolean;
  what: string;
  /** The route's `.id`; undefined for a connected network. */
  id: string | undefined;
  /** For a connected network: the interface that has it. */
  connectedOn?: string;
}

/** The `route` check's findings: what is wrong and the fix, per routed subnet not sent through `iface`. */
export function routeProblems(
  iface: string,
  subnets: readonly Subnet[],
  addresses: readonly Address[],
  routes: readonly RouterRecord[],
): [string[], string[]] {
  const onInterface = addresses.filter((address) => address.interface === iface);
  const via = (gateway: string): boolean => {
    if (gateway === iface || gateway.endsWith(`%${iface}`)) return true;
    const ip = parseIpv4(gateway);
    return ip !== undefined && onInterface.some((address) => ip >= address.prefix.range.lo && ip <= address.prefix.range.hi);
  };
  const details: string[] = [];
  const fixes: string[] = [];
  for (const subnet of subnets) {
    const candidates: Candidate[] = [];
    for (const route of routes) {
      const table = route['routing-table'];
      if (!usable(route) || (table !== undefined && table !== '' && table !== 'main')) continue;
      const dst = parseIpv4Prefix(route['dst-address'] ?? '0.0.0.0/0');
      if (dst === undefined || !contains(dst.range, subnet.prefix.range)) continue;
      const gateways = [...parseRouterList(route['gateway'] ?? ''), ...parseRouterList(route['immediate-gw'] ?? '')];
      candidates.push({
        length: dst.length,
        distance: Number(route['distance'] ?? '1') || 1,
        through: gateways.some(via),
        what: `${route['.id'] === undefined ? 'the route' : `route ${route['.id']}`} to ${formatPrefix(dst)} via ${route['gateway'] ?? '?'}`,
        id: route['.id'],
      });
    }
    for (const address of addresses) {
      if (!contains(address.prefix.range, subnet.prefix.range)) continue;
      candidates.push({
        length: address.prefix.length,
        distance: 0,
        through: address.interface === iface,
        what: `the connected network ${formatPrefix(address.prefix)} of ${address.interface}`,
        id: undefined,
        connectedOn: address.interface,
      });
    }
    candidates.sort((a, b) => b.length - a.length || a.distance - b.distance);
    const best = candidates[0];
    if (best?.through === true) continue;
    const owners = `peer ${subnet.peers.join(', ')}`;
    details.push(
      best === undefined
        ? `no route sends ${subnet.text} (${owners}) anywhere`
        : `${subnet.text} (${owners}) follows ${best.what}, not ${iface}`,
    );
    fixes.push(routeFix(iface, subnet, best));
  }
  return [details, fixes];
}

/** Add a route; or, when one for the very same network wins, point it at the tunnel (a second one would tie). */
function routeFix(iface: string, subnet: Subnet, best: Candidate | undefined): string {
  if (best === undefined || best.length < subnet.prefix.length) {
    return `/ip route add dst-address=${subnet.text} gateway=${cliValue(iface)} comment=${cliValue(`WireGuard ${iface}`)}`;
  }
  if (best.connectedOn !== undefined) {
    return `# ${subnet.text} is also the connected network of ${best.connectedOn}: renumber one of them (no route can win over it)`;
  }
  return best.id === undefined
    ? `/ip route set [find dst-address=${subnet.text}] gateway=${cliValue(iface)}`
    : `/ip route set ${best.id} gateway=${cliValue(iface)}`;
}

