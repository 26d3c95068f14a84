/**
 * Work in slices: the same steps run to their end at once or give the event loop back between slices, and
 * other work (a timer, a socket) runs in between.
 */
import { describe, expect, it } from 'vitest';
import { finish, finishInSlices, finishInSlicesLater, Slicer, type Steps, WeighedPace } from '../../src/util/slices.js';

function* counting(steps: number, seen: number[]): Steps<number> {
  for (let step = 0; step < steps; step++) {
    seen.push(step);
    yield;
  }
  return steps;
}

describe('work in slices', () => {
  it('runs steps to their end at once with finish', () => {
    const seen: number[] = [];
    expect(finish(counting(5, seen))).toBe(5);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('gives the event loop back between slices: a timer fires while the work goes on, which it cannot in one go', async () => {
    const untilTimer = function* (fired: { value: boolean }): Steps<boolean> {
      for (let step = 0; step < 5_000_000 && !fired.value; step++) yield;
      return fired.value;
    };
    const inOneGo = { value: false };
    setTimeout(() => (inOneGo.value = true), 1);
    expect(finish(untilTimer(inOneGo))).toBe(false);
    const sliced = { value: false };
    setTimeout(() => (sliced.value = true), 1);
    let pauses = 0;
    expect(await finishInSlices(untilTimer(sliced), { budgetMs: 0, onPause: () => pauses++ })).toBe(true);
    expect(pauses).toBeGreaterThan(0);
  });

  it('finishInSlicesLater runs nothing in the turn it is called in, not even inside a slice of other work, and ends as finish would', async () => {
    const later: number[] = [];
    let duringOther = -1;
    function* other(): Steps<void> {
      yield;
      // Inside a slice of other work: a piece begun here with a slice of its own would run up to its budget now.
      pending = finishInSlicesLater(counting(40, later), { budgetMs: 60_000 });
      duringOther = later.length;
      yield;
    }
    let pending: Promise<number> | undefined;
    await finishInSlices(other(), { budgetMs: 60_000 });
    expect(duringOther).toBe(0);
    expect(await pending).toBe(40);
    expect(later).toHaveLength(40);
    const stop = new AbortController();
    const stopped = finishInSlicesLater(counting(5, []), { signal: stop.signal });
    stop.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
  });

  it('pauses at every step with a budget of 0', async () => {
    let pauses = 0;
    const seen: number[] = [];
    expect(await finishInSlices(counting(50, seen), { budgetMs: 0, onPause: () => pauses++ })).toBe(50);
    expect(seen).toHaveLength(50);
    expect(pauses).toBe(50);
  });

  it('does not pause while a slice has budget left', async () => {
    let pauses = 0;
    expect(await finishInSlices(counting(1_000, []), { budgetMs: 60_000, onPause: () => pauses++ })).toBe(1_000);
    expect(pauses).toBe(0);
  });

  it('stops at its next pause once its signal is aborted, with the signal’s reason', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    function* endless(): Steps<never> {
      for (let step = 0; ; step++) {
        seen.push(step);
        if (step === 3) controller.abort(new Error('deadline'));
        yield;
      }
    }
    await expect(finishInSlices(endless(), { budgetMs: 0, signal: controller.signal })).rejects.toThrow('deadline');
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('shares each turn of the event loop between pieces of work: the first uses its budget, the others step once', async () => {
    const busy = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const stepsDone = { a: 0, b: 0 };
    function* work(name: 'a' | 'b', steps: number): Steps<number> {
      for (let step = 0; step < steps; step++) {
        busy(1);
        stepsDone[name]++;
        yield;
      }
      return stepsDone.b;
    }
    // Each piece would run ~25 steps a turn on a clock of its own, so b would keep pace with a; sharing, b steps
    // once a turn, ~4 times. Half-way between is the bound: a busy machine that stretches a's steps gives b a
    // few more turns, not 46 (a bound of 20 of 40, at 10 steps a turn, was nearer).
    const a = finishInSlices(work('a', 100), { budgetMs: 25 });
    const b = finishInSlices(work('b', 100), { budgetMs: 25 });
    const bWhenADone = await a;
    await b;
    expect(stepsDone).toEqual({ a: 100, b: 100 });
    expect(bWhenADone).toBeLessThan(50);
  });

  it('shares one slice clock across pieces of work', async () => {
    let pauses = 0;
    const slicer = new Slicer({ budgetMs: 0, onPause: () => pauses++ });
    await finishInSlices(counting(3, []), slicer);
    await finishInSlices(counting(4, []), slicer);
    expect(pauses).toBe(7);
  });
});

describe('WeighedPace', () => {
  it('says to pause every `items` items, or sooner once the weight since the last pause reaches its bound', () => {
    const light = new WeighedPace(4, 100);
    expect(Array.from({ length: 9 }, () => light.due(1))).toEqual([false, false, false, true, false, false, false, true, false]);
    const heavy = new WeighedPace(64, 100);
    expect([60, 30, 10, 99, 1, 250, 0].map((weight) => heavy.due(weight))).toEqual([false, false, true, false, true, true, false]);
  });
});
