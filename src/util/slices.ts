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

/**
 * Every paused piece of work waits for the same next turn, and the turn's budget is shared: with one clock per
 * piece, eight routers' large replies resumed in one turn of the event loop held it for eight slices (86 ms).
 * The first to resume uses the turn's budget; the others find it spent and pause again after one step each.
 */
let turnStartedAt = Number.NEGATIVE_INFINITY;
let nextSharedTurn: Promise<void> | undefined;

function sharedTurn(): Promise<void> {
  // Kept referenced: `check` has nothing else holding the process while it maps a reply.
  nextSharedTurn ??= nextTurn().then(() => {
    nextSharedTurn = undefined;
    turnStartedAt = performance.now();
  });
  return nextSharedTurn;
}

/** A clock for slices: whether the current one is spent, and a pause that starts the next. */
export class Slicer {
  readonly #budgetMs: number;
  readonly #options: SliceOptions;
  /** When this work started or last resumed; a turn that began later (shared with other work) counts from then. */
  #since = performance.now();

  constructor(options: SliceOptions = {}) {
    this.#options = options;
    this.#budgetMs = options.budgetMs ?? SLICE_BUDGET_MS;
  }

  due(): boolean {
    return performance.now() - Math.max(this.#since, turnStartedAt) >= this.#budgetMs;
  }

  /** Throws the signal's reason once it is aborted: work for a stopped run does not start. */
  throwIfStopped(): void {
    this.#options.signal?.throwIfAborted();
  }

  /** Gives the event loop back (timers, sockets and other runs go first), then starts a new slice. */
  async pause(): Promise<void> {
    this.#options.onPause?.();
    await sharedTurn();
    this.throwIfStopped();
    this.#since = turnStartedAt;
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
  clock.throwIfStopped();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (clock.due()) await clock.pause();
  }
}

/**
 * Runs the steps in slices from the next shared turn on, where they share that turn's budget with the other work
 * resumed in it. Work begun in the middle of a turn with a slice of its own (eight routers' runs stored in one
 * turn, each judged for up to 10 ms) would hold that turn for eight slices.
 */
export async function finishInSlicesLater<T>(steps: Steps<T>, options: SliceOptions = {}): Promise<T> {
  const clock = new Slicer(options);
  clock.throwIfStopped();
  await clock.pause();
  return finishInSlices(steps, clock);
}

/**
 * When a loop over items of uneven cost may pause: every `items` items, or sooner once their weight (the characters
 * of their long fields: a rule's port lists, a route's gateways) has reached `weight` since the last pause. By
 * count alone, 31 rules of 1 MiB of ports fell between two pauses (4.1 s).
 */
export class WeighedPace {
  readonly #items: number;
  readonly #weight: number;
  #count = 0;
  #carried = 0;

  constructor(items: number, weight: number) {
    this.#items = items;
    this.#weight = weight;
  }

  /** Counts one more item of `weight`; true when the loop should pause (yield) before it. */
  due(weight: number): boolean {
    this.#carried += weight;
    if (++this.#count % this.#items !== 0 && this.#carried < this.#weight) return false;
    this.#carried = 0;
    return true;
  }
}

/** Whether some item passes `test`, as steps: a pause possible every `perStep` items. */
export function* someSteps<T>(items: readonly T[], test: (item: T) => boolean, perStep: number): Steps<boolean> {
  for (const [index, item] of items.entries()) {
    if (index % perStep === perStep - 1) yield;
    if (test(item)) return true;
  }
  return false;
}
