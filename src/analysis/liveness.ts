/**
 * Tunnel liveness from what WireGuard guarantees, a pure function (docs/health.md, "Peer states").
 *
 * A handshake only happens when something is sent, so an old handshake alone says nothing: a laptop with
 * nothing to send is idle, not down. What turns an old handshake into an outage is a reason to expect a
 * session: the peer sends keepalives (`persistent-keepalive` > 0), this side is trying to send (tx moves while
 * it has an endpoint to send to), or the operator said so (`expect: always`).
 *
 * The protocol's bound (wireguard.com/papers/wireguard.pdf §6): a session is re-keyed after REKEY_AFTER_TIME
 * (120 s) of use and refused after REJECT_AFTER_TIME (180 s); a keepalive goes out every K s when idle and needs
 * a session, so a live peer with keepalive K shakes hands again at the latest REJECT_AFTER_TIME + K after the
 * previous handshake, plus one REKEY_TIMEOUT (5 s) for the retry. Older than that, nothing gets through.
 */

import type { ExpectMode } from '../config/types.js';

export const REKEY_AFTER_TIME_SECONDS = 120;
export const REJECT_AFTER_TIME_SECONDS = 180;
export const REKEY_TIMEOUT_SECONDS = 5;

/**
 * The shortest counter window movement is told from: two of WireGuard's handshake retries (REKEY_TIMEOUT each, plus
 * up to a third of a second of jitter) and a round trip. A handshake in flight on a healthy tunnel (its response
 * lost once) shows as a dead link's look for up to a retry; a window this long holds the retry that completes it, so
 * the look cannot fill two windows in a row (p² for a response loss rate p, against about p in shorter ones). The
 * daemon carries movement across shorter windows (collectors/wireguard-counters.ts), `check` does not confirm from
 * them (cli/check.ts).
 */
export const MIN_COUNTER_WINDOW_SECONDS = 11;


/**
 * `up`: a session within the bound (or traffic flowing); `idle`: nothing expected and nothing sent (fine);
 * `down`: a session was expected but none within the bound; `never`: never shook hands; `unknown`: cannot judge
 * (unreadable handshake, interface not running); `disabled`: the peer or its interface is disabled; `blocked`:
 * handshake fresh but every ping of the data-plane probe through the tunnel was lost (health.probe).
 */
export type PeerState = 'up' | 'idle' | 'down' | 'never' | 'unknown' | 'disabled' | 'blocked';
export const PEER_STATES: readonly PeerState[] = ['up', 'idle', 'down', 'never', 'unknown', 'disabled', 'blocked'];

/**
 * A data-plane probe's result (collectors/wireguard-probe.ts): `ok` (every ping answered), `partial` (some) and
 * `failed` (none) are folded into the state; `error` (the request failed or its reply was unreadable) and the
 * reasons a peer was not probed — `off` (the settings do not select it), `no_tunnel_address`,
 * `no_source_address`, `over_cap` — are reported, not judged.
 */
export type ProbeOutcome = 'ok' | 'partial' | 'failed' | 'error' | 'off' | 'no_tunnel_address' | 'no_source_address' | 'over_cap';
export const PROBE_OUTCOMES: readonly ProbeOutcome[] = ['ok', 'partial', 'failed', 'error', 'off', 'no_tunnel_address', 'no_source_address', 'over_cap'];
/** The reasons a peer expected to be probed was not, counted per router (routeros_wireguard_probe_skipped_peers). */
export const PROBE_SKIP_REASONS = ['no_tunnel_address', 'no_source_address', 'over_cap'] as const satisfies readonly ProbeOutcome[];

/** Why a session is (or is not) expected: shown in /health next to the state. */
export type ExpectedBecause = 'configured' | 'keepalive' | 'sending' | 'not_expected';

export interface LivenessInput {
  disabled: boolean;
  interfaceDisabled: boolean;
  /** The interface is enabled but not running: its own alert covers it; its peers cannot be judged. */
  interfaceNotRunning: boolean;
  /** The handshake, or another fact the state rests on, did not decode: the state is `unknown`. */
  handshakeUnreadable: boolean;
  /** Seconds since the latest handshake; undefined when never. */
  handshakeAgeSeconds: number | undefined;
  /** persistent-keepalive in seconds; 0 when off or absent. */
  keepaliveSeconds: number;
  /** A configured endpoint-address: without one this side cannot initiate (responder only). */
  hasEndpoint: boolean;
  /** rx / tx grew since the previous collection; false when there was none to compare with. */
  rxMoved: boolean;
  txMoved: boolean;
  /**
   * rx grew in this counter window while no session could exist (rxUnansweredAt, decided at collection): the far
   * end's handshake initiations, or a handshake still in flight, not an answer to this side's sending. Absent: rx
   * growth counts as an answer, as before this was known.
   */
  rxUnanswered?: boolean;
  /**
   * The counter window before this one showed this side sending unanswered (tx grew, and rx did not or grew
   * unanswered). This side's sending makes the peer expected only with this too: two windows in a row
   * (sendingUnanswered).
   */
  unansweredBefore?: boolean;
  expect: ExpectMode;
  /** This collection's data-plane probe, when one ran. */
  probe?: ProbeOutcome;
  /**
   * Seconds since the probe ran: 0 (or absent) for this collection's own, more for a result a run reused or when
   * /health judges later. An answered probe is a session at its time, as good as a handshake then (it may have
   * made one, after the handshake was read): the peer is judged by the younger of the two.
   */
  probeAgeSeconds?: number;
  /** The bound for `expect: always` peers without keepalive (health.handshake_stale_after). */
  staleAfterSeconds: number;
  /**
   * Seconds the router has been up, when read (the wireguard run reads it only when a peer has no handshake). A
   * reboot forgets every handshake: a peer is not due before its bound has passed since the boot.
   */
  upSeconds?: number;
}

export interface Liveness {
  state: PeerState;
  /** A session is expected: `down` and `never` are problems only then. */
  expected: boolean;
  because: ExpectedBecause;
  /** Seconds after the latest handshake by which the next one is due; undefined when none is expected. */
  boundSeconds: number | undefined;
  /** `never`, expected, and the router started less than the bound ago: the first handshake is not due yet. */
  sinceBoot?: true;
}

/**
 * A handshake's age in whole seconds at `nowMs`, never negative: the one reckoning of the collector's verdict and of
 * /health's, which judge the same written handshake time (the collector writes the time it read, held to last run's
 * within a second), so that at one instant the two cannot fall on either side of a bound.
 */
export function handshakeAgeAt(nowMs: number, latestHandshake: number): number {
  return Math.max(0, Math.round(nowMs / 1000 - latestHandshake));
}

/**
 * An answered probe's age in seconds at `nowMs`, never negative: the one reckoning of the collector's verdict and
 * of /health's, as handshakeAgeAt is for handshakes.
 */
export function probeAgeAt(nowMs: number, probedAtMs: number): number {
  return Math.max(0, (nowMs - probedAtMs) / 1000);
}

/**
 * When the peer last had a session to our knowledge (Unix seconds): its latest handshake, or the time an answered
 * probe ran if later. What a bound is counted from: expected-by in /metrics and /health, and when the verdict log
 * looks again.
 */
export function sessionSeenAt(latestHandshake: number | undefined, probe: ProbeOutcome | undefined, probedAtMs: number | undefined, bootedAt?: number): number | undefined {
  // A peer without a handshake since the router started is due from the boot (Unix seconds), when it was read.
  const handshake = latestHandshake ?? bootedAt;
  if ((probe !== 'ok' && probe !== 'partial') || probedAtMs === undefined) return handshake;
  const probed = Math.floor(probedAtMs / 1000);
  return handshake === undefined ? probed : Math.max(handshake, probed);
}

/**
 * When the router started (Unix seconds), from an uptime read at `readAtMs`; undefined when the uptime was not read.
 * Whole seconds, so the collector and /health reckon the same instant.
 */
export function bootedAtOf(readAtMs: number, upSeconds: number | undefined): number | undefined {
  return upSeconds === undefined ? undefined : Math.round(readAtMs / 1000 - upSeconds);
}

/** The bound for a keepalive peer: REJECT_AFTER_TIME + K + REKEY_TIMEOUT (210 s for K = 25 s). */
export function keepaliveBoundSeconds(keepaliveSeconds: number): number {
  return REJECT_AFTER_TIME_SECONDS + keepaliveSeconds + REKEY_TIMEOUT_SECONDS;
}

/** The bound for a peer with traffic but no keepalive: a session in use is refused after 180 s. */
export const SENDING_BOUND_SECONDS = REJECT_AFTER_TIME_SECONDS + REKEY_TIMEOUT_SECONDS;

/**
 * Whether rx that grew in a counter window was no answer to this side's sending, decided once at collection from the
 * handshake's age as the router gave it (`handshakeAgeSeconds`, undefined: none) and the window's length
 * (`windowSeconds`, from the previous counter read to this one: CounterMemory.windowSeconds). A session lives
 * SENDING_BOUND_SECONDS after its handshake (refused at REJECT_AFTER_TIME, one REKEY_TIMEOUT for the retry), so rx
 * that grew in the window can have been an answer only if the handshake is no older than that before the window
 * began: h <= SENDING_BOUND_SECONDS + window. Put otherwise: the handshake no earlier than the previous read − 185 s,
 * which does not depend on when it is judged, so /health and the verdict log read the bit and reckon nothing.
 * Without a handshake, or with an older one, what came in was the far end's handshake initiations: a link both sides
 * keep trying, none completing, read idle and healthy (found by a hostile tester). Not h <= SENDING_BOUND_SECONDS
 * alone: that refused answers which came early in the window while the session still lived, with normal 30 s reads
 * whenever traffic came in a session's last seconds (not only after a gap), and a healthy idle tunnel read down
 * (found by review). The window is the longer of the monotonic and the wall-clock difference: the handshake's age is
 * the router's, a wall clock stepped back between two reads shrank a wall-clock window to 0, and a suspended host
 * stopped the monotonic one while the handshake aged on; either way the rule refused answers (found by review).
 * Undefined window (no previous read): false.
 */
export function rxUnansweredAt(rxMoved: boolean, handshakeAgeSeconds: number | undefined, windowSeconds: number | undefined): boolean {
  if (!rxMoved || windowSeconds === undefined) return false;
  return handshakeAgeSeconds === undefined || handshakeAgeSeconds > SENDING_BOUND_SECONDS + Math.max(0, windowSeconds);
}

/**
 * Whether nothing answered this side's sending, in this counter window and in the one before it: in this one rx did
 * not grow, or grew with no session possible (rxUnanswered), and the window before showed this side sending
 * unanswered too (unansweredBefore: tx grew there, and rx did not or grew with no session possible). One such window
 * is never enough, whatever rx did, because a healthy idle tunnel looks so for a moment each time it is woken:
 * - this side wakes it: its initiation makes tx grow (148 B) and the response takes a round trip, 5 s more when it is
 *   lost (WireGuard retries after REKEY_TIMEOUT): tx grew, rx did not, the handshake old. A read landing there read
 *   `down` for one run with "rx did not grow: expected at once", about p/3 per wake at 15 s windows for a response
 *   loss rate p, and `check`'s 6 s window CRITICAL with a chance of about p (found by review);
 * - the far end wakes it: on Linux WireGuard (RouterOS's) a responder records its handshake only when the first data
 *   under the new keys arrives, so for a round trip (5 s per lost response) rx grew by the initiation, tx by the
 *   response, the handshake still old or missing (found by review).
 * The woken tunnel's handshake shows in the next window; a dead link looks the same again, so it stays down once
 * paged, with no recovery between (this side trying, then both, or the reverse). What it costs: a link this side
 * starts sending to after an idle spell (its handshake past 185 s) is paged one collection interval later than at
 * once (read every 15 s, at the second read after its sending began, not the first); one that dies just after a
 * handshake, this side sending all along, as before (every window before the bound showed its sending unanswered:
 * first down at 195 s, read every 15 s with the handshake at 0), and one both sides keep trying costs the 185 s +
 * window allowance one window more (225 s; docs/health.md). The in-flight moment must be shorter than a window:
 * windows under MIN_COUNTER_WINDOW_SECONDS can show a healthy tunnel so twice in a row, so the daemon tells movement
 * from none (collectors/wireguard-counters.ts), and `check` does not confirm from them (cli/check.ts).
 */
function sendingUnanswered(input: LivenessInput): boolean {
  return (!input.rxMoved || input.rxUnanswered === true) && input.unansweredBefore === true;
}

function expectation(input: LivenessInput): { because: ExpectedBecause; boundSeconds: number | undefined } {
  if (input.expect === 'on_demand') return { because: 'not_expected', boundSeconds: undefined };
  if (input.keepaliveSeconds > 0) return { because: input.expect === 'always' ? 'configured' : 'keepalive', boundSeconds: keepaliveBoundSeconds(input.keepaliveSeconds) };
  if (input.expect === 'always') return { because: 'configured', boundSeconds: input.staleAfterSeconds };
  // auto without keepalive: only when this side is sending to an endpoint it can reach on its own and nothing
  // answered, in this window and the one before (sendingUnanswered). A responder-only peer (no endpoint) cannot
  // initiate, and its tx may tick for a laptop that sleeps.
  if (input.hasEndpoint && input.txMoved && sendingUnanswered(input)) return { because: 'sending', boundSeconds: SENDING_BOUND_SECONDS };
  return { because: 'not_expected', boundSeconds: undefined };
}

export function judgeLiveness(input: LivenessInput): Liveness {
  const none = { expected: false, because: 'not_expected' as const, boundSeconds: undefined };
  if (input.disabled || input.interfaceDisabled) return { state: 'disabled', ...none };
  const { because, boundSeconds } = expectation(input);
  const expected = boundSeconds !== undefined;
  if (input.interfaceNotRunning || input.handshakeUnreadable) return { state: 'unknown', expected, because, boundSeconds };
  // A probe answered through the tunnel means a working path, whatever the handshake's age (the probe may just
  // have woken the peer; the handshake was read before it). Some pings lost is still a path: `partial` is up,
  // and noted in /health.
  // An answered probe is a session at its time: judged from then by the same bounds as a handshake, so a peer that
  // answered once and died since goes stale on time (it stayed up in /health for good), while one a probe keeps
  // answering stays up through a collection interval longer than 185 s (a flat expiry made it flap every cycle).
  if (input.probe === 'ok' || input.probe === 'partial') {
    const seen = Math.min(input.handshakeAgeSeconds ?? Number.POSITIVE_INFINITY, input.probeAgeSeconds ?? 0);
    if (boundSeconds !== undefined) return { state: seen > boundSeconds ? 'down' : 'up', expected, because, boundSeconds };
    return { state: seen > SENDING_BOUND_SECONDS ? 'idle' : 'up', expected, because, boundSeconds };
  }
  const age = input.handshakeAgeSeconds;
  if (age === undefined) {
    // A reboot forgets every handshake, and a peer that cannot be reached from here (a branch behind NAT) makes its
    // next one only when its keepalive or its old session's end makes it try: within the bound. Until the bound has
    // passed since the boot, such a peer is not due yet; a hub's reboot paged every idle branch as `never`.
    if (boundSeconds !== undefined && input.upSeconds !== undefined && input.upSeconds <= boundSeconds) return { state: 'never', expected, because, boundSeconds, sinceBoot: true };
    return { state: 'never', expected, because, boundSeconds };
  }
  if (input.probe === 'failed') {
    // A session exists (its keys are good for REJECT_AFTER_TIME after the handshake) but every ping was lost:
    // allowed-address or routing is wrong. rx may still move (keepalives), so this comes before the traffic rule.
    if (age <= REJECT_AFTER_TIME_SECONDS) return { state: 'blocked', expected, because, boundSeconds };
    // No session: the probe's own pings made WireGuard start a handshake, and none answered within the probe. A
    // peer a session is expected of is down — whatever the bound would still allow (a keepalive peer's 210 s), and
    // not "blocked", which would send the operator to allowed-address and routes (a review found a dead peer worded
    // so). One nothing is expected of (a road warrior asleep) has no session and wants none: idle.
    return { state: expected ? 'down' : 'idle', expected, because, boundSeconds };
  }
  // Data received means a session, whatever the bound says, but only while one can still exist: a session's
  // keys are refused REJECT_AFTER_TIME after its handshake. rx grew at some moment since the previous counter
  // read; with the latest handshake older than that, the data came before the session expired, however long
  // ago (a collection gap, or /health judging later than the read), and says nothing about now.
  // Not the window of rxUnansweredAt (h <= 185 s + g, g the window), on purpose: that asks whether an answer came at
  // some moment of the window, which is enough to call this side's sending answered; `up` says a session exists now,
  // and rx that grew early in a long window, the session expired since, proves none (a keepalive peer dead 17 minutes
  // whose rx grew in a 15-minute collection gap would read up). A session still usable now (h <= 185 s) is what data
  // proves.
  if (input.rxMoved && age <= SENDING_BOUND_SECONDS) return { state: 'up', expected, because, boundSeconds };
  if (boundSeconds !== undefined) return { state: age > boundSeconds ? 'down' : 'up', expected, because, boundSeconds };
  // Nothing expected: a session that is still usable is up; past it the peer is idle, which is fine.
  return { state: age > SENDING_BOUND_SECONDS ? 'idle' : 'up', expected, because, boundSeconds };
}
