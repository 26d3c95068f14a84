/**
 * Keeping a router's connections open across a cycle when the router closes idle connections sooner than the next
 * cycle comes (issue 14): its read connection, and each of its command connections (a router that pings), each
 * timed on its own (lane.ts). A router that announces `Keep-Alive: timeout=30` with a 30 s schedule would
 * otherwise lose the connection just before each cycle: a TLS reconnect every cycle, which costs the exporter
 * about a millisecond of CPU, costs a small router far more (key exchange on a slow CPU), and writes a login
 * line into the router's log each time (one per connection, spec notes). One small read — the router's
 * identity, a few bytes — sent just before the connection would expire costs both sides less than that.
 *
 * Whether the connection will sit idle long enough to need it is learnt from the last few idle periods of the
 * connection between real reads: a cycle's jobs may be spread over a few seconds (each waits for a run slot),
 * so a cycle has short gaps and one long one, and the long one recurs every cycle. After each real read a
 * keep-warm read is planned for just before expiry; the next real read, if it comes sooner, replaces the plan,
 * so only the long gap sends one. It is planned only when one read bridges the long gap: a router read every
 * 5 minutes with a 30 s keep-alive is left to reconnect (the reconnect resumes the TLS session) rather than
 * being asked ten times for nothing. No schedule needs to be passed down, and a reload that changes the
 * schedule is followed within a few cycles.
 */

/**
 * The keep-warm read goes this long before the connection would expire (a busy event loop and the trip to the
 * router must still leave it arriving in time), and a cycle's first read may come this much later than
 * predicted (timer delays, waiting for a run slot). A quarter of the connection's life for short keep-alives.
 */
export const KEEP_WARM_MARGIN_MS = 2_000;
/** An idle period shorter than this is not remembered (reads of one job, one after the other). */
export const IDLE_MIN_MS = 1_000;
/** How many idle periods are remembered: two jobs apart by a few seconds make two per cycle. */
const IDLES_KEPT = 4;

/** The keep-warm read: the router's identity, a few bytes any read-only user may see (as the client sends it). */
export const KEEP_WARM_PATH = '/system/identity?.proplist=name';

/**
 * The Keep-Alive hint in milliseconds exactly as undici reads it, since what matters is when undici drops the
 * idle connection: the header's values run together, and the first `timeout=` followed by digits anywhere in
 * them counts, case and all (`x-timeout=5` is 5 s, `timeout=5.5` is 5 s, `Timeout=5` no hint). A stricter reading
 * (as before) took undici's 4 s expiry for 30 s, planned no keep-warm read, and the router reconnected each cycle.
 * Undefined without such a hint.
 */
export function keepAliveHintMs(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join('') : header;
  const match = /timeout=(\d+)/.exec(text);
  if (match === null) return undefined;
  // Digits past a double's range read as Infinity, as undici reads them: its cap (keepAliveMaxTimeout) applies.
  return Number.parseInt(match[1] ?? '', 10) * 1000;
}

/**
 * When to send the keep-warm read, in ms after a read's end, or undefined for none: `expiresMs` is when the
 * client drops the idle connection, `idleMs` how long the connection is expected to sit idle at most.
 */
export function keepWarmDelayMs(expiresMs: number, idleMs: number | undefined): number | undefined {
  if (idleMs === undefined || !Number.isFinite(idleMs) || !(expiresMs > 0 && Number.isFinite(expiresMs))) return undefined;
  const margin = Math.min(KEEP_WARM_MARGIN_MS, expiresMs / 4);
  const warmAt = expiresMs - margin;
  // The next burst comes while the connection is still open.
  if (idleMs <= warmAt) return undefined;
  // One read would not carry the connection to the next burst: let it close; the reconnect resumes.
  if (idleMs > warmAt + expiresMs - margin) return undefined;
  return warmAt;
}

/** The timing half of keeping warm: the connection's recent idle periods, and the one timer. */
export class KeepWarm {
  readonly #send: (timeoutMs: number) => void;
  readonly #now: () => number;
  /** The last few idle periods between real reads, newest last. */
  readonly #idles: number[] = [];
  #lastReadEnd: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #delay: number | undefined;

  /**
   * `send` makes the keep-warm read, given how long the connection has left then (its longest useful wait for
   * the reply); it is never called while `cancel` was the last word.
   */
  constructor(send: (timeoutMs: number) => void, now: () => number = () => performance.now()) {
    this.#send = send;
    this.#now = now;
  }

  /** A real read takes the connection (after any reads queued before it): the idle period it ends is remembered. */
  readStarted(): void {
    if (this.#lastReadEnd === undefined) return;
    const idle = this.#now() - this.#lastReadEnd;
    if (idle < IDLE_MIN_MS) return;
    this.#idles.push(idle);
    if (this.#idles.length > IDLES_KEPT) this.#idles.shift();
  }

  /**
   * A real read ended. With `expiresMs` (the connection is open and idle now, and the client drops it after
   * that long) the keep-warm read is planned; without, any planned one is cancelled.
   */
  readEnded(expiresMs: number | undefined): void {
    this.#lastReadEnd = this.#now();
    if (expiresMs === undefined || this.#idles.length === 0) return this.cancel();
    const delay = keepWarmDelayMs(expiresMs, Math.max(...this.#idles));
    if (delay === undefined) return this.cancel();
    if (this.#timer !== undefined && this.#delay === delay) {
      this.#timer.refresh();
      return;
    }
    this.cancel();
    this.#delay = delay;
    const left = expiresMs - delay;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#send(left);
    }, delay);
    this.#timer.unref();
  }

  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#delay = undefined;
  }
}
