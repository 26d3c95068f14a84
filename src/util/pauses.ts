/**
 * The time the process did not run: a VM paused by its hypervisor, a SIGSTOP, an event loop held. Both clocks jump
 * forward over such a pause, every timer fires late, and the data collected before it is as old as the pause
 * because the exporter did not run, not because a collection is overdue. Told by a heartbeat's lateness: a timer
 * every second, and the time it fired past its due (beyond 5 s, a busy loop's lag) is a pause. A pause not yet
 * ended by a heartbeat (a request served in the turn the process resumed, before the timers) counts up to now.
 */

/** How often the heartbeat fires (ms). */
export const HEARTBEAT_MS = 1_000;
/**
 * Lateness up to this is a busy loop, not a pause (ms). Well above a loaded loop's lag: an exporter lagging a second or
 * two at every beat told those as pauses, and a router silent meanwhile had its timeouts taken for the exporter's
 * (scheduler/runner.ts) and never read down.
 */
export const PAUSE_TOLERANCE_MS = 5_000;
/** Pauses remembered; older ones are forgotten (a peer then ages over them, as before pauses were told). */
const PAUSES_KEPT = 1_024;

export class PauseWatch {
  readonly #elapsed: () => number;
  #lastBeat: number;
  /** Ended pauses, oldest first: when each ended on the monotonic clock, and its length (ms). */
  readonly #pauses: { endedAt: number; ms: number }[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Whether heartbeats come (start, or a caller's own beat): without them, no lateness means anything. */
  #beating = false;

  /** `elapsed`: the monotonic clock in ms (performance.now), the one runs record their end on. */
  constructor(elapsed: () => number = () => performance.now()) {
    this.#elapsed = elapsed;
    this.#lastBeat = elapsed();
  }

  /** Starts the heartbeat (unref'd: it holds nothing open). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#lastBeat = this.#elapsed();
    this.#beating = true;
    this.#timer = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#beating = false;
  }

  /** One heartbeat: its lateness past the tolerance is a pause that ended now. */
  beat(): void {
    const now = this.#elapsed();
    const late = this.#beating ? this.#late(now) : 0;
    this.#beating = true;
    if (late > 0) {
      this.#pauses.push({ endedAt: now, ms: late });
      if (this.#pauses.length > PAUSES_KEPT) this.#pauses.shift();
    }
    this.#lastBeat = now;
  }

  /** The ms the process did not run between `since` (the monotonic clock) and now, a pause under way included. */
  pausedSince(since: number): number {
    const now = this.#elapsed();
    let paused = 0;
    const ongoing = this.#beating ? this.#late(now) : 0;
    if (ongoing > 0) paused += Math.max(0, Math.min(ongoing, now - since));
    for (let index = this.#pauses.length - 1; index >= 0; index--) {
      const pause = this.#pauses[index] as { endedAt: number; ms: number };
      if (pause.endedAt <= since) break;
      // The part of the pause after `since`.
      paused += Math.max(0, Math.min(pause.ms, pause.endedAt - since));
    }
    return paused;
  }

  /** How late a heartbeat at `now` is, beyond the tolerance (0 when on time). */
  #late(now: number): number {
    const late = now - this.#lastBeat - HEARTBEAT_MS;
    return late > PAUSE_TOLERANCE_MS ? late : 0;
  }
}

/**
 * `paused` counted up to `until` (an instant of the same clock): the time the process did not run between `since`
 * and `until`. For judging an instant that may be worked out after a later pause (a report written in slices, a run
 * judged after others), which that later pause must not shorten.
 */
export function pausedUntil(paused: (since: number) => number, until: number): (since: number) => number {
  return (since) => Math.max(0, paused(since) - paused(Math.max(since, until)));
}
