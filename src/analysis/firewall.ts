/**
 * Does a chain of `ip/firewall/filter` rules let a flow through? Rules are read in order, as the router does.
 *
 * Each matcher of a rule is judged against the flow as one of:
 * - `all`: every packet of the flow meets it;
 * - `none`: no packet does;
 * - `some`: only part of the flow does (e.g. `protocol=tcp` for "all traffic of a subnet");
 * - `unknown`: the audit cannot tell (NAT state, the side of the flow it does not know, such as the WAN interface
 *   WireGuard packets arrive on or the LAN a routed subnet talks to, and interface lists there or whose members it
 *   could not read: `Flow.lists`, interfaceListMatch).
 * An `accept` lets the flow through when no matcher is `none` or `some`, and either it has no matchers at all
 * or at least one is `all`: `protocol=udp dst-port=13231 in-interface-list=WAN` counts, while "accept from LAN"
 * (`in-interface-list=LAN` alone) does not, since nothing in it is about this flow.
 * A forward flow's local side is known only as "not the subnet, not the tunnel", with one exception: a packet
 * that arrives on an interface comes from a network that interface reaches (`Flow.arrivals`), so a rule's
 * `in-interface` and `src-address` together that spare all of those meet none of the flow (anti-spoofing drops).
 * A `drop`, `reject` or `tarpit` blocks the flow when no matcher is `none`: it may hit part of the flow, which
 * is enough to break a tunnel. Positive address lists on those (`src-address-list=bogons`) are taken as deny
 * lists that do not hold the tunnel's traffic. A `jump` is followed into its target chain unless its matchers
 * exclude the flow, and a rule there is judged with the matchers of the jumps that led to it, as the same rule
 * with those matchers inlined would be (read as that rule's action reads them): `jump protocol=udp
 * dst-port=13231` to `accept src-address-list=wg-peers` covers the flow as `accept protocol=udp dst-port=13231
 * src-address-list=wg-peers` does, and a jump of one source subnet accepts none of it. A chain that ends (or
 * meets a covering `return`) without deciding hands back to the rule after the jump. Other
 * actions (`log`, `passthrough`, `fasttrack-connection`, …) neither accept nor block. With no deciding rule the
 * built-in chain's default policy accepts. Only new connections are asked about: a tunnel that cannot start is
 * broken.
 */
import type { RouterRecord } from '../routeros/records.js';
import { saysTrue } from '../routeros/decode.js';
import { RouterOsError } from '../routeros/errors.js';
import { contains, overlaps, parseIpv4Match, type Ipv4Range } from './ipv4.js';
import { groupBy, groupBySteps } from '../util/group.js';
import { finish, WeighedPace, type Steps } from '../util/slices.js';

/**
 * The filter matchers of RouterOS 7 the audit does not read for what they say: each narrows the traffic a rule
 * applies to in a way the audit cannot judge for a flow, so an accept with one does not cover the flow (`some`)
 * and a block with one may hit all of it (`unknown`, not policy). They are fetched so that a rule is never mistaken
 * for one without conditions: a router honours `.proplist`, and `accept ipsec-policy=in,ipsec` (defconf's first
 * forward rule) arrived as a bare `accept`, which covered every tunnel and hid every drop after it (found by
 * review). Names a version does not have are left out of its reply, without an error.
 */
const OTHER_MATCHERS = [
  'connection-bytes',
  'connection-limit',
  'connection-mark',
  'connection-rate',
  'content',
  'dscp',
  'dst-limit',
  'fragment',
  'hotspot',
  'icmp-options',
  'in-bridge-port',
  'in-bridge-port-list',
  'ingress-priority',
  'ipv4-options',
  'layer7-protocol',
  'limit',
  'nth',
  'out-bridge-port',
  'out-bridge-port-list',
  'packet-mark',
  'packet-size',
  'per-connection-classifier',
  'priority',
  'psd',
  'random',
  'routing-mark',
  'src-mac-address',
  'tcp-flags',
  'tcp-mss',
  'time',
  'tls-host',
  'ttl',
] as const;

export const FILTER_PROPLIST = [
  '.id',
  'chain',
  'action',
  'protocol',
  'dst-port',
  'src-port',
  'src-address',
  'dst-address',
  'in-interface',
  'out-interface',
  'in-interface-list',
  'out-interface-list',
  'src-address-list',
  'dst-address-list',
  'connection-state',
  'connection-nat-state',
  'jump-target',
  'disabled',
  'comment',
  'port',
  'ipsec-policy',
  'connection-type',
  'dst-address-type',
  'src-address-type',
  ...OTHER_MATCHERS,
] as const;

/**
 * Interface lists by name (case-sensitive, as RouterOS compares them), each with its enabled members: only the lists
 * whose members are all known (not built in, no `include` or `exclude`); a list absent is unknown.
 */
export type InterfaceLists = ReadonlyMap<string, ReadonlySet<string>>;

/** What is known of one side of a flow: exactly this, or anything but this. Absent: unknown. */
export type Side<T> = { is: T } | { not: T };

/** The traffic to let through; protocol and port absent mean every protocol and every port. */
export interface Flow {
  /** `udp`; absent: every protocol. */
  protocol?: string;
  /** Absent: every port. */
  dstPort?: number;
  src?: Side<Ipv4Range>;
  dst?: Side<Ipv4Range>;
  inInterface?: Side<string>;
  outInterface?: Side<string>;
  /**
   * Set for the forward flows, between the tunnel and the networks behind the router: their side that is not the
   * tunnel is the LAN, not the internet the tunnel's own packets come from.
   */
  lanSide?: boolean;
  /**
   * For the forward flows: the networks a packet that arrives on an interface can come from, for the interfaces
   * the audit looked up (see localSideUnknown); an interface absent is unknown.
   */
  arrivals?: ReadonlyMap<string, readonly Ipv4Range[]>;
  /**
   * The interface lists whose members the audit read (InterfaceLists); absent when they could not be read, and
   * then a list is judged by its name alone (interfaceListMatch).
   */
  lists?: InterfaceLists;
  /** Whether the flow goes to the router itself (`dst-address-type=local`): the input flow. */
  toRouter?: boolean;
}

type Match = 'all' | 'some' | 'none' | 'unknown';

/**
 * Addresses no packet of a flow the audit judges has, as source or destination: "this network" (0.0.0.0/8),
 * loopback (127.0.0.0/8), multicast (224.0.0.0/4) and the limited broadcast. The flows are unicast packets between
 * hosts (a peer and the router, or hosts on either side of a routed subnet), and Linux drops packets from these as
 * martians, and neither takes in nor forwards unicast to them. So an accept of the tunnel's port narrowed by
 * `src-address=127.0.0.1` lets none of it through; it read as covering the tunnel (found by review). And a drop of
 * `dst-address=224.0.0.0/4` or `255.255.255.255` in input, or of `dst-address=127.0.0.0/8` in forward, blocks none
 * of it; each failed the check, with a fix offered (found by review).
 */
const NEVER_ADDRESSES: readonly Ipv4Range[] = [
  { lo: 0, hi: 2 ** 24 - 1 },
  { lo: 127 * 2 ** 24, hi: 128 * 2 ** 24 - 1 },
  { lo: 224 * 2 ** 24, hi: 240 * 2 ** 24 - 1 },
  { lo: 2 ** 32 - 1, hi: 2 ** 32 - 1 },
];
const LAST_ADDRESS = 2 ** 32 - 1;
/** RouterOS 7's loopback interface (`type=loopback`). */
const LOOPBACK_INTERFACE = 'lo';

const BLOCKING = new Set(['drop', 'reject', 'tarpit']);
const PROTOCOL_NUMBERS: Readonly<Record<string, string>> = { '17': 'udp', '6': 'tcp', '1': 'icmp' };

export type ChainVerdict =
  /** `acceptedBy` is undefined when no rule decided (the default policy accepts). */
  | { passes: true; acceptedBy: RouterRecord | undefined }
  /**
   * `via`: the rule of the chain asked about that leads to the block, when the block is in a chain it jumps to (a
   * fix must go before the jump: an input rule placed before a rule of another chain lands after it).
   */
  | { passes: false; blockedBy: RouterRecord; via?: RouterRecord };

/** A verdict that blocks: what a fix is written for. */
export type BlockedVerdict = Extract<ChainVerdict, { passes: false }>;

/**
 * A record is enabled unless its `disabled` says true (absent, empty or unreadable: enabled, as RouterOS defaults).
 * The set-up collector leaves the checks that rest on an unreadable flag unjudged (wireguard-setup.ts: FLAGS).
 */
export function isEnabled(record: RouterRecord): boolean {
  return !saysTrue(record['disabled']);
}

/**
 * Chains this many jumps deep are not entered. RouterOS refuses jump loops, so a loop only comes from a reply that
 * is not a real rule set; it is followed like any other jump until this depth.
 */
const MAX_JUMP_DEPTH = 16;

/** A rule read once: its action and its matchers, each a judge of a flow. */
interface CompiledRule {
  record: RouterRecord;
  action: string;
  /** drop, reject or tarpit. */
  blocking: boolean;
  judges: Judge[];
  /** A jump's matchers as a block's would read them (address and interface lists), for a block in its target. */
  blockJudges?: Judge[];
}

/** What a matcher's answer says of a flow (see judge and breaks). */
interface MatcherKind {
  /**
   * Whether its `all` says the rule is about this flow (a port, an address, the tunnel interface), as opposed to
   * one every new connection meets (`protocol=udp`, `connection-state=new`).
   */
  readonly identifies: boolean;
  /**
   * Whether a part it leaves out is a known part of a forward flow's traffic (some ports, some hosts): on a block,
   * the operator's policy rather than a broken link.
   */
  readonly policy: boolean;
}
/** A port or an address: names the flow, and a part it leaves out is policy. */
const NARROWS: MatcherKind = { identifies: true, policy: true };
/** The tunnel interface: names the flow. */
const NAMES: MatcherKind = { identifies: true, policy: false };
/** A protocol, a connection state, a list, an unjudged matcher: says nothing of this flow in particular. */
const GENERAL: MatcherKind = { identifies: false, policy: false };

/** One matcher of a rule. */
interface Judge extends MatcherKind {
  match: (flow: Flow) => Match;
  /** What the matcher tells of where a packet arrives or comes from, read with the rule's others (localSideUnknown). */
  arrival?: ArrivalClue;
}

/**
 * A positive `in-interface` or `in-interface-list`, or a `src-address`: half of an anti-spoofing pair (see
 * localSideUnknown). A list's members are the flow's (`Flow.lists`), worked out once per audit (arrivalMembers).
 */
type ArrivalClue =
  | { on: string }
  | { onList: string; members: WeakMap<InterfaceLists, WeakMap<Arrivals, Map<string, readonly string[] | null>>> }
  | { source: Ipv4Range; negated: boolean; spared: WeakMap<Arrivals, readonly string[]> };

type Arrivals = ReadonlyMap<string, readonly Ipv4Range[]>;

/**
 * Rule judgements one audit may make. Each flow walks its chain, so the work is flows (two per routed subnet,
 * one per interface) × rules: a hub with 1,000 branch subnets and 1,000 forward rules is at the limit, about
 * half a second when every rule carries every matcher (measured). A router that needs more fails the audit
 * with a clear error rather than block the exporter.
 */
export const DEFAULT_RULE_CHECKS = 2_000_000;

function chainOf(rule: CompiledRule): string | undefined {
  return rule.record['chain'];
}

/** A filter rule set read once: enabled rules by chain, in order, with their matchers parsed. Build it once per audit. */
export class FilterRules {
  readonly #byChain: Map<string, CompiledRule[]>;
  readonly #enabled: number;
  #left = DEFAULT_RULE_CHECKS;

  /**
   * `compiled`: the enabled rules, compiled (compileEnabled), and `byChain` the same by chain; made here when not
   * given.
   */
  constructor(
    rules: readonly RouterRecord[],
    compiled: readonly CompiledRule[] = finish(compileEnabled(rules)),
    byChain: Map<string, CompiledRule[]> = groupBy(compiled, chainOf),
  ) {
    this.#enabled = compiled.length;
    this.#byChain = byChain;
  }

  /** The rule set built in steps (util/slices.ts): a router may list thousands of rules of long port lists. */
  static *steps(rules: readonly RouterRecord[]): Steps<FilterRules> {
    const compiled = yield* compileEnabled(rules);
    return new FilterRules(rules, compiled, yield* groupBySteps(compiled, chainOf));
  }

  chain(name: string): readonly CompiledRule[] {
    return this.#byChain.get(name) ?? [];
  }

  /** Counts one rule judged; throws once the audit has judged more than its limit. */
  spend(): void {
    this.#left -= 1;
    if (this.#left >= 0) return;
    throw new RouterOsError(
      'ROS_ERR_TOO_MUCH',
      `ip/firewall/filter: judging the tunnels' traffic against ${this.#enabled} enabled rules takes more than ${DEFAULT_RULE_CHECKS} rule checks; the set-up is not audited`,
    );
  }
}

export function evaluateChain(rules: FilterRules | readonly RouterRecord[], chain: string, flow: Flow): ChainVerdict {
  return finish(evaluateChainSteps(rules, chain, flow));
}

/** Rule checks between two places where a chain walk may pause. */
const CHECKS_PER_STEP = 256;

/**
 * evaluateChain as steps, a pause possible every 256 rule checks: one walk of 124,990 rules each jumping back into
 * its own chain spent the audit's whole budget in one task of 0.5–0.7 s (found by review).
 */
export function* evaluateChainSteps(rules: FilterRules | readonly RouterRecord[], chain: string, flow: Flow): Steps<ChainVerdict> {
  const filter = rules instanceof FilterRules ? rules : new FilterRules(rules);
  // A chain's verdict depends only on the chain, how deep it is entered and what the jumps into it established
  // (a scope: at most 12 that a rule tells apart), so each triple is walked once: a rule set whose jumps fan out
  // (every rule of every chain jumping on) costs rules × depth × the scopes met, not rules ^ depth.
  const memo = new Map<string, ChainVerdict | null>();
  let checks = 0;
  const step = (): boolean => ++checks % CHECKS_PER_STEP === 0;
  function* walk(name: string, depth: number, scope: Scope): Steps<ChainVerdict | undefined> {
    if (depth >= MAX_JUMP_DEPTH) return undefined;
    const key = `${depth}:${scopeKey(scope)}:${name}`;
    const known = memo.get(key);
    if (known !== undefined) return known ?? undefined;
    const verdict = yield* walkChain(filter, name, flow, scope, step, (target, inner) => walk(target, depth + 1, inner));
    memo.set(key, verdict ?? null);
    return verdict;
  }
  return (yield* walk(chain, 0, OPEN_SCOPE)) ?? { passes: true, acceptedBy: undefined };
}

/**
 * What the jumps that led into a chain established of the flow, for each way a rule there reads them: an accept
 * there is judged as the accept with the jumps' matchers inlined would be, and a block as that block would be.
 */
interface Scope {
  /** The jumps' matchers as an accept reads them: none of the flow, or what they tell of it. */
  readonly accept: Tally;
  /** As a block reads them (a positive address list there is a deny list the tunnel is not on). */
  readonly block: Tally;
}

/** What a rule's matchers, or a jump's, tell of the flow, before they are read as a reach (see judge). */
interface Tally {
  readonly none: boolean;
  readonly partial: boolean;
  readonly unknown: boolean;
  readonly identified: boolean;
  readonly policy: boolean;
  /**
   * The interfaces the matchers so far say the packets arrive on (one of them: an `in-interface`, a list's
   * members), all in the flow's `arrivals`, sorted; absent when none says.
   */
  readonly arrivesOn?: readonly string[];
  /** The interfaces of the flow's `arrivals` whose every network a `src-address` so far spares. */
  readonly sparedOn: readonly string[];
}

const EMPTY_TALLY: Tally = { none: false, partial: false, unknown: false, identified: false, policy: false, sparedOn: [] };
/** A matcher excluded the flow: nothing else told counts. */
const NONE_TALLY: Tally = { none: true, partial: false, unknown: false, identified: false, policy: false, sparedOn: [] };
/** No jump: the whole flow. */
const OPEN_SCOPE: Scope = { accept: EMPTY_TALLY, block: EMPTY_TALLY };

/**
 * The scope as far as a rule behind it can tell, so that scopes no rule tells apart share one walk (at most 4 × 3
 * per chain and depth, times the anti-spoofing halves met, which the interfaces looked up bound): an accept there covers never (the jumps meet none or part of the flow), as its own
 * matchers say (no jump matcher), only if one of its own names the flow (a jump matcher is unknown) or unless one
 * of its own meets part (the jumps name it); a block there meets none, a part left out by policy, or the flow.
 */
function scopeKey({ accept, block }: Scope): string {
  const forAccept = accept.none || accept.partial ? 'x' : accept.identified ? 'i' : accept.unknown ? 'u' : 'o';
  const forBlock = block.none ? 'x' : block.policy ? 'p' : 'o';
  // What an anti-spoofing pair half-told by the jumps may still conclude (bounded by the interfaces looked up).
  return `${forAccept}${forBlock}${arrivalKey(accept)}${arrivalKey(block)}`;
}

/** What a tally's anti-spoofing half may still conclude with a rule behind it; empty when it holds none. */
function arrivalKey({ arrivesOn, sparedOn }: Tally): string {
  return arrivesOn === undefined && sparedOn.length === 0 ? '' : `:${arrivesOn === undefined ? '-' : arrivesOn.join(',')}:${sparedOn.join(',')}`;
}

/** The matchers judged against the flow, added to what a scope already tells. */
function tally(judges: readonly Judge[], flow: Flow, from: Tally): Tally {
  if (from.none) return from;
  let { partial, unknown, identified, policy, arrivesOn, sparedOn } = from;
  const arrivals = localSideUnknown(flow) && flow.arrivals !== undefined && flow.arrivals.size > 0 ? flow.arrivals : undefined;
  for (const { match: matchOf, identifies, policy: narrowsByPolicy, arrival } of judges) {
    if (arrival !== undefined) {
      if (arrivals === undefined) continue;
      if ('source' in arrival) {
        const spared = sparedBy(arrival, arrivals);
        if (spared.length > 0) sparedOn = [...new Set([...sparedOn, ...spared])].sort();
      } else {
        // A packet arrives on one interface: each clue narrows where (an interface not looked up, or a list whose
        // members are not all looked up, tells nothing, which only makes the pair harder to conclude).
        const on = 'on' in arrival ? (arrivals.has(arrival.on) ? [arrival.on] : null) : arrivalMembers(arrival, flow, arrivals);
        if (on !== null) arrivesOn = arrivesOn === undefined ? on : arrivesOn.filter((iface) => on.includes(iface));
      }
      if (arrivesOn !== undefined && arrivesOn.every((iface) => sparedOn.includes(iface))) return NONE_TALLY;
      continue;
    }
    const match = matchOf(flow);
    if (match === 'none') return NONE_TALLY;
    if (match === 'some') partial = true;
    else if (match === 'unknown') unknown = true;
    else if (identifies) identified = true;
    if (match === 'some' && narrowsByPolicy) policy = true;
  }
  return arrivesOn === undefined ? { none: false, partial, unknown, identified, policy, sparedOn } : { none: false, partial, unknown, identified, policy, arrivesOn, sparedOn };
}

/** The chain's verdict for the flow; undefined when it ends or returns without deciding. */
function* walkChain(
  filter: FilterRules,
  chain: string,
  flow: Flow,
  scope: Scope,
  step: () => boolean,
  jump: (target: string, scope: Scope) => Steps<ChainVerdict | undefined>,
): Steps<ChainVerdict | undefined> {
  for (const rule of filter.chain(chain)) {
    filter.spend();
    if (step()) yield;
    const { action } = rule;
    if (action === 'return') {
      if (judge(rule, flow).meets === 'covers') return undefined;
      continue;
    }
    if (action === 'jump') {
      // The target's rules are judged with this jump's matchers and those of the jumps before it, as the same
      // rules with them inlined would be: a block there hits the part of the flow that jumped, and an accept
      // there covers the flow when the matchers together do (found by review: `jump protocol=udp dst-port=13231`
      // to `accept src-address-list=wg-peers` did not cover the tunnel, while the accept inlined did).
      const inner: Scope = { accept: tally(rule.judges, flow, scope.accept), block: tally(rule.blockJudges ?? rule.judges, flow, scope.block) };
      if (inner.accept.none && inner.block.none) continue;
      const target = rule.record['jump-target'] ?? '';
      const verdict = target === '' ? undefined : yield* jump(target, inner);
      if (verdict === undefined) continue;
      return verdict.passes ? verdict : { ...verdict, via: rule.record };
    }
    if (action !== 'accept' && !rule.blocking) continue;
    const reach = reachOf(tally(rule.judges, flow, rule.blocking ? scope.block : scope.accept));
    if (!rule.blocking && reach.meets === 'covers') return { passes: true, acceptedBy: rule.record };
    if (rule.blocking && breaks(reach, flow)) return { passes: false, blockedBy: rule.record };
  }
  return undefined;
}

/**
 * How much of a flow a rule meets: none of it (a matcher is `none`), all of it for sure, or a part (a matcher is
 * `some`, or unknown); `policy` when a port or address matcher leaves part of it out.
 */
interface Reach {
  readonly meets: 'none' | 'covers' | 'part';
  readonly policy: boolean;
}
const NO_REACH: Reach = { meets: 'none', policy: false };

/**
 * An accept counts when no matcher is `none` or `some` and either none is unknown or one that identifies the flow
 * is `all`: `protocol=udp dst-port=13231 in-interface-list=WAN` is taken in good faith, while a rule whose only
 * `all` is one every new connection meets (`connection-state=new in-interface-list=LAN`, `protocol=udp
 * in-interface-list=LAN`) is not about this flow (found by review: both read as covering the tunnel). A block
 * hits unless a matcher is `none`.
 */
function judge(rule: CompiledRule, flow: Flow): Reach {
  return reachOf(tally(rule.judges, flow, EMPTY_TALLY));
}

function reachOf({ none, partial, unknown, identified, policy }: Tally): Reach {
  if (none) return NO_REACH;
  return { meets: !partial && (!unknown || identified) ? 'covers' : 'part', policy };
}

/**
 * Whether a block that meets the flow breaks it. The tunnel's own packets (input) are one port: any part dropped
 * breaks it. A forward flow is a subnet's traffic: a drop of a known part of it (SMB's ports, one host) is the
 * operator's policy, not a broken link, and a fix that accepted all of it before that drop undid the policy
 * (found by review).
 */
function breaks(reach: Reach, flow: Flow): boolean {
  return reach.meets !== 'none' && !(reach.policy && flow.lanSide === true);
}

/** Rules compiled between two places where building a rule set may give the event loop back. */
const RULES_PER_STEP = 64;

/** Characters of port lists compiled between two places where building a rule set may give the event loop back. */
const PORT_CHARS_PER_STEP = 64 * 1024;

/** The enabled rules with a chain, compiled, in order; a pause possible every 64 rules or 64 K characters of port lists. */
function* compileEnabled(rules: readonly RouterRecord[]): Steps<CompiledRule[]> {
  const compiled: CompiledRule[] = [];
  const pace = new WeighedPace(RULES_PER_STEP, PORT_CHARS_PER_STEP);
  for (const record of rules) {
    if (pace.due((record['dst-port']?.length ?? 0) + (record['src-port']?.length ?? 0) + (record['port']?.length ?? 0))) yield;
    if (record['chain'] !== undefined && isEnabled(record)) compiled.push(compile(record));
  }
  return compiled;
}

/** Parses a rule's matchers once; judging a flow is then comparisons only (an audit judges thousands of flows). */
function compile(record: RouterRecord): CompiledRule {
  const action = record['action'] ?? 'accept';
  const blocking = BLOCKING.has(action);
  const judges = compileJudges(record, blocking);
  // A jump's matchers stand for those of the rules in its target: a block there reads them as a block's own.
  if (action === 'jump') return { record, action, blocking, judges, blockJudges: compileJudges(record, true) };
  return { record, action, blocking, judges };
}

/** A rule's matchers, read as those of a block (`blocking`) or of any other rule. */
function compileJudges(record: RouterRecord, blocking: boolean): Judge[] {
  const judges: Judge[] = [];
  const push = (match: (flow: Flow) => Match, kind: MatcherKind = GENERAL): void => {
    judges.push({ match, ...kind });
  };
  // A negated matcher is `all` for every flow it does not name (`in-interface=!wg0` for the WAN's packets): that
  // says nothing of this flow, so it never identifies it (found by review).
  // `readNegated`: how the matcher reads with its `!`, where that is not the negation of its judgement.
  const add = (
    key: string,
    read: (value: string) => (flow: Flow) => Match,
    kind: MatcherKind = NAMES,
    readNegated?: (value: string) => (flow: Flow) => Match,
  ): void => {
    const raw = NAME_KEYS.has(key) ? record[key] : record[key]?.trim();
    if (raw === undefined || raw === '' || everyAddress.has(key)) return;
    if (!raw.startsWith('!')) {
      push(read(raw), kind);
      return;
    }
    if (readNegated !== undefined) {
      push(readNegated(raw.slice(1)), { ...kind, identifies: false });
      return;
    }
    const inner = read(raw.slice(1));
    push((flow) => negate(inner(flow)), { ...kind, identifies: false });
  };
  const always = (match: Match) => (): Match => match;
  // Every address (`0.0.0.0/0`): every packet meets it, so it says nothing of the flow and never names it (an accept
  // of `in-interface-list=TRUSTED src-address=0.0.0.0/0` covered the tunnel, and such a `return` returned all of
  // it: found by review); negated, it matches no packet at all (`!0.0.0.0/0` read as unknown, and an accept
  // narrowed by it as covering the tunnel).
  const everyAddress = new Set<string>();
  for (const key of ['src-address', 'dst-address']) {
    const raw = record[key]?.trim() ?? '';
    const negated = raw.startsWith('!');
    const range = parseIpv4Match(negated ? raw.slice(1) : raw);
    if (range === undefined || range.lo !== 0 || range.hi !== LAST_ADDRESS) continue;
    push(always(negated ? 'none' : 'all'), { ...NARROWS, identifies: false });
    everyAddress.add(key);
  }
  add('protocol', (value) => (flow) => protocolMatch(value, flow.protocol), GENERAL);
  add(
    'dst-port',
    (value) => {
      // Parsed once per rule: a list of 10,000 ports split and matched with a regex at every check took ~1 ms a
      // check, 6.5–8 s for 600 such rules and 10 interfaces (a hostile-router review).
      const ports = parsePortList(value);
      return (flow) => portMatch(ports, flow.dstPort);
    },
    NARROWS,
  );
  // A peer's source port is whatever its NAT picked.
  add('src-port', () => always('some'), NARROWS);
  for (const [key, sideOf] of [
    ['src-address', (flow: Flow) => flow.src],
    ['dst-address', (flow: Flow) => flow.dst],
  ] as const) {
    const readAddress = (negated: boolean) => (value: string) => {
      const range = parseIpv4Match(value);
      if (range !== undefined && NEVER_ADDRESSES.some((never) => contains(never, range))) return always(negated ? 'all' : 'none');
      return negated ? (flow: Flow) => negatedAddressMatch(range, sideOf(flow)) : (flow: Flow) => addressMatch(range, sideOf(flow));
    };
    add(key, readAddress(false), NARROWS, readAddress(true));
  }
  // `in-interface=X` and a `src-address` may together exclude every source X delivers, in one rule or across the
  // jumps to it (see localSideUnknown): each is noted as a clue, read by tally.
  const arrivesOn = arrivalNamed(record, 'in-interface');
  if (arrivesOn !== undefined) judges.push({ match: always('all'), ...GENERAL, arrival: { on: arrivesOn } });
  const arrivesOnList = arrivalNamed(record, 'in-interface-list');
  if (arrivesOnList !== undefined) judges.push({ match: always('all'), ...GENERAL, arrival: { onList: arrivesOnList, members: new WeakMap() } });
  const source = record['src-address']?.trim();
  if (source !== undefined && source !== '' && !everyAddress.has('src-address')) {
    const negated = source.startsWith('!');
    const range = parseIpv4Match(negated ? source.slice(1) : source);
    if (range !== undefined) judges.push({ match: always('all'), ...GENERAL, arrival: { source: range, negated, spared: new WeakMap() } });
  }
  // No packet of a flow the audit judges comes in or goes out on the loopback interface: it carries the router's own
  // (`drop out-interface=lo` in forward failed the check: found by review).
  add('in-interface', (value) => (value === LOOPBACK_INTERFACE ? always('none') : (flow) => interfaceMatch(value, flow.inInterface)));
  add('out-interface', (value) => (value === LOOPBACK_INTERFACE ? always('none') : (flow) => interfaceMatch(value, flow.outInterface)));
  // `port` matches either port: the flow's destination port in the list covers it; otherwise its source port,
  // whatever the peer's NAT picked, may still be.
  add(
    'port',
    (value) => {
      const ports = parsePortList(value);
      return (flow) => {
        const match = portMatch(ports, flow.dstPort);
        return match === 'none' ? 'some' : match;
      };
    },
    NARROWS,
  );
  for (const key of ['connection-nat-state', 'ipsec-policy']) add(key, () => always('unknown'), GENERAL);
  add('in-interface-list', (value) => (flow) => interfaceListMatch(value, flow.inInterface, flow, blocking), GENERAL);
  add('out-interface-list', (value) => (flow) => interfaceListMatch(value, flow.outInterface, flow, blocking), GENERAL);
  // A new WireGuard flow has no connection helper (ftp, sip, …).
  add('connection-type', () => always('none'), GENERAL);
  add('dst-address-type', (value) => (flow) => addressTypeMatch(value, flow.toRouter === true), GENERAL);
  add('src-address-type', (value) => () => addressTypeMatch(value, false), GENERAL);
  // Unjudged: an accept with one covers only part of the flow; a block with one may hit all of it (not policy).
  for (const key of OTHER_MATCHERS) add(key, () => always(blocking ? 'unknown' : 'some'), GENERAL);
  // A positive address list on a block is taken as a deny list the tunnel is not on; a list's `!` is part of
  // that reading, not a negation of the judgement.
  for (const key of ['src-address-list', 'dst-address-list']) {
    const raw = record[key]?.trim();
    if (raw !== undefined && raw !== '') push(always(blocking && !raw.startsWith('!') ? 'none' : 'unknown'));
  }
  const states = record['connection-state']?.trim();
  if (states !== undefined && states !== '') push(always(newConnectionMatch(states)));
  return judges;
}

/**
 * `dst-address-type` / `src-address-type` for a flow of unicast packets, to (`local`) or not to the router: the
 * tunnel's packets and the subnets' traffic are unicast; broadcast, multicast and the route types are not them.
 */
function addressTypeMatch(value: string, local: boolean): Match {
  if (value === 'unicast') return 'all';
  if (value === 'local') return local ? 'all' : 'none';
  return 'none';
}

function negate(match: Match): Match {
  return match === 'all' ? 'none' : match === 'none' ? 'all' : match;
}

function protocolMatch(value: string, protocol: string | undefined): Match {
  if (protocol === undefined) return 'some';
  return (PROTOCOL_NUMBERS[value] ?? value) === protocol ? 'all' : 'none';
}

/** Ports and ranges one rule's port list is read up to; a longer list reads as no list (its matcher unknown). */
export const MAX_PORT_ITEMS = 4096;

/** `13231`, `13231,51820`, `13000-14000`, and mixes of those. */
export function portListIncludes(value: string, port: number): boolean | undefined {
  const ports = parsePortList(value);
  return ports === undefined ? undefined : includesPort(ports, port);
}

/** A port list as ranges sorted by their start, overlapping ones merged; undefined when an item is no port or range. */
type PortRanges = readonly (readonly [number, number])[];

function parsePortList(value: string): PortRanges | undefined {
  const ranges: [number, number][] = [];
  // More than a router's rule holds (a list of ports and ranges, tens at most): read as unknown, and not split to
  // its end. 31 rules of 1 MiB of ports took 4.1 s to compile (a hostile-router hunt).
  const parts = value.split(',', MAX_PORT_ITEMS + 1);
  if (parts.length > MAX_PORT_ITEMS) return undefined;
  for (const part of parts) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (range === null) return undefined;
    const lo = Number(range[1]);
    const hi = range[2] === undefined ? lo : Number(range[2]);
    // A range whose end is below its start holds no port.
    if (lo <= hi) ranges.push([lo, hi]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push(range);
  }
  return merged;
}

/** Whether a range holds the port: a binary search over the sorted, merged ranges. */
function includesPort(ranges: PortRanges, port: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = ranges[mid] as readonly [number, number];
    if (port < start) hi = mid - 1;
    else if (port > end) lo = mid + 1;
    else return true;
  }
  return false;
}

function portMatch(ports: PortRanges | undefined, port: number | undefined): Match {
  if (port === undefined) return 'some';
  if (ports === undefined) return 'unknown';
  return includesPort(ports, port) ? 'all' : 'none';
}

/**
 * Addresses on the side the audit knows only as "not the subnet" (a forward flow's LAN side): a handful of hosts is
 * a known part of it (policy on hosts); a network may be all of it (the router's LAN), so it is unknown.
 */
const FEW_HOSTS = 16;

function addressMatch(range: Ipv4Range | undefined, side: Side<Ipv4Range> | undefined): Match {
  if (side === undefined || range === undefined) return 'unknown';
  if ('not' in side) return contains(side.not, range) ? 'none' : range.hi - range.lo < FEW_HOSTS ? 'some' : 'unknown';
  if (contains(range, side.is)) return 'all';
  return overlaps(range, side.is) ? 'some' : 'none';
}

/**
 * A negated address (`!range`): the negation of addressMatch, except on the side known only as "not the subnet",
 * where a handful of hosts left out is no handful met: every address of that side but those, which may be all of it
 * or not, as a network left out is (unknown). `drop in-interface-list=LAN src-address=!192.168.88.10` passed as a
 * policy drop of a few hosts, and `accept protocol=udp dst-port=13231 dst-address=!192.168.88.10` did not cover
 * the tunnel, while the same rules leaving out all of 192.168.88.0/24, which meet less, blocked and covered (a
 * hostile review).
 */
function negatedAddressMatch(range: Ipv4Range | undefined, side: Side<Ipv4Range> | undefined): Match {
  if (side !== undefined && range !== undefined && 'not' in side && !contains(side.not, range)) return 'unknown';
  return negate(addressMatch(range, side));
}

/**
 * Matchers whose value is a name (after its `!`), read as it is: RouterOS compares names byte for byte, and ` wg0` or
 * `wg0 ` is another interface than `wg0`. Trimmed, an accept of `in-interface=" wg0"` covered the tunnel `wg0`, and a
 * fix before a drop of `in-interface-list="!TRUSTED "` took the list `TRUSTED` (a hostile-router review).
 */
const NAME_KEYS: ReadonlySet<string> = new Set(['in-interface', 'out-interface', 'in-interface-list', 'out-interface-list']);

/**
 * The interface (or list) a rule's `in-interface` (or `in-interface-list`) names, when it names one without `!`: the
 * half of an anti-spoofing pair that says where the packets arrive (localSideUnknown); undefined otherwise.
 */
export function arrivalNamed(record: RouterRecord, key: 'in-interface' | 'in-interface-list'): string | undefined {
  const value = record[key];
  return value === undefined || value === '' || value.startsWith('!') ? undefined : value;
}

/**
 * Anti-spoofing: `in-interface=X` (or `in-interface-list=L`, for each of its members but the tunnel, when they are
 * known and all looked up: arrivalMembers) and `src-address` read together, for a forward flow whose local side
 * (source and in-interface) is unknown. A packet of the flow that arrives on X comes from a network X reaches (its connected
 * networks, or one routed through it: `flow.arrivals`). When the address spares every such network (`!R` holding
 * all of them, or `R` meeting none), the rule meets only spoofed sources, none of the flow: the anti-spoofing `drop
 * in-interface=bridge src-address=!192.168.88.0/24` read as blocking every LAN's traffic to the tunnel (a false
 * finding). The pair is read in one rule or across the jumps to it, as inlined. Otherwise, or when X's networks are
 * not known, each matcher reads as alone. Every packet of the flow arrives on some interface, but the audit does not
 * know which are the LAN's, so without `in-interface` (or with a list whose members are not known) a source address
 * is read as before.
 */
function localSideUnknown(flow: Flow): boolean {
  const { inInterface, src } = flow;
  return flow.lanSide === true && inInterface !== undefined && 'not' in inInterface && src !== undefined && 'not' in src;
}

/** The interfaces of `arrivals` every network of which the address spares; worked out once per address and audit. */
function sparedBy(clue: Extract<ArrivalClue, { source: Ipv4Range }>, arrivals: ReadonlyMap<string, readonly Ipv4Range[]>): readonly string[] {
  const known = clue.spared.get(arrivals);
  if (known !== undefined) return known;
  const { source, negated } = clue;
  const spared: string[] = [];
  for (const [iface, networks] of arrivals) {
    if (networks.length === 0) continue;
    if (negated ? networks.every((network) => contains(source, network)) : networks.every((network) => !overlaps(source, network))) spared.push(iface);
  }
  spared.sort();
  clue.spared.set(arrivals, spared);
  return spared;
}

/**
 * The members of a list a packet of the flow may arrive on (not the tunnel it is known not to arrive on), sorted;
 * null when the members are not known or one of them is not in `arrivals`. Worked out once per list, tunnel and audit.
 */
function arrivalMembers(clue: Extract<ArrivalClue, { onList: string }>, flow: Flow, arrivals: Arrivals): readonly string[] | null {
  const { lists, inInterface } = flow;
  const members = lists?.get(clue.onList);
  if (lists === undefined || members === undefined || inInterface === undefined || !('not' in inInterface)) return null;
  let byArrivals = clue.members.get(lists);
  if (byArrivals === undefined) clue.members.set(lists, (byArrivals = new WeakMap()));
  let byTunnel = byArrivals.get(arrivals);
  if (byTunnel === undefined) byArrivals.set(arrivals, (byTunnel = new Map()));
  const known = byTunnel.get(inInterface.not);
  if (known !== undefined) return known;
  // More members than interfaces looked up cannot all be looked up: not walked (a list may hold hundreds).
  let on: string[] | null = null;
  if (members.size <= arrivals.size + 1) {
    on = [...members].filter((iface) => iface !== inInterface.not);
    if (!on.every((iface) => arrivals.has(iface))) on = null;
    else on.sort();
  }
  byTunnel.set(inInterface.not, on);
  return on;
}

function interfaceMatch(value: string, side: Side<string> | undefined): Match {
  if (side === undefined) return 'unknown';
  if ('not' in side) return value === side.not ? 'none' : 'unknown';
  return value === side.is ? 'all' : 'none';
}

/**
 * An interface list. When its members are known (`flow.lists`), the tunnel's own side is met exactly (is the tunnel
 * a member?), and the other side (any interface but the tunnel) is met by none of it when the list holds nothing
 * but the tunnel; otherwise, or when its members are not known, two readings stand in for them:
 * - the tunnel's own side: a positive list on a block is taken as one the tunnel is not on (as positive address
 *   lists are: a deny list of other ports), anything else unknown;
 * - the other side, by defconf's names (`WAN`, `LAN`): the input flow comes from the internet, in through `WAN`
 *   and not `LAN`; a forward flow's other side is the LAN, `LAN` and not `WAN`. So defconf's `drop
 *   connection-state=new connection-nat-state=!dstnat in-interface-list=WAN` is not about a routed subnet, and
 *   `drop in-interface-list=!LAN` in input is about the tunnel. Other names are unknown.
 */
function interfaceListMatch(list: string, side: Side<string> | undefined, flow: Flow, blocking: boolean): Match {
  if (side === undefined) return 'unknown';
  const members = flow.lists?.get(list);
  if (members !== undefined) {
    if ('is' in side) return members.has(side.is) ? 'all' : 'none';
    if (members.size === 0 || (members.size === 1 && members.has(side.not))) return 'none';
  }
  if ('is' in side) return blocking ? 'none' : 'unknown';
  const name = list.toUpperCase();
  if (name !== 'WAN' && name !== 'LAN') return 'unknown';
  const otherSide = flow.lanSide === true ? 'LAN' : flow.toRouter === true ? 'WAN' : undefined;
  if (otherSide === undefined) return 'unknown';
  return name === otherSide ? 'all' : 'none';
}

/**
 * The audit asks about new connections: a tunnel that cannot start is broken whatever happens after. RouterOS's
 * `!` negates the whole list: `!established,related` is every state but those two, new among them (it was read
 * as "established or related", and a drop of new connections from the WAN so written passed; found by review).
 */
function newConnectionMatch(value: string): Match {
  const negated = value.startsWith('!');
  const states = (negated ? value.slice(1) : value).split(',').map((state) => state.trim());
  return states.includes('new') !== negated ? 'all' : 'none';
}
