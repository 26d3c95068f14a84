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
  readonly capacity: number;
  #available: number;
  /** Runs carried on this cap past its capacity (force): counted, never granted, never granting. */
  #over = 0;
  readonly #waiters: Record<Lane, ((granted: void) => void)[]> = { high: [], low: [] };

  constructor(permits: number) {
    this.capacity = permits;
    this.#available = permits;
  }

  /** Permits held now, with the runs carried past the capacity (force). */
  get inUse(): number {
    return this.capacity - this.#available + this.#over;
  }

  /** Resolves when a permit is held; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal, lane: Lane = 'high'): Promise<void> {
    if (this.#available > 0) {
      this.#available--;
      return Promise.resolve();
    }
    return waitInQueue(this.#waiters[lane], signal);
  }

  /** Takes a permit if one is free, without waiting (a free permit means nobody waits). */
  tryAcquire(): boolean {
    if (this.#available <= 0) return false;
    this.#available--;
    return true;
  }

  /**
   * Carries a run already under way on this cap, past its capacity: a run that moves here from another cap
   * (runner.ts #moveWhenSlow), which must give that cap's permit back now rather than after the runs queued here.
   * Carried runs are counted (inUse) but hold none of the capacity's permits, so the runs queued here are granted as
   * before: when carried runs took permits to pay back first, a steady stream of them (slow routers moving 16 a
   * second) kept a silent router's run queued for good (found by review). End one with dropCarried().
   */
  force(): void {
    this.#over++;
  }

  /** A carried run (force) has ended. */
  dropCarried(): void {
    if (this.#over > 0) this.#over--;
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

/**
 * Waits in `queue` until granted (the function it queued is called with the grant's value) or until the signal
 * aborts (it leaves the queue, and the promise rejects with the signal's reason). The semaphore's and the read
 * turn's (read-turn.ts) waiters.
 */
export function waitInQueue<T>(queue: ((granted: T) => void)[], signal: AbortSignal | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    // An aborted signal fires no more 'abort': queued, the waiter would stay in the queue, counted, for good.
    if (signal?.aborted === true) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const grant = (granted: T): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve(granted);
    };
    const onAbort = (): void => {
      const index = queue.indexOf(grant);
      if (index >= 0) queue.splice(index, 1);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(grant);
  });
}
