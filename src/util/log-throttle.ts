/**
 * When to say a log line about something that comes in floods (wrong credentials, refused TLS handshakes, ticks the
 * event loop missed): the first at once, then at most one line per interval with what was counted since. What is
 * counted after a line is said once its interval is over, whether or not anything more comes: a burst followed by
 * silence used to wait for the next event to be told, which might be hours or never (found by review for the TLS
 * refusals, and true of the other two as well). The caller keeps its own tally; `say` logs and resets it.
 */
export class LogThrottle {
  readonly #everyMs: number;
  readonly #say: () => void;
  readonly #now: () => number;
  #saidAt = Number.NEGATIVE_INFINITY;
  #pending: NodeJS.Timeout | undefined;

  /** `now` is a monotonic clock in ms: a rate is a duration, so a wall clock set back an hour cannot silence it. */
  constructor(everyMs: number, say: () => void, now: () => number = () => performance.now()) {
    this.#everyMs = everyMs;
    this.#say = say;
    this.#now = now;
  }

  /** Something was counted: said now if the interval allows, else once it ends (one timer, not one per event). */
  noted(): void {
    const wait = this.#saidAt + this.#everyMs - this.#now();
    if (wait <= 0) this.#sayNow();
    else this.#pending ??= setTimeout(() => this.#sayNow(), wait).unref();
  }

  /** The owner stops: what is still counted is said now rather than lost. */
  close(): void {
    if (this.#pending !== undefined) this.#sayNow();
  }

  #sayNow(): void {
    clearTimeout(this.#pending);
    this.#pending = undefined;
    this.#saidAt = this.#now();
    this.#say();
  }
}
