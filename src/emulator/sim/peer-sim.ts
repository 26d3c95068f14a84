/**
 * Lazy simulation of one WireGuard peer: nothing ticks; the last handshake and the rx/tx counters
 * are pure functions of the clock and a few numbers, so 100,000 peers cost nothing between reads.
 *
 * Handshakes happen at `first + k·period` (period ≈ 2 min, as WireGuard rekeys) for every k with
 * the time inside [first, until]; `first` = max(handshakeFrom, sessionFrom) + phase, where
 * `sessionFrom` is the last boot or re-enable (both reset handshakes). Traffic flows at the
 * peer's rates between the first handshake and `until`; while unconnected a peer with a
 * configured endpoint still sends handshake initiations (a trickle of tx).
 */

export interface PeerSimInit {
  rxRate: number;
  txRate: number;
  /** Tx while not connected (initiations to a configured endpoint), bytes/s. */
  idleTxRate: number;
  /**
   * Rx while not connected (the far end's initiations arriving, none completing: a link both sides keep trying
   * over a path that fails one way), bytes/s; 0 when absent. Each initiation is answered (RESPONSE_PER_INITIATION of
   * its bytes in tx): WireGuard responds to every valid one, and on such a path the response is what gets lost.
   */
  idleRxRate?: number;
  periodMs: number;
  phaseMs: number;
  /** Earliest handshake schedule start; -Infinity = whenever a session starts; Infinity = never. */
  handshakeFrom: number;
  /** No handshake after this instant (Infinity = live forever). */
  handshakeUntil: number;
  sessionFrom: number;
  /**
   * A healthy idle tunnel this side wakes (PeerSeed.wake): the instants of its handshake initiations, in order, the
   * last one answered (the ones before it had their responses lost). Each is 148 B of tx; the answer, 92 B of rx,
   * comes WAKE_RTT_MS after the last, and with it the handshake: from then the peer is live (its rates, a rekey every
   * period). For a peer whose own schedule has ended before the first (life `stale`); absent: none.
   */
  wakeInitiations?: readonly number[];
  rx: Counter;
  tx: Counter;
  /** Instant the rx/tx values above hold for. */
  countersAt: number;
  disabled: boolean;
}

/**
 * A byte counter: a plain number while it is exactly representable (the common, fast case) and a
 * bigint past 2^53, so 64-bit values seeded near the top of the range still print exactly.
 */
export type Counter = number | bigint;

export function addBytes(a: Counter, b: number): Counter {
  if (typeof a === 'number') {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
    return BigInt(a) + BigInt(b);
  }
  return a + BigInt(b);
}

/**
 * Tx per byte of initiation received: a handshake response (92 B) answers each initiation (148 B), whether or not it
 * arrives.
 */
export const RESPONSE_PER_INITIATION = 92 / 148;

/** WireGuard's handshake initiation and response, in bytes. */
export const INITIATION_BYTES = 148;
export const RESPONSE_BYTES = 92;
/** The round trip of a woken tunnel's answered initiation (PeerSimInit.wakeInitiations). */
export const WAKE_RTT_MS = 50;

export class PeerSim {
  rxRate: number;
  txRate: number;
  idleTxRate: number;
  idleRxRate: number;
  readonly periodMs: number;
  readonly phaseMs: number;
  handshakeFrom: number;
  handshakeUntil: number;
  sessionFrom: number;
  #rx: Counter;
  #tx: Counter;
  #countersAt: number;
  #disabled: boolean;
  readonly #wakeInitiations: readonly number[];
  /** When a wake's handshake completes; undefined without a wake. */
  readonly #wokenAt: number | undefined;

  constructor(init: PeerSimInit) {
    this.rxRate = init.rxRate;
    this.txRate = init.txRate;
    this.idleTxRate = init.idleTxRate;
    this.idleRxRate = init.idleRxRate ?? 0;
    this.periodMs = init.periodMs;
    this.phaseMs = init.phaseMs;
    this.handshakeFrom = init.handshakeFrom;
    this.handshakeUntil = init.handshakeUntil;
    this.sessionFrom = init.sessionFrom;
    this.#rx = init.rx;
    this.#tx = init.tx;
    this.#countersAt = init.countersAt;
    this.#disabled = init.disabled;
    this.#wakeInitiations = init.wakeInitiations ?? [];
    const last = this.#wakeInitiations.at(-1);
    this.#wokenAt = last === undefined ? undefined : last + WAKE_RTT_MS;
  }

  get disabled(): boolean {
    return this.#disabled;
  }

  #first(): number {
    return Math.max(this.handshakeFrom, this.sessionFrom) + this.phaseMs;
  }

  /** Instant of the latest handshake at time t, or undefined when none since the session began. */
  lastHandshakeAt(t: number): number | undefined {
    if (this.#disabled) return undefined;
    const first = this.#first();
    const end = Math.min(t, this.handshakeUntil);
    const woken = this.#wokenAt !== undefined && t >= this.#wokenAt ? this.#wokenAt + Math.floor((t - this.#wokenAt) / this.periodMs) * this.periodMs : undefined;
    if (!Number.isFinite(first) || end < first) return woken;
    const scheduled = first + Math.floor((end - first) / this.periodMs) * this.periodMs;
    return woken === undefined ? scheduled : Math.max(scheduled, woken);
  }

  /** rx and tx at time t (never below the stored values: counters only grow until a reset). */
  counters(t: number): { rx: Counter; tx: Counter } {
    if (this.#disabled || t <= this.#countersAt) return { rx: this.#rx, tx: this.#tx };
    const first = this.#first();
    const from = Math.max(this.#countersAt, first);
    const to = Math.min(t, this.handshakeUntil);
    const wokenMs = this.#wokenAt === undefined ? 0 : Math.max(0, t - Math.max(this.#countersAt, this.#wokenAt));
    const connectedMs = (Number.isFinite(first) ? Math.max(0, to - from) : 0) + wokenMs;
    const idleMs = t - this.#countersAt - connectedMs;
    // A wake's handshake messages in the window: its initiations sent, and the answer to the last.
    const initiations = this.#wakeInitiations.filter((at) => at > this.#countersAt && at <= t).length;
    const answered = this.#wokenAt !== undefined && this.#wokenAt > this.#countersAt && this.#wokenAt <= t ? RESPONSE_BYTES : 0;
    const rx = Math.floor((this.rxRate * connectedMs + this.idleRxRate * idleMs) / 1000) + answered;
    // Idle: this side's own initiations (to an endpoint), and its responses to the far end's.
    const tx = Math.floor((this.txRate * connectedMs + (this.idleTxRate + this.idleRxRate * RESPONSE_PER_INITIATION) * idleMs) / 1000) + initiations * INITIATION_BYTES;
    return { rx: addBytes(this.#rx, rx), tx: addBytes(this.#tx, tx) };
  }

  /** Freezes counters and drops the handshake (RouterOS shows neither for a disabled peer). */
  disable(t: number): void {
    if (this.#disabled) return;
    const c = this.counters(t);
    this.#rx = c.rx;
    this.#tx = c.tx;
    this.#countersAt = t;
    this.#disabled = true;
  }

  /** A re-enabled peer starts a new session: counters resume, handshakes start afresh. */
  enable(t: number): void {
    if (!this.#disabled) return;
    this.#countersAt = t;
    this.sessionFrom = t;
    this.#disabled = false;
  }

  /** Router reboot: counters fall to 0 and the handshake history is gone. */
  reboot(t: number): void {
    this.#rx = 0;
    this.#tx = 0;
    this.#countersAt = t;
    this.sessionFrom = t;
  }
}
