/**
 * The peer verdict, a pure function: the peer's liveness state (analysis/liveness.ts: up, idle, down, never,
 * unknown, disabled) and whether it is a problem. Only a peer expected up (keepalive, traffic it is trying to
 * send, or `expect: always`) that is `down` or `never` shook hands is unhealthy; an idle road warrior is not.
 * Disabled and excluded peers are reported but not judged.
 */
import type { ExpectMode, HealthConfig } from '../config/types.js';
import { judgeLiveness, sessionSeenAt, type ExpectedBecause, type PeerState, type ProbeOutcome } from './liveness.js';

/**
 * The one peer verdict, used by the wireguard collector (routeros_wireguard_peer_healthy and _state, at
 * collection time) and by /health (with its own clock): both call judgePeer, so they cannot disagree.
 * `interface_disabled`: peers of a disabled interface cannot shake hands, and whoever disabled the interface does
 * not want them judged. `interface_not_running`: the interface's own alert says it; its peers cannot be judged.
 * `stale` is the reason of a `down` peer (the name the change log and alerts have always used).
 */
export type PeerReason =
  | 'ok'
  | 'idle'
  | 'stale'
  | 'never'
  /** `never`, expected, but the router started less than the bound ago: not due yet (healthy). */
  | 'never_since_boot'
  | 'never_not_expected'
  | 'disabled'
  | 'excluded'
  | 'interface_disabled'
  | 'interface_not_running'
  | 'handshake_unreadable'
  /** A field the verdict rests on besides the handshake (disabled, persistent-keepalive) did not decode. */
  | 'unreadable'
  /** `blocked`: handshake fresh, the data-plane probe through the tunnel got no reply. */
  | 'probe_failed'
  /** `up`, but the probe lost some of its pings (health.probe_count above 1): noted, not a problem. */
  | 'probe_partial';

export interface PeerVerdict {
  judged: boolean;
  healthy: boolean;
  reason: PeerReason;
  state: PeerState;
  expected: boolean;
  because: ExpectedBecause;
  /** Seconds after the latest handshake by which the next is due; undefined when none is expected. */
  boundSeconds: number | undefined;
}

export interface JudgedPeerInput {
  /** The peer's name (7.15+), else its comment, else ''. */
  name: string;
  comment: string | undefined;
  /** The peer's interface name: `health.expect` may name it. */
  interface?: string;
  disabled: boolean;
  /** Seconds since the latest handshake; undefined when never. */
  handshakeAgeSeconds: number | undefined;
  /** The router sent a last-handshake this exporter could not read: neither fresh, stale nor never. */
  handshakeUnreadable?: boolean;
  /**
   * The router sent a `disabled` or `persistent-keepalive` (the peer's, or its interface's `disabled`) this
   * exporter could not read: taking it as "enabled" or "no keepalive" could call a down peer idle.
   */
  factsUnreadable?: boolean;
  /** The peer's interface is disabled. */
  interfaceDisabled?: boolean;
  /** The peer's interface is enabled but not running. */
  interfaceNotRunning?: boolean;
  /** persistent-keepalive in seconds; 0 or absent when off. */
  keepaliveSeconds?: number;
  /** endpoint-address is configured: this side can initiate. */
  hasEndpoint?: boolean;
  /** rx / tx grew since the previous collection. */
  rxMoved?: boolean;
  txMoved?: boolean;
  /**
   * rx grew in this window with no session possible (liveness.ts rxUnansweredAt, decided at collection). Absent: rx
   * growth counts as an answer.
   */
  rxUnanswered?: boolean;
  /** The window before showed this side sending unanswered: with this, this side's sending makes the peer expected. */
  unansweredBefore?: boolean;
  /**
   * Whether the window before showed this side sending unanswered is not known (`check`'s one window:
   * WireguardPeer.unansweredUnconfirmed): judged as rx and tx growth that cannot be told are, both ways.
   */
  unansweredBeforeUnknown?: boolean;
  /** Whether rx / tx grew cannot be told (a counter that did not decode, now or the collection before). */
  rxMovedUnknown?: boolean;
  txMovedUnknown?: boolean;
  /** This collection's data-plane probe, when probes are on. */
  probe?: ProbeOutcome;
  /** Seconds since that probe ran (liveness.ts): 0 at collection. */
  probeAgeSeconds?: number;
  /** Seconds the router has been up, when read (liveness.ts): a peer that never shook hands is due from the boot. */
  upSeconds?: number;
}

/**
 * The peer label of the contract: its `name` (RouterOS 7.15+), else its `comment`, else ''. An empty name counts
 * as none: RouterOS sends `"name":""` for a peer whose name was cleared, and its comment is then what people use.
 */
export function peerLabel(name: string | undefined, comment: string | undefined): string {
  return name !== undefined && name !== '' ? name : comment ?? '';
}

/**
 * The peer's names in the order settings look them up: its name when it has one, then its comment unless that is
 * the name again (an unnamed peer's name is its comment, peerLabel: looked up once, not twice); '' for none.
 * Two values, not an array: every peer is judged twice a run, and an array and a function per lookup were a
 * good part of a verdict's cost.
 */
function firstName(peer: Pick<JudgedPeerInput, 'name' | 'comment'>): string {
  return peer.name !== undefined && peer.name !== '' ? peer.name : '';
}

function secondName(peer: Pick<JudgedPeerInput, 'name' | 'comment'>): string {
  const { name, comment } = peer;
  return comment !== undefined && comment !== '' && comment !== name ? comment : '';
}

/** Whether the setting names the peer (an empty name names nothing). */
function excludes(name: string, health: HealthConfig): boolean {
  if (name === '') return false;
  return health.excludePeers.includes(name) || (health.excludePeerPattern?.test(name) ?? false);
}

export function isExcluded(peer: Pick<JudgedPeerInput, 'name' | 'comment'>, health: HealthConfig): boolean {
  return excludes(firstName(peer), health) || excludes(secondName(peer), health);
}

/** Whether the table has an own entry for `name` (a peer named `constructor` must not find Object's; '' has none). */
function hasEntry(table: Readonly<Record<string, unknown>>, name: string | undefined): name is string {
  return name !== undefined && name !== '' && Object.hasOwn(table, name);
}

/** `health.expect` for the peer: its own name or comment first, then its interface, else `auto`. */
export function expectOf(peer: Pick<JudgedPeerInput, 'name' | 'comment' | 'interface'>, health: HealthConfig): ExpectMode {
  const table = health.expect;
  if (table === undefined) return 'auto';
  const first = firstName(peer);
  if (hasEntry(table, first)) return table[first] ?? 'auto';
  const second = secondName(peer);
  if (hasEntry(table, second)) return table[second] ?? 'auto';
  return (peer.interface !== undefined && Object.hasOwn(table, peer.interface) ? table[peer.interface] : undefined) ?? 'auto';
}

/**
 * `health.probe` for the peer, shaped like `health.expect`: its own name or comment first, then its interface;
 * undefined when none names it (probe_tunnels decides).
 */
export function probeSettingOf(peer: Pick<JudgedPeerInput, 'name' | 'comment' | 'interface'>, health: HealthConfig): boolean | undefined {
  const table = health.probe;
  if (table === undefined) return undefined;
  const first = firstName(peer);
  if (hasEntry(table, first)) return table[first];
  const second = secondName(peer);
  if (hasEntry(table, second)) return table[second];
  return peer.interface !== undefined && Object.hasOwn(table, peer.interface) ? table[peer.interface] : undefined;
}

function reasonOf(state: PeerState, expected: boolean, sinceBoot: boolean, peer: JudgedPeerInput): PeerReason {
  switch (state) {
    case 'disabled':
      return peer.disabled ? 'disabled' : 'interface_disabled';
    case 'unknown':
      if (peer.interfaceNotRunning === true) return 'interface_not_running';
      return peer.handshakeUnreadable === true ? 'handshake_unreadable' : 'unreadable';
    case 'never':
      return !expected ? 'never_not_expected' : sinceBoot ? 'never_since_boot' : 'never';
    case 'down':
      return 'stale';
    case 'idle':
      return 'idle';
    case 'up':
      return peer.probe === 'partial' ? 'probe_partial' : 'ok';
    case 'blocked':
      return 'probe_failed';
  }
}

/**
 * The router's start as what the peer's next handshake is due from, while the verdict goes by it (never_since_boot);
 * else undefined: a boot months ago is no due time for a peer added since. One rule for /metrics and /health.
 */
function dueFromBoot(verdict: Pick<PeerVerdict, 'reason'>, bootedAt: number | undefined): number | undefined {
  return verdict.reason === 'never_since_boot' ? bootedAt : undefined;
}

/**
 * Unix seconds by which the peer's next handshake is due, the one reckoning behind `expected_by` in /metrics and
 * /health alike: the last session seen (the handshake, an answered probe after it, or the router's start while the
 * verdict went by that) plus the verdict's bound. Undefined when nothing is expected, or nothing was seen to count
 * from.
 */
export function handshakeExpectedBy(
  verdict: Pick<PeerVerdict, 'reason' | 'boundSeconds'>,
  latestHandshake: number | undefined,
  probe: ProbeOutcome | undefined,
  probedAtMs: number | undefined,
  bootedAt: number | undefined,
): number | undefined {
  if (verdict.boundSeconds === undefined) return undefined;
  const seenAt = sessionSeenAt(latestHandshake, probe, probedAtMs, dueFromBoot(verdict, bootedAt));
  return seenAt === undefined ? undefined : seenAt + verdict.boundSeconds;
}

/** Not judged because something it rests on did not decode: "we cannot see", which degrades, never ok. */
export function isUnreadable(reason: PeerReason): boolean {
  return reason === 'handshake_unreadable' || reason === 'unreadable';
}

/**
 * The peer verdict. A peer whose rx or tx growth cannot be told, or whether the window before showed this side
 * sending unanswered (`check`'s one window), is judged only when every value it could have had gives one verdict
 * (state and health), and then as if the unknown one was false; otherwise it is not judged (`unreadable`): taken as
 * "did not grow", a dead tunnel this side kept sending to read idle, and an `always` peer's data read as no data,
 * stale (both found by a hostile tester).
 */
export function judgePeer(peer: JudgedPeerInput, health: HealthConfig): PeerVerdict {
  if (peer.rxMovedUnknown !== true && peer.txMovedUnknown !== true && peer.unansweredBeforeUnknown !== true) return judgeKnownTraffic(peer, health);
  const rxValues = valuesOf(peer.rxMoved, peer.rxMovedUnknown);
  const txValues = valuesOf(peer.txMoved, peer.txMovedUnknown);
  const beforeValues = valuesOf(peer.unansweredBefore, peer.unansweredBeforeUnknown);
  let chosen: PeerVerdict | undefined;
  for (const rxMoved of rxValues) {
    for (const txMoved of txValues) {
      for (const unansweredBefore of beforeValues) {
        const verdict = judgeKnownTraffic({ ...peer, rxMoved, txMoved, unansweredBefore, rxMovedUnknown: false, txMovedUnknown: false, unansweredBeforeUnknown: false }, health);
        if (chosen === undefined) chosen = verdict;
        else if (verdict.state !== chosen.state || verdict.healthy !== chosen.healthy || verdict.judged !== chosen.judged) {
          return judgeKnownTraffic({ ...peer, factsUnreadable: true, rxMovedUnknown: false, txMovedUnknown: false, unansweredBeforeUnknown: false }, health);
        }
      }
    }
  }
  return chosen as PeerVerdict;
}

/** The values a fact may take: an unknown one false first (the verdict kept when all agree), a known one its own. */
function valuesOf(value: boolean | undefined, unknown: boolean | undefined): readonly boolean[] {
  return unknown === true ? EITHER : value === true ? TRUE : FALSE;
}

const EITHER: readonly boolean[] = [false, true];
const TRUE: readonly boolean[] = [true];
const FALSE: readonly boolean[] = [false];

function judgeKnownTraffic(peer: JudgedPeerInput, health: HealthConfig): PeerVerdict {
  // Object literals of one shape, no spreads: this runs twice per peer per collection (the collector and the
  // verdict-change log), 16,000 times a cycle at 2,000 routers × 4 peers, and spreads cost an object each.
  const { state, expected, because, boundSeconds, sinceBoot } = judgeLiveness({
    disabled: peer.disabled,
    interfaceDisabled: peer.interfaceDisabled === true,
    interfaceNotRunning: peer.interfaceNotRunning === true,
    handshakeUnreadable: peer.handshakeUnreadable === true || peer.factsUnreadable === true,
    handshakeAgeSeconds: peer.handshakeAgeSeconds,
    keepaliveSeconds: peer.keepaliveSeconds ?? 0,
    hasEndpoint: peer.hasEndpoint === true,
    rxMoved: peer.rxMoved === true,
    txMoved: peer.txMoved === true,
    rxUnanswered: peer.rxUnanswered === true,
    unansweredBefore: peer.unansweredBefore === true,
    expect: expectOf(peer, health),
    probe: peer.probe,
    probeAgeSeconds: peer.probeAgeSeconds ?? 0,
    staleAfterSeconds: health.handshakeStaleAfterSeconds,
    upSeconds: peer.upSeconds,
  });
  let judged = false;
  let healthy = true;
  let reason = reasonOf(state, expected, sinceBoot === true, peer);
  if (state !== 'disabled') {
    if (isExcluded(peer, health)) reason = 'excluded';
    else if (state !== 'unknown') {
      judged = true;
      healthy = !(state === 'down' || ((state === 'never' || state === 'blocked') && expected && sinceBoot !== true));
    }
  }
  return { judged, healthy, reason, state, expected, because, boundSeconds };
}
