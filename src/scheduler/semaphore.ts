/** A counting semaphore: the global cap on requests in flight. Waiters are served in order. */
export class Semaphore {
  #available: number;
  readonly #waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.#available = permits;
  }

  /** Resolves when a permit is held; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.#available > 0) {
      this.#available--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next !== undefined) next();
    else this.#available++;
  }

  get waiting(): number {
    return this.#waiters.length;
  }
}
