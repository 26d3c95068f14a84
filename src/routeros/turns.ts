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
  /** Which connections are lent out, by number. */
  readonly #lent: boolean[];
  /** Which of them are lent to a keep-warm read (`takeIf`): given back within a round trip. */
  readonly #warming: boolean[];
  #lentCount = 0;
  readonly #waiting: ((slot: number) => void)[] = [];
  readonly #open: ((slot: number) => boolean) | undefined;

  /**
   * `open(slot)`: whether connection `slot` is open now (taking it costs no connect). Without it every connection
   * counts as open.
   */
  constructor(slots: number, open?: (slot: number) => boolean) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`a router needs at least one connection, not ${slots}`);
    this.#lent = new Array<boolean>(slots).fill(false);
    this.#warming = new Array<boolean>(slots).fill(false);
    this.#open = open;
  }

  /**
   * The number of a connection now free, or a promise of one given back. An open connection goes first, the lowest
   * first, so that requests one after another keep reusing one kept connection and the others may expire; while a
   * keep-warm read holds an open one, a request waits the round trip for it rather than connecting anew (a command
   * at the tick met its connection's keep-warm read and opened a second connection: a resumption and a login line).
   * Requests wait in order. While one waits, `waiter.notify` rejects the wait with the reason it is given (and is
   * cleared when the turn comes).
   */
  take(waiter: Waiter): number | Promise<number> {
    if (this.#waiting.length === 0) {
      const slot = this.#pick();
      if (slot !== undefined) return this.#lend(slot);
    }
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
    this.#warming[slot] = true;
    return true;
  }

  /** Whether connection `slot` is lent out (given back to a waiting request, it still is). */
  isLent(slot: number): boolean {
    return this.#lent[slot] === true;
  }

  /**
   * Gives connection `slot` back: to the request waiting longest, or free; then the requests still waiting take the
   * connections they would take now. A connection not lent is left alone.
   */
  give(slot: number): void {
    // Handed on twice, one connection would be lent to two requests at once.
    if (this.#lent[slot] !== true) return;
    this.#warming[slot] = false;
    const next = this.#waiting.shift();
    if (next !== undefined) next(slot);
    else {
      this.#lent[slot] = false;
      this.#lentCount--;
    }
    // Requests that waited for a keep-warm read's connection take free ones once none is held so.
    while (this.#waiting.length > 0) {
      const free = this.#pick();
      if (free === undefined) return;
      this.#lend(free);
      this.#waiting.shift()?.(free);
    }
  }

  /**
   * The connection to lend now: the lowest free open one; if none, none while a keep-warm read holds an open one
   * (it comes back within a round trip); else the lowest free one.
   */
  #pick(): number | undefined {
    if (this.#lentCount === this.#lent.length) return undefined;
    let firstFree: number | undefined;
    let warmHeld = false;
    for (let slot = 0; slot < this.#lent.length; slot++) {
      const open = this.#open === undefined || this.#open(slot);
      if (!this.#lent[slot]) {
        if (open) return slot;
        firstFree ??= slot;
      } else if (this.#warming[slot] && open) {
        warmHeld = true;
      }
    }
    return warmHeld ? undefined : firstFree;
  }

  #lend(slot: number): number {
    this.#lent[slot] = true;
    this.#lentCount++;
    return slot;
  }
}
