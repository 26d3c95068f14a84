/**
 * The `route` check of the set-up audit: is each routed subnet sent through the tunnel? As the router decides:
 * the longest matching prefix wins, then the lowest distance; connected networks (from `ip/address`, distance 0)
 * take part. Only the `main` routing table is read. A route counts as through the interface when its gateway
 * (or immediate-gw) is the interface, `address%interface`, or an address inside a network on the interface.
 */
import type { RouterRecord } from '../routeros/records.js';
import { parseRouterList } from '../routeros/decode.js';
import { isEnabled } from './firewall.js';
import { formatPrefix, parseIpv4, parseIpv4Prefix, type Ipv4Prefix } from './ipv4.js';
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
  /** Is the candidate's next hop the interface? */
  through: (iface: string, onInterface: readonly Address[]) => boolean;
  what: string;
  /** The route's `.id`; undefined for a connected network. */
  id: string | undefined;
  /** For a connected network: the interface that has it. */
  connectedOn?: string;
}

/**
 * The main routing table and the connected networks, read once per audit and keyed by network, so that finding
 * the routes that cover a subnet is one lookup per prefix length (33) instead of a pass over every route: a hub
 * with 4,000 branch subnets and a route for each took 9.6 s of blocked loop.
 */
export class RouteTable {
  readonly #byNetwork = new Map<string, Candidate[]>();

  constructor(routes: readonly RouterRecord[], addresses: readonly Address[]) {
    for (const route of routes) {
      const table = route['routing-table'];
      if (!usable(route) || (table !== undefined && table !== '' && table !== 'main')) continue;
      const dst = parseIpv4Prefix(route['dst-address'] ?? '0.0.0.0/0');
      if (dst === undefined) continue;
      const gateways = [...parseRouterList(route['gateway'] ?? ''), ...parseRouterList(route['immediate-gw'] ?? '')];
      this.#add(dst, {
        length: dst.length,
        distance: Number(route['distance'] ?? '1') || 1,
        through: (iface, onInterface) => gateways.some((gateway) => via(gateway, iface, onInterface)),
        what: `${route['.id'] === undefined ? 'the route' : `route ${route['.id']}`} to ${formatPrefix(dst)} via ${route['gateway'] ?? '?'}`,
        id: route['.id'],
      });
    }
    // After the routes: of a route and a connected network equally long and far, the route came first before.
    for (const address of addresses) {
      this.#add(address.prefix, {
        length: address.prefix.length,
        distance: 0,
        through: (iface) => address.interface === iface,
        what: `the connected network ${formatPrefix(address.prefix)} of ${address.interface}`,
        id: undefined,
        connectedOn: address.interface,
      });
    }
  }

  /** The route the router picks for the subnet: the longest prefix, then the lowest distance, then the first. */
  best(subnet: Ipv4Prefix): Candidate | undefined {
    for (let length = subnet.length; length >= 0; length--) {
      const size = 2 ** (32 - length);
      const candidates = this.#byNetwork.get(key(Math.floor(subnet.network / size) * size, length));
      if (candidates === undefined) continue;
      let best = candidates[0];
      for (const candidate of candidates) if (best === undefined || candidate.distance < best.distance) best = candidate;
      return best;
    }
    return undefined;
  }

  #add(prefix: Ipv4Prefix, candidate: Candidate): void {
    const at = key(prefix.network, prefix.length);
    const list = this.#byNetwork.get(at);
    if (list === undefined) this.#byNetwork.set(at, [candidate]);
    else list.push(candidate);
  }
}

function key(network: number, length: number): string {
  return `${network}/${length}`;
}

function via(gateway: string, iface: string, onInterface: readonly Address[]): boolean {
  if (gateway === iface || gateway.endsWith(`%${iface}`)) return true;
  const ip = parseIpv4(gateway);
  return ip !== undefined && onInterface.some((address) => ip >= address.prefix.range.lo && ip <= address.prefix.range.hi);
}

/** The `route` check's findings: what is wrong and the fix, per routed subnet not sent through `iface`. */
export function routeProblems(
  iface: string,
  subnets: readonly Subnet[],
  onInterface: readonly Address[],
  table: RouteTable,
): [string[], string[]] {
  const details: string[] = [];
  const fixes: string[] = [];
  for (const subnet of subnets) {
    const best = table.best(subnet.prefix);
    if (best?.through(iface, onInterface) === true) continue;
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

