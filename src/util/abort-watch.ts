/**
 * Callbacks for the abort of a long-lived signal without an EventTarget listener each: a job's signal is kept
 * from run to run (scheduler/runner.ts), and each of its requests listening to it with addEventListener and
 * removeEventListener made a listener record and a change to the signal's listener table per request, ~8,000
 * times a cycle at 2,000 routers. Here a signal gets one listener for its life, the first time it is watched,
 * and calls the callbacks watching it when it aborts.
 */
const watching = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts, unless unwatched first. The caller checks `signal.aborted` before:
 * a signal aborted already calls nothing.
 */
export function watchAbort(signal: AbortSignal, callback: () => void): void {
  let callbacks = watching.get(signal);
  if (callbacks === undefined) {
    const fresh = new Set<() => void>();
    callbacks = fresh;
    watching.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        // Each taken out before it is called; one unwatched by an earlier one's call is skipped (a Set's iteration
        // sees deletions), as its caller asked.
        for (const call of fresh) {
          fresh.delete(call);
          call();
        }
      },
      { once: true },
    );
  }
  callbacks.add(callback);
}

/** Stops watching: `callback` is not called when `signal` aborts later. */
export function unwatchAbort(signal: AbortSignal, callback: () => void): void {
  watching.get(signal)?.delete(callback);
}
