/**
 * The tunnel set-up audit: the usage notes of the interface spec (§1, steps 4–6) turned into read-only checks,
 * a pure function of the router's records. Per enabled WireGuard interface:
 * - `address`: an enabled IP address on the interface (`ip/address`);
 * - `route`: every routed subnet is sent through the interface (`ip/route`, longest prefix wins, connected
 *   networks of `ip/address` included);
 * - `firewall_input`: UDP to the listen port is accepted in `input` before any drop (see firewall.ts);
 * - `firewall_forward`: traffic from and to every routed subnet through the interface is accepted in `forward`
 *   before any drop.
 * Routed subnets are the enabled peers' IPv4 allowed-address entries wider than a host, except 0.0.0.0/0;
 * without any, `route` and `firewall_forward` pass. IPv6 entries are not audited (that needs ipv6/… menus).
 * Disabled records are ignored; disabled interfaces are not audited.
 */
import type { RouterRecord } from '../routeros/records.js';
import { RouterOsError } from '../routeros/errors.js';
import { parseRouterList, saysFalse, saysTrue } from '../routeros/decode.js';
import { FieldReader } from './decoding.js';
import { groupBySteps } from '../util/group.js';
import { arrivalNamed, evaluateChainSteps, FilterRules, isEnabled, type ChainVerdict, type InterfaceLists } from './firewall.js';
import { peerLabel } from './peer.js';
import { formatPrefix, parseIpv4Prefix, type Ipv4Range } from './ipv4.js';
import { commentValue, consoleValue, describeRule, forwardFix, inputFix, LISTED_FINDINGS, noFix, type Decodings, type FixLine } from './setup-fixes.js';
import { replyDecoding } from '../routeros/reply-text.js';
import { Networks, OWNERS_NAMED, RouteTable, routeProblemsSteps, usable, type Address, type Subnet } from './setup-routes.js';
import { finish, type Steps } from '../util/slices.js';
import { keyStart, quoteRouterText, safeText } from '../util/text.js';

export const SETUP_CHECKS = ['address', 'route', 'firewall_input', 'firewall_forward'] as const;
export type SetupCheckName = (typeof SETUP_CHECKS)[number];

export interface SetupCheckResult {
  check: SetupCheckName;
  ok: boolean;
  /** What is wrong, in plain language (failed checks only). */
  detail?: string;
  /** RouterOS commands that fix it, one per line (failed checks only). */
  fix?: string;
  /**
   * Why no fix, or not every line of it, is offered: a name it would hold cannot be written into a command that
   * means exactly that entry (setup-fixes.ts: unwritable). Our words only, never the name; /health adds it to the
   * detail after bounding it, so a cut never drops it.
   */
  noFix?: string;
}

/** What is kept of an interface's audit until the next one (the collector's data, read by /health). */
export interface InterfaceSetup {
  interface: string;
  listenPort: number;
  checks: SetupCheckResult[];
}

/** An interface as audited: its set-up and what the checks were made from. */
export interface AuditedInterface extends InterfaceSetup {
  /**
   * Normalised prefixes, e.g. `192.168.20.0/24`: up to MAX_AUDITED_SUBNETS per interface, so not kept past the
   * audit (a router listing a hundred interfaces of 10,000 each would have kept ~100 MB for five minutes).
   */
  routedSubnets: string[];
}

export interface SetupRecords {
  interfaces: readonly RouterRecord[];
  peers: readonly RouterRecord[];
  addresses: readonly RouterRecord[];
  routes: readonly RouterRecord[];
  filter: readonly RouterRecord[];
}

/**
 * `interface/list` and `interface/list/member`, read when the router lets the user (an optional read); without them
 * lists are judged by their names alone (firewall.ts: interfaceListMatch).
 */
export interface ListRecords {
  lists: readonly RouterRecord[];
  members: readonly RouterRecord[];
}

const LOOPBACK = { lo: 127 * 2 ** 24, hi: 128 * 2 ** 24 - 1 };

/** spec §2.5: the listen port when the router does not say. */
export const DEFAULT_LISTEN_PORT = 13231;

/** `read` collects the values that did not decode (or were out of range), for the collector to count. */
export function auditSetup(records: SetupRecords, read: FieldReader = new FieldReader('interface/wireguard'), lists?: ListRecords): AuditedInterface[] {
  return finish(auditSetupSteps(records, read, lists));
}

/** auditSetup as steps (util/slices.ts): an interface at a time, the rule set built in pieces. */
export function* auditSetupSteps(
  records: SetupRecords,
  read: FieldReader = new FieldReader('interface/wireguard'),
  listRecords?: ListRecords,
): Steps<AuditedInterface[]> {
  // How the replies were read, where known: a name outside ASCII is written into a fix as the router's own bytes.
  const decodings: Decodings = { tunnel: replyDecoding(records.interfaces), rules: replyDecoding(records.filter), addresses: replyDecoding(records.addresses) };
  const addresses: Address[] = [];
  for (const [index, record] of records.addresses.entries()) {
    if (index % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
    if (!usable(record)) continue;
    const prefix = parseIpv4Prefix(record['address'] ?? '');
    const iface = record['interface'] ?? record['actual-interface'];
    if (prefix !== undefined && iface !== undefined) addresses.push({ interface: iface, prefix });
  }
  // Every menu is read once into the shape the checks ask of it: per-interface passes over whole menus made the
  // audit quadratic (a hub with thousands of interfaces or branch subnets blocked the loop for seconds). Each is
  // read in steps: a router may list hundreds of thousands of routes or peers (250,000 routes took one task of
  // 2.6 s, 300,000 peers 0.26 s).
  const peersOf = yield* groupBySteps(records.peers, (peer) => (isEnabled(peer) ? peer['interface'] : undefined));
  const addressesOf = yield* groupBySteps(addresses, (address) => address.interface);
  const table = yield* RouteTable.steps(records.routes, addresses);
  yield;
  const filter = yield* FilterRules.steps(records.filter);
  const lists = listRecords === undefined ? undefined : yield* interfaceListsSteps(listRecords.lists, listRecords.members);
  const arrivals = yield* table.reachedThroughSteps(arrivalInterfaces(records.filter, addressesOf, lists));
  const out: AuditedInterface[] = [];
  const seen = new Set<string>();
  for (const record of records.interfaces) {
    yield;
    const name = record['name'];
    if (name === undefined || seen.has(name) || !isEnabled(record)) continue;
    seen.add(name);
    // An unreadable or impossible port is counted; the audit goes on with the default the router would use.
    const listenPort = read.port(record, 'listen-port') ?? DEFAULT_LISTEN_PORT;
    const peers = peersOf.get(name) ?? [];
    const onInterface = addressesOf.get(name) ?? [];
    const subnets = yield* routedSubnets(name, peers);
    const address = yield* addressCheck(name, onInterface, peers, decodings);
    const route = failures('route', ...(yield* routeProblemsSteps(name, subnets, onInterface, table, decodings)));
    const input = yield* inputCheck(name, listenPort, filter, lists, decodings);
    const forward = yield* forwardCheck(name, subnets, filter, arrivals, lists, decodings);
    out.push({ interface: name, listenPort, routedSubnets: subnets.map((subnet) => subnet.text), checks: [address, route, input, forward] });
  }
  return out;
}


/** A peer as findings name it: its label (a name or comment, which may be long free text) cut short, or its key's start. */
function peerName(peer: RouterRecord): string {
  const label = peerLabel(peer['name'], peer['comment']);
  return label !== '' ? safeText(label, PEER_NAME_CHARS) : keyStart(peer['public-key'] ?? '');
}

/** How much of a peer's label a finding quotes. */
const PEER_NAME_CHARS = 60;

/**
 * Subnets routed through one interface's tunnels that the audit judges at most: each costs a route lookup and
 * two walks of the forward chain (~16 µs), and a hub interface routes hundreds to thousands. 200,000 in one
 * peer's allowed-address held the event loop for 3.3 s (a hostile-router review; the audit now pauses between
 * subnets, but its cost stays linear in them); past the bound the set-up is not audited, as past the rule
 * checks' (firewall.ts).
 */
export const MAX_AUDITED_SUBNETS = 10_000;

/** Addresses or allowed-address entries read between two places where the audit may give the event loop back. */
const ENTRIES_PER_STEP = 4096;

/**
 * The interface's enabled peers' routed subnets, in steps: single hosts, which are not counted against
 * MAX_AUDITED_SUBNETS, and entries that are no address are read to the end of every list (30 MB of them took one
 * task of 1.5–2.8 s).
 */
function* routedSubnets(iface: string, peers: readonly RouterRecord[]): Steps<Subnet[]> {
  let count = 0;
  let entries = 0;
  const byText = new Map<string, Subnet>();
  for (const peer of peers) {
    yield;
    for (const entry of parseRouterList(peer['allowed-address'] ?? '')) {
      if (++entries % ENTRIES_PER_STEP === 0) yield;
      const prefix = parseIpv4Prefix(entry);
      if (prefix === undefined || prefix.length === 0 || prefix.length === 32) continue;
      const text = formatPrefix(prefix);
      let subnet = byText.get(text);
      if (subnet === undefined) {
        if (++count > MAX_AUDITED_SUBNETS) {
          throw new RouterOsError(
            'ROS_ERR_TOO_MUCH',
            `interface/wireguard/peers: the peers of ${quoteRouterText(iface, 40)} route more than ${MAX_AUDITED_SUBNETS} subnets (allowed-address other than single hosts); the set-up is not audited`,
          );
        }
        subnet = { prefix, text, peers: [] };
        byText.set(text, subnet);
      }
      if (subnet.peers.length < OWNERS_NAMED) subnet.peers.push(peerName(peer));
      else subnet.otherPeers = (subnet.otherPeers ?? 0) + 1;
    }
  }
  return [...byText.values()];
}

/** `onInterface`: the interface's usable addresses; `peers`: its enabled peers. */
function* addressCheck(iface: string, onInterface: readonly Address[], peers: readonly RouterRecord[], decodings: Decodings): Steps<SetupCheckResult> {
  if (onInterface.length > 0) return { check: 'address', ok: true };
  const hosts: string[] = [];
  let entries = 0;
  for (const peer of peers) {
    yield;
    for (const entry of parseRouterList(peer['allowed-address'] ?? '')) {
      if (++entries % ENTRIES_PER_STEP === 0) yield;
      if (parseIpv4Prefix(entry)?.length === 32) hosts.push(entry);
      if (hosts.length === 3) break;
    }
    if (hosts.length === 3) break;
  }
  const hint = hosts.length > 0 ? ` (its peers use ${hosts.join(', ')}; pick a free address in that subnet)` : '';
  const name = consoleValue(iface, 'name', decodings.tunnel);
  const comment = commentValue(`WireGuard ${iface}`, 'WireGuard', decodings.tunnel);
  const fix = name === undefined ? noFix("the tunnel's name", iface, 'name', decodings.tunnel) : `/ip address add address=<tunnel-address>/<prefix-length> interface=${name} comment=${comment}`;
  return failures('address', [`${iface} has no enabled IP address${hint}`], [fix]);
}

function* inputCheck(iface: string, listenPort: number, filter: FilterRules, lists: InterfaceLists | undefined, decodings: Decodings): Steps<SetupCheckResult> {
  // Handshakes arrive on some other interface (the WAN) for one of the router's own, non-loopback addresses.
  const verdict = yield* evaluateChainSteps(filter, 'input', {
    protocol: 'udp',
    dstPort: listenPort,
    dst: { not: LOOPBACK },
    inInterface: { not: iface },
    toRouter: true,
    ...(lists === undefined ? {} : { lists }),
  });
  if (verdict.passes) return { check: 'firewall_input', ok: true };
  return {
    check: 'firewall_input',
    ok: false,
    detail: `${describeRule(verdict.blockedBy)} drops UDP to port ${listenPort} (${iface}'s listen port) before any input rule accepts it`,
    fix: inputFix(iface, listenPort, verdict, decodings),
  };
}

/** The forward chain judged for each routed subnet, both ways; a pause possible after each subnet (two chain walks). */
function* forwardCheck(
  iface: string,
  subnets: readonly Subnet[],
  filter: FilterRules,
  arrivals: ReadonlyMap<string, readonly Ipv4Range[]>,
  lists: InterfaceLists | undefined,
  decodings: Decodings,
): Steps<SetupCheckResult> {
  const details: string[] = [];
  const fixes: FixLine[] = [];
  const known = lists === undefined ? {} : { lists };
  for (const subnet of subnets) {
    yield;
    // The local side of a pair is unknown, but it is not the remote subnet nor the tunnel itself; what arrives on
    // an interface comes from a network that interface reaches (firewall.ts: localSideUnknown).
    const remote = subnet.prefix.range;
    const directions: [ChainVerdict, 'from' | 'to'][] = [
      [yield* evaluateChainSteps(filter, 'forward', { src: { is: remote }, dst: { not: remote }, inInterface: { is: iface }, outInterface: { not: iface }, lanSide: true, arrivals, ...known }), 'from'],
      [yield* evaluateChainSteps(filter, 'forward', { dst: { is: remote }, src: { not: remote }, outInterface: { is: iface }, inInterface: { not: iface }, lanSide: true, arrivals, ...known }), 'to'],
    ];
    for (const [verdict, direction] of directions) {
      if (verdict.passes) continue;
      details.push(`${describeRule(verdict.blockedBy)} drops new connections ${direction} ${subnet.text} through ${iface} before any forward rule accepts them`);
      // Only the lines shown are written (failures): a hub's 20,000 failing directions, each quoting a long name,
      // held gigabytes (a hostile-router review).
      if (fixes.length < LISTED_FINDINGS) fixes.push(forwardFix(iface, subnet.text, direction, verdict, decodings));
    }
  }
  return failures('firewall_forward', details, fixes);
}

/**
 * Interfaces whose reached networks the audit looks up at most: each costs a pass over the routing table (a
 * partial BGP table lists hundreds of thousands of routes). Rules that name others are judged as before.
 */
export const MAX_ARRIVAL_INTERFACES = 16;

/**
 * The interfaces, with their networks, that enabled filter rules name as `in-interface`, or as a member of their
 * `in-interface-list` (when the lists' members are known): the only ones whose reached networks can change a forward
 * flow's reading (with a `src-address` in the same rule, or across a jump: firewall.ts, localSideUnknown). Those
 * beside a `src-address` come first; a list whose members do not all fit under the bound is looked up in part,
 * which reads as not looked up.
 */
function arrivalInterfaces(rules: readonly RouterRecord[], addressesOf: ReadonlyMap<string, readonly Address[]>, lists: InterfaceLists | undefined): Map<string, Networks> {
  const named = new Map<string, Networks>();
  for (const withSource of [true, false]) {
    for (const rule of rules) {
      if (named.size >= MAX_ARRIVAL_INTERFACES) return named;
      if (((rule['src-address'] ?? '') !== '') !== withSource || !isEnabled(rule)) continue;
      const iface = arrivalNamed(rule, 'in-interface');
      const list = arrivalNamed(rule, 'in-interface-list');
      const members = list === undefined ? undefined : lists?.get(list);
      for (const name of [...(iface === undefined ? [] : [iface]), ...(members ?? [])]) {
        if (named.size >= MAX_ARRIVAL_INTERFACES) return named;
        if (!named.has(name)) named.set(name, new Networks(addressesOf.get(name) ?? []));
      }
    }
  }
  return named;
}

/** RouterOS's built-in lists: their members are every interface, none, or those of a kind, never listed. */
const BUILT_IN_LISTS: ReadonlySet<string> = new Set(['all', 'none', 'dynamic', 'static']);

/**
 * Members of interface lists read at most (a router has tens); past them the lists are judged by their names alone,
 * as when they cannot be read.
 */
export const MAX_LIST_MEMBERS = 4096;

/**
 * The interface lists whose members are all known, by name, each with its enabled members; undefined when the member
 * menu holds more than MAX_LIST_MEMBERS records. A list is left out (unknown) when it is built in
 * (`all`, `dynamic`, …: their members are not listed), includes or excludes other lists, is listed twice, or has a
 * member whose `disabled` does not decode.
 */
function* interfaceListsSteps(lists: readonly RouterRecord[], members: readonly RouterRecord[]): Steps<InterfaceLists | undefined> {
  if (members.length > MAX_LIST_MEMBERS) return undefined;
  const known = new Map<string, Set<string>>();
  const unknown = new Set<string>();
  for (const [index, list] of lists.entries()) {
    if (index % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
    const name = list['name'];
    if (name === undefined) continue;
    const composed = (list['include'] ?? '').trim() !== '' || (list['exclude'] ?? '').trim() !== '';
    // Built in unless it says otherwise: a `builtin` that does not decode, or one of RouterOS's own names.
    const builtin = BUILT_IN_LISTS.has(name) || ((list['builtin'] ?? '').trim() !== '' && !saysFalse(list['builtin']));
    if (builtin || composed || known.has(name) || unknown.has(name)) {
      known.delete(name);
      unknown.add(name);
      continue;
    }
    known.set(name, new Set());
  }
  for (const [index, member] of members.entries()) {
    if (index % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) yield;
    const list = member['list'];
    const iface = member['interface'];
    const set = list === undefined ? undefined : known.get(list);
    if (set === undefined || iface === undefined || iface === '') continue;
    const disabled = (member['disabled'] ?? '').trim();
    if (saysTrue(disabled)) continue;
    if (disabled !== '' && !saysFalse(disabled)) known.delete(list as string);
    else set.add(iface);
  }
  return known;
}

/**
 * A check's result from its findings and the fix lines of the first LISTED_FINDINGS of them (one per finding). A line
 * that cannot be written (NoFix) is left out; the detail says why, and a fix of no line at all is none.
 */
function failures(check: SetupCheckName, details: readonly string[], fixes: readonly FixLine[]): SetupCheckResult {
  if (details.length === 0) return { check, ok: true };
  const more = (count: number) => (count > LISTED_FINDINGS ? [`and ${count - LISTED_FINDINGS} more`] : []);
  const shown = fixes.slice(0, LISTED_FINDINGS);
  const commands = shown.filter((line): line is string => typeof line === 'string');
  // At most three reasons (our words, each a line at most): the note is added to a bounded detail whole.
  const whys = [...new Set(shown.flatMap((line) => (typeof line === 'string' ? [] : [line.noFix])))].slice(0, 3);
  const left = commands.length === 0 ? 'no fix is offered' : `${shown.length - commands.length} of the fix lines are left out`;
  // Notes (`#` lines) after every command: joined with ` ; ` into one line (check's output, the verdict log), a note
  // comments out the rest of the line, and the commands after it were never run (a hostile-router review).
  const notes = commands.filter((line) => line.startsWith('#'));
  const fix = [...commands.filter((line) => !line.startsWith('#')), ...notes, ...more(details.length).map((line) => `# ${line}: run the audit again after these`)];
  return {
    check,
    ok: false,
    detail: [...details.slice(0, LISTED_FINDINGS), ...more(details.length)].join('; '),
    ...(commands.length === 0 ? {} : { fix: fix.join('\n') }),
    ...(whys.length === 0 ? {} : { noFix: `${left}: ${whys.join('; ')}` }),
  };
}
