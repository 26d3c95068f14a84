/**
 * A counting semaphore: the global cap on requests in flight. Waiters are served in order within their lane, and
 * every `high` waiter before any `low` one: discovered targets (src/discovery) run in the low lane, so a burst of
 * first probes at targets that never answer cannot keep a configured router's runs waiting behind them (it once
 * held a 15 s job off for 2.5 minutes). A high waiter still waits for a permit to be released, since runs are
 * never preempted: at most about one run's deadline, or the deadlines of the reading runs one router had waiting
 * in turn, which take the permit over one after the other (read-turn.ts).
 */
export type Lane = 'high' | 'low';

export class Semaphore {
  #available: number;
  readonly #waiters: Record<Lane, (() => void)[]> = { high: [], low: [] };

  constructor(permits: number) {
    this.#available = permits;
  }

  /** Resolves when a permit is held; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal, lane: Lane = 'high'): Promise<void> {
    if (this.#available > 0) {
      this.#available--;
      return Promise.resolve();
    }
    const waiters = this.#waiters[lane];
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = waiters.indexOf(grant);
        if (index >= 0) waiters.splice(index, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.push(grant);
    });
  }

  release(): void {
    const next = this.#waiters.high.shift() ?? this.#waiters.low.shift();
    if (next !== undefined) next();
    else this.#available++;
  }

  get waiting(): number {
    return this.#waiters.high.length + this.#waiters.low.length;
  }
}
