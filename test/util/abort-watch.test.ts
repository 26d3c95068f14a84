import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unwatchAbort, watchAbort } from '../../src/util/abort-watch.js';

describe('watching a signal’s abort', () => {
  it('puts one listener on a signal however many callbacks watch it, and calls each once when it aborts', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    for (let at = 0; at < 5; at++) watchAbort(controller.signal, () => calls.push(at));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(calls).toEqual([0, 1, 2, 3, 4]);
  });

  it('over random watches, unwatches and aborts of several signals, calls exactly the callbacks watching when their turn comes, once', () => {
    // A step: on which signal, what (watch, unwatch or abort, by `roll`), whether a new callback unwatches the
    // next one of its signal when called, and which callback an unwatch picks.
    const step = fc.record({ signal: fc.nat(), roll: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), endsNext: fc.boolean(), pick: fc.nat() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 40 }), (signals, steps) => {
        const controllers = Array.from({ length: signals }, () => new AbortController());
        // What each callback did, which are watched (in watch order), and which unwatch the next one when called.
        const called = new Map<() => void, number>();
        const expected = new Map<() => void, number>();
        const watched = new Map<() => void, AbortSignal>();
        const endsNextOf = new Set<() => void>();
        const callbacks: (() => void)[] = [];
        const unwatch = (callback: () => void): void => {
          const signal = watched.get(callback);
          if (signal === undefined) return;
          watched.delete(callback);
          unwatchAbort(signal, callback);
        };
        for (const { signal: which, roll, endsNext, pick } of steps) {
          const controller = controllers[which % controllers.length] as AbortController;
          if (roll < 0.5 && !controller.signal.aborted) {
            // Some callbacks, when called, unwatch the next one still watching the same signal, as one request ending
            // another might.
            const signal = controller.signal;
            const callback = (): void => {
              called.set(callback, (called.get(callback) ?? 0) + 1);
              watched.delete(callback);
              if (endsNext) {
                const next = callbacks.slice(callbacks.indexOf(callback) + 1).find((later) => watched.get(later) === signal);
                if (next !== undefined) unwatch(next);
              }
            };
            if (endsNext) endsNextOf.add(callback);
            callbacks.push(callback);
            watched.set(callback, signal);
            watchAbort(controller.signal, callback);
          } else if (roll < 0.75 && callbacks.length > 0) {
            unwatch(callbacks[pick % callbacks.length] as () => void);
          } else if (!controller.signal.aborted) {
            // The model, run before the real abort: in watch order, each still watched when its turn comes is
            // called once and stops being watched, and may unwatch another.
            const model = new Map(watched);
            for (const [callback, signal] of watched) {
              if (signal !== controller.signal || !model.has(callback)) continue;
              model.delete(callback);
              expected.set(callback, (expected.get(callback) ?? 0) + 1);
              if (endsNextOf.has(callback)) {
                const next = callbacks.slice(callbacks.indexOf(callback) + 1).find((later) => model.get(later) === signal);
                if (next !== undefined) model.delete(next);
              }
            }
            controller.abort();
            expect([...watched.keys()]).toEqual([...model.keys()]);
          }
          for (const { signal } of controllers) expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
        }
        for (const callback of callbacks) expect(called.get(callback) ?? 0).toBe(expected.get(callback) ?? 0);
      }),
      { numRuns: 200 },
    );
  });
});
