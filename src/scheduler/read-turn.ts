/**
 * A router's read turn: its `reads` jobs run one after the other (runner.ts), served in order. A run that ends
 * with another of the router's runs waiting hands that run the turn together with its global permit, so the
 * router's runs follow each other while its connection is warm instead of the next one queueing behind other
 * routers for a permit (with `idle_connection: close`, a wait past the idle timeout cost a reconnect).
 */
import { waitInQueue, type Semaphore } from './semaphore.js';

export class ReadTurn {
  #held = false;
  readonly #waiters: ((cap: Semaphore | undefined) => void)[] = [];

  /**
   * Resolves when the turn is the caller's: with the cap (semaphore) of the permit the run before it handed over
   * (the caller then holds that permit), undefined when it must take one itself. Rejects if the signal aborts
   * first.
   */
  acquire(signal: AbortSignal): Promise<Semaphore | undefined> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(undefined);
    }
    return waitInQueue(this.#waiters, signal);
  }

  /**
   * Ends the caller's turn. With `cap` (the semaphore the caller holds a permit of), the next waiting run gets
   * that permit along with the turn, and true says so: the caller must not release it. False when nobody waits
   * (or no permit).
   */
  release(cap: Semaphore | undefined): boolean {
    const next = this.#waiters.shift();
    if (next === undefined) {
      this.#held = false;
      return false;
    }
    next(cap);
    return cap !== undefined;
  }

  get waiting(): number {
    return this.#waiters.length;
  }
}
