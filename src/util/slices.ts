/**
 * Work in slices. What a router sends is only bounded by the reply cap (32 MiB): a valid reply of 80,000 peers
 * took one task of 2.5–3.6 s to parse, map and store, and every scrape, every other router's run and every timer
 * waited behind it. Work proportional to a reply is written as steps (a generator that yields between pieces),
 * so the same code runs to its end at once (`finish`: tests, small inputs) or gives the event loop back whenever
 * a slice has used its budget (`finishInSlices`).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one slice may hold the event loop before the work gives it back. */
export const SLICE_BUDGET_MS = 10;

/** Work that yields between its pieces and returns `T` at its end. */
export type Steps<T> = Generator<void, T, void>;

export interface SliceOptions {
  /** Milliseconds a slice may run; SLICE_BUDGET_MS when absent. 0 gives the loop back at every step (tests). */
  readonly budgetMs?: number;
  /** Stops the work at its next pause with the signal's reason (a run past its deadline computes no further). */
  readonly signal?: AbortSignal;
  /** Told of every pause (tests count them). */
  readonly onPause?: () => void;
}

/** A clock for slices: whether the current one is spent, and a pause that starts the next. */
export class Slicer {
  readonly #budgetMs: number;
  readonly #options: SliceOptions;
  #since = performance.now();

  constructor(options: SliceOptions = {}) {
    this.#options = options;
    this.#budgetMs = options.budgetMs ?? SLICE_BUDGET_MS;
  }

  due(): boolean {
    return performance.now() - this.#since >= this.#budgetMs;
  }

  /** Gives the event loop back (timers, sockets and other runs go first), then starts a new slice. */
  async pause(): Promise<void> {
    this.#options.onPause?.();
    // Kept referenced: `check` has nothing else holding the process while it maps a reply.
    await nextTurn();
    this.#options.signal?.throwIfAborted();
    this.#since = performance.now();
  }
}

/** Runs the steps to their end in one go. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Runs the steps to their end, pausing between them whenever a slice has used its budget. */
export async function finishInSlices<T>(steps: Steps<T>, slicer: Slicer | SliceOptions = {}): Promise<T> {
  const clock = slicer instanceof Slicer ? slicer : new Slicer(slicer);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (clock.due()) await clock.pause();
  }
}
