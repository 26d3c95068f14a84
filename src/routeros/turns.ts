/**
 * A router's connections taken in turn: a request takes a free one, or waits, in order, for the first one given
 * back, and its timeout or abort ends the wait. Undici's dispatchers queue requests too, but a Client whose connect
 * could not be made held a queued request past its own timeout, and a Pool preallocates a 2,048-slot queue
 * (~18 KiB with the Pool, per router whether anything ever waits: 36 MB at 2,000 routers). Here a router that
 * nothing waits on keeps a few small fields.
 */

/**
 * How a request's wait is ended early (its timeout, its caller's abort): `take` sets `notify` while the request
 * waits and clears it when the turn comes; the request may then point it at whatever it waits on next.
 */
export interface Waiter {
  notify: ((reason: unknown) => void) | undefined;
}

export class Turns {
  /** Which connections are lent out, by number; the lowest free one is lent first. */
  readonly #lent: boolean[];
  #lentCount = 0;
  readonly #waiting: ((slot: number) => void)[] = [];

  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`a router needs at least one connection, not ${slots}`);
    this.#lent = new Array<boolean>(slots).fill(false);
  }

  /**
   * The number of a connection now free, or a promise of the first one given back. The lowest free number goes
   * first, so that requests one after another keep reusing one kept connection and the others may expire. While it
   * waits, `waiter.notify` rejects the wait with the reason it is given (and is cleared when the turn comes).
   */
  take(waiter: Waiter): number | Promise<number> {
    if (this.#lentCount < this.#lent.length) return this.#lend(this.#lent.indexOf(false));
    return new Promise((resolve, reject) => {
      const turn = (slot: number): void => {
        waiter.notify = undefined;
        resolve(slot);
      };
      waiter.notify = (reason): void => {
        const index = this.#waiting.indexOf(turn);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(reason);
      };
      this.#waiting.push(turn);
    });
  }

  /** Connection `slot` now if it is free (a keep-warm read for that one connection), else false. */
  takeIf(slot: number): boolean {
    if (this.#lent[slot] !== false) return false;
    this.#lend(slot);
    return true;
  }

  /** Whether connection `slot` is lent out (given back to a waiting request, it still is). */
  isLent(slot: number): boolean {
    return this.#lent[slot] === true;
  }

  /** Gives connection `slot` back: to the request waiting longest, or free. A connection not lent is left alone. */
  give(slot: number): void {
    // Handed on twice, one connection would be lent to two requests at once.
    if (this.#lent[slot] !== true) return;
    const next = this.#waiting.shift();
    if (next !== undefined) {
      next(slot);
      return;
    }
    this.#lent[slot] = false;
    this.#lentCount--;
  }

  /** Whether any connection is lent out. */
  get busy(): boolean {
    return this.#lentCount > 0;
  }

  #lend(slot: number): number {
    this.#lent[slot] = true;
    this.#lentCount++;
    return slot;
  }
}
