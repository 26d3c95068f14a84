/**
 * The `route` check of the set-up audit: is each routed subnet sent through the tunnel? As the router decides:
 * the longest matching prefix wins, then the lowest distance; connected networks (from `ip/address`, distance 0)
 * take part. Only the `main` routing table is read. A route counts as through the interface when its gateway
 * (or immediate-gw) is the interface, `address%interface`, or an address inside a network on the interface.
 */
import type { RouterRecord } from '../routeros/records.js';
import { routerListHead, saysFalse, saysTrue } from '../routeros/decode.js';
import { isEnabled } from './firewall.js';
import { formatPrefix, parseIpv4, parseIpv4Prefix, type Ipv4Prefix, type Ipv4Range } from './ipv4.js';
import { commentValue, consoleValue, isConsoleId, LISTED_FINDINGS, noFix, type Decodings, type FixLine } from './setup-fixes.js';
import { safeText } from '../util/text.js';
import { finish, WeighedPace, type Steps } from '../util/slices.js';

export interface Subnet {
  prefix: Ipv4Prefix;
  text: string;
  /** The first OWNERS_NAMED peers that route it, by name; `otherPeers` counts the rest. */
  peers: string[];
  otherPeers?: number;
}

/**
 * Peers a finding names for one subnet. Every peer of an interface can route the same subnets: 30 peers with names
 * of 1 MiB, each owner named in each of 5,000 findings, filled the heap until the process died (a hostile hunt).
 */
export const OWNERS_NAMED = 3;

export interface Address {
  interface: string;
  prefix: Ipv4Prefix;
}

/** Whether a route is in the table the audit reads: `main` (named, or no table given). */
export function inMainTable(route: RouterRecord): boolean {
  const table = route['routing-table'];
  return table === undefined || table === '' || table === 'main';
}

/** Disabled records are ignored, and so are ones the router marks invalid. */
export function usable(record: RouterRecord): boolean {
  return isEnabled(record) && !saysTrue(record['invalid']);
}

interface Candidate {
  length: number;
  distance: number;
  /** Is the candidate's next hop the interface? `networks`: the interface's own. */
  through: (iface: string, networks: Networks) => boolean;
  what: string;
  /** The route's `.id`; undefined for a connected network. */
  id: string | undefined;
  /** For a connected network: the interface that has it. */
  connectedOn?: string;
  /**
   * A route RouterOS made itself (DHCP's, BGP's, OSPF's, a connected network's it lists): the console refuses to
   * change it, so a fix adds a static route that wins over it instead of setting it.
   */
  dynamic?: boolean;
  /** The network it routes. */
  range: Ipv4Range;
}

/**
 * The main routing table and the connected networks, read once per audit and keyed by network, so that finding
 * the routes that cover a subnet is one lookup per prefix length (33) instead of a pass over every route: a hub
 * with 4,000 branch subnets and a route for each took 9.6 s of blocked loop.
 */
export class RouteTable {
  readonly #byNetwork = new Map<string, Candidate[]>();
  /**
   * Enabled routes of the main table that are not in use (inactive, invalid, `active: false`), by network: a fix that
   * finds a route by its destination (routeFix) finds these too.
   */
  readonly #idleByNetwork = new Map<string, number>();

  constructor(routes: readonly RouterRecord[], addresses: readonly Address[]) {
    finish(this.#fill(routes, addresses));
  }

  /**
   * The table built in steps (util/slices.ts), a pause possible every 256 routes or networks: a router with a
   * partial BGP table lists hundreds of thousands of routes, and 250,000 took one task of 2.6 s.
   */
  static *steps(routes: readonly RouterRecord[], addresses: readonly Address[]): Steps<RouteTable> {
    const table = new RouteTable([], []);
    yield* table.#fill(routes, addresses);
    return table;
  }

  *#fill(routes: readonly RouterRecord[], addresses: readonly Address[]): Steps<void> {
    // Weighed by their gateway lists too: a route may list thousands (31 of 1 MiB took 2.7 s in 256 routes' step).
    const pace = new WeighedPace(ENTRIES_PER_STEP, GATEWAY_CHARS_PER_STEP);
    for (const route of routes) {
      if (pace.due((route['gateway']?.length ?? 0) + (route['immediate-gw']?.length ?? 0))) yield;
      // An inactive route (its next hop unreachable: the captured 7.x table shows `"inactive":"true"` and an empty
      // immediate-gw) carries no traffic, so it routes no subnet through the tunnel, whatever its gateway says.
      // The same table prints `active` too: one that says false without an `inactive` is not in use either.
      const inUse = !saysTrue(route['inactive']) && !saysFalse(route['active']);
      if (!isEnabled(route) || !inMainTable(route)) continue;
      const dst = parseIpv4Prefix(route['dst-address'] ?? '0.0.0.0/0');
      if (dst === undefined) continue;
      if (!usable(route) || !inUse) {
        const at = key(dst.network, dst.length);
        this.#idleByNetwork.set(at, (this.#idleByNetwork.get(at) ?? 0) + 1);
        continue;
      }
      // ECMP routes list a few gateways; past MAX_GATEWAYS (a route of a million, within a record's size) the rest are not read.
      const gateways = new Gateways([...routerListHead(route['gateway'] ?? '', MAX_GATEWAYS).items, ...routerListHead(route['immediate-gw'] ?? '', MAX_GATEWAYS).items]);
      this.#add(dst, {
        length: dst.length,
        distance: Number(route['distance'] ?? '1') || 1,
        through: (iface, networks) => gateways.reach(iface, networks),
        range: dst.range,
        what: `${route['.id'] === undefined ? 'the route' : `route ${route['.id']}`} to ${formatPrefix(dst)} via ${safeText(route['gateway'] ?? '?', GATEWAY_TEXT)}`,
        id: route['.id'],
        ...(saysTrue(route['dynamic']) ? { dynamic: true } : {}),
      });
    }
    // After the routes: of a route and a connected network equally long and far, the route came first before.
    for (const [index, address] of addresses.entries()) {
      if (index % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
      this.#add(address.prefix, {
        length: address.prefix.length,
        distance: 0,
        through: (iface) => address.interface === iface,
        range: address.prefix.range,
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

  /**
   * The enabled routes of the main table whose destination is `prefix`, in use or not: what the console's
   * `find dst-address=… routing-table=main disabled=no` selects (a connected network of `ip/address` is no route).
   */
  enabledRoutesTo(prefix: Ipv4Prefix): number {
    const at = key(prefix.network, prefix.length);
    const routes = (this.#byNetwork.get(at) ?? []).filter((candidate) => candidate.connectedOn === undefined).length;
    return routes + (this.#idleByNetwork.get(at) ?? 0);
  }

  /**
   * The networks each interface reaches: its connected networks and the destinations of every route (in use in
   * `main`, winning or not) through it. A packet that arrives on the interface comes from one of them, unless its
   * source is spoofed. `networks`: each interface's own, as `through` reads them. A pause possible every 256 routes.
   */
  *reachedThroughSteps(networks: ReadonlyMap<string, Networks>): Steps<Map<string, Ipv4Range[]>> {
    const reached = new Map<string, Ipv4Range[]>();
    if (networks.size === 0) return reached;
    for (const iface of networks.keys()) reached.set(iface, []);
    let count = 0;
    for (const candidates of this.#byNetwork.values()) {
      for (const candidate of candidates) {
        if (++count % ENTRIES_PER_STEP === 0) yield;
        for (const [iface, own] of networks) if (candidate.through(iface, own)) reached.get(iface)?.push(candidate.range);
      }
    }
    return reached;
  }

  #add(prefix: Ipv4Prefix, candidate: Candidate): void {
    const at = key(prefix.network, prefix.length);
    const list = this.#byNetwork.get(at);
    if (list === undefined) this.#byNetwork.set(at, [candidate]);
    else list.push(candidate);
  }
}

/** Routes, networks or subnets handled between two places where the audit may give the event loop back. */
const ENTRIES_PER_STEP = 256;

/** Gateways of one route read at most, of `gateway` and of `immediate-gw` each. */
export const MAX_GATEWAYS = 4096;

/** The longest gateway item read: an address and an interface name (MAX_NAME_CHARS) with room to spare. */
const MAX_GATEWAY_CHARS = 2048;

/** Characters of gateway lists read between two such places. */
const GATEWAY_CHARS_PER_STEP = 64 * 1024;

/** How much of a route's gateway list a finding quotes (a route may list thousands). */
const GATEWAY_TEXT = 100;

function key(network: number, length: number): string {
  return `${network}/${length}`;
}

/**
 * A route's gateways, read once: a gateway reaches an interface when it is the interface, `address%interface`,
 * or an address inside one of the interface's networks. Kept as names and sorted addresses, so a route with
 * thousands of gateways costs a search per interface, not gateways × addresses per subnet (2,000 of each took
 * 15 s of blocked loop).
 */
class Gateways {
  readonly #names = new Set<string>();
  readonly #addresses: number[] = [];

  constructor(gateways: readonly string[]) {
    for (const gateway of gateways) {
      // An address or an interface (`10.0.0.1%ether1`): longer than any name, it is neither, and as a key of the
      // set (with the text after each of its `%`) two of 500,000 characters took 2.7 s to add (a review).
      if (gateway.length > MAX_GATEWAY_CHARS) continue;
      this.#names.add(gateway);
      // `address%interface`: the interface is what follows an address and its `%` (a name may hold `%` itself).
      // Anything else is one name: `x%wg0` or `10.0.0.1%my%wg0` is no gateway through wg0 (every text after a `%`
      // was taken for an interface, and a route through an interface named `vlan%wg0` passed as through wg0: a
      // hostile-router review).
      const at = gateway.indexOf('%');
      if (at > 0 && parseIpv4(gateway.slice(0, at)) !== undefined) this.#names.add(gateway.slice(at + 1));
      const ip = parseIpv4(gateway);
      if (ip !== undefined) this.#addresses.push(ip);
    }
    this.#addresses.sort((a, b) => a - b);
  }

  reach(iface: string, networks: Networks): boolean {
    return this.#names.has(iface) || networks.holdsAny(this.#addresses);
  }
}

/** An interface's networks (from its addresses), merged and sorted for searching. */
export class Networks {
  readonly #ranges: { lo: number; hi: number }[] = [];

  constructor(addresses: readonly Address[]) {
    const sorted = addresses.map((address) => address.prefix.range).sort((a, b) => a.lo - b.lo);
    for (const range of sorted) {
      const last = this.#ranges.at(-1);
      if (last !== undefined && range.lo <= last.hi + 1) last.hi = Math.max(last.hi, range.hi);
      else this.#ranges.push({ lo: range.lo, hi: range.hi });
    }
  }

  /** Does any of the sorted addresses fall in one of the networks? Searches within the larger of the two. */
  holdsAny(sorted: readonly number[]): boolean {
    if (sorted.length === 0 || this.#ranges.length === 0) return false;
    if (this.#ranges.length <= sorted.length) {
      return this.#ranges.some(({ lo, hi }) => {
        const at = firstAtLeast(sorted.length, (i) => (sorted[i] as number) >= lo);
        return at < sorted.length && (sorted[at] as number) <= hi;
      });
    }
    return sorted.some((ip) => {
      const at = firstAtLeast(this.#ranges.length, (i) => (this.#ranges[i] as { hi: number }).hi >= ip);
      return at < this.#ranges.length && (this.#ranges[at] as { lo: number }).lo <= ip;
    });
  }
}

/** The first index in [0, length) where `ok` holds, for an `ok` false then true; length when none. */
function firstAtLeast(length: number, ok: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The `route` check's findings: what is wrong and the fix, per routed subnet not sent through `iface`. */
export function routeProblems(
  iface: string,
  subnets: readonly Subnet[],
  onInterface: readonly Address[],
  table: RouteTable,
  decodings: Decodings = {},
): [string[], FixLine[]] {
  return finish(routeProblemsSteps(iface, subnets, onInterface, table, decodings));
}

/** routeProblems as steps, a pause possible every 256 subnets (up to 33 lookups each). */
export function* routeProblemsSteps(
  iface: string,
  subnets: readonly Subnet[],
  onInterface: readonly Address[],
  table: RouteTable,
  decodings: Decodings = {},
): Steps<[string[], FixLine[]]> {
  const details: string[] = [];
  const fixes: FixLine[] = [];
  const networks = new Networks(onInterface);
  // Many subnets follow one route (the default route): its answer for this interface is worked out once.
  const through = new Map<Candidate, boolean>();
  for (const [index, subnet] of subnets.entries()) {
    if (index % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
    const best = table.best(subnet.prefix);
    if (best !== undefined && !through.has(best)) through.set(best, best.through(iface, networks));
    if (best !== undefined && through.get(best) === true) continue;
    const others = subnet.otherPeers ?? 0;
    const owners = `peer ${subnet.peers.join(', ')}${others > 0 ? ` and ${others} more` : ''}`;
    details.push(
      best === undefined
        ? `no route sends ${subnet.text} (${owners}) anywhere`
        : `${subnet.text} (${owners}) follows ${best.what}, not ${iface}`,
    );
    // Only the lines shown are written (setup-audit.ts: failures).
    if (fixes.length < LISTED_FINDINGS) fixes.push(routeFix(iface, subnet, best, table, decodings));
  }
  return [details, fixes];
}

/**
 * Add a route; or, when one for the very same network wins, point it at the tunnel (a second one would tie): by its
 * `.id` when that is RouterOS's `*N`, else by a `find` as narrow as that route, offered only when it selects that
 * route alone among the routes read. `[find dst-address=…]` alone also set disabled routes to the network and those
 * of every other routing table (a VRF's, a policy-routing table's) to the tunnel (found by review). A dynamic route
 * cannot be set (the console refuses): a static one of a lower distance is added to win over it, where there is one.
 */
function routeFix(iface: string, subnet: Subnet, best: Candidate | undefined, table: RouteTable, decodings: Decodings): FixLine {
  if (best?.connectedOn !== undefined && best.length >= subnet.prefix.length) {
    const other = consoleValue(best.connectedOn, 'text', decodings.addresses) ?? 'another interface (its name cannot be written here)';
    return `# ${subnet.text} is also the connected network of ${other}: renumber one of them (no route can win over it)`;
  }
  const gateway = consoleValue(iface, 'gateway', decodings.tunnel);
  if (gateway === undefined) return noFix("the tunnel's name", iface, 'gateway', decodings.tunnel);
  const comment = commentValue(`WireGuard ${iface}`, 'WireGuard', decodings.tunnel);
  if (best === undefined || best.length < subnet.prefix.length) return `/ip route add dst-address=${subnet.text} gateway=${gateway} comment=${comment}`;
  if (best.dynamic === true) {
    // The lowest distance wins among routes for one network; the least a static route can have is 1.
    if (best.distance > 1) return `/ip route add dst-address=${subnet.text} gateway=${gateway} distance=${best.distance - 1} comment=${comment}`;
    return { noFix: `the route to ${subnet.text} is dynamic (DHCP's, BGP's, OSPF's…) with distance 1: RouterOS refuses to change it and no static route can win over it; change it where it comes from` };
  }
  if (isConsoleId(best.id)) return `/ip route set ${best.id} gateway=${gateway}`;
  const others = table.enabledRoutesTo(subnet.prefix) - 1;
  if (others > 0) {
    return { noFix: `the route to ${subnet.text} has no id of RouterOS's form (\`*N\`), and ${others} other enabled route${others === 1 ? '' : 's'} of the main table go${others === 1 ? 'es' : ''} to that network, so no command can name it alone` };
  }
  return `/ip route set [find dst-address=${subnet.text} routing-table=main disabled=no] gateway=${gateway}`;
}
