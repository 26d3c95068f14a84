import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TRIM_DEFAULTS, trimYoungGenerationWhenQuiet, type TrimOutcome } from '../../src/util/young-generation.js';

const MB = 1024 * 1024;

/**
 * A stand-in for V8: its young generation's committed bytes, the collections it makes by itself, and what a
 * requested collection does (gives back space or not), each announced to the watcher a moment later as the
 * real PerformanceObserver does.
 */
function fakeV8(options: { young?: number; shrinks?: () => boolean } = {}) {
  const v8 = {
    young: options.young ?? 32 * MB,
    requests: [] as number[],
    listener: undefined as ((startedAt: number) => void) | undefined,
    unwatched: false,
    trims: [] as TrimOutcome[],
    /** V8 collects by itself now (a burst, a scrape). */
    collects(): void {
      const at = Date.now();
      queueMicrotask(() => v8.listener?.(at));
    },
    start(extra: Parameters<typeof trimYoungGenerationWhenQuiet>[0] = {}) {
      return trimYoungGenerationWhenQuiet({
        now: () => Date.now(),
        youngBytes: () => v8.young,
        collect: () => {
          const at = Date.now();
          v8.requests.push(at);
          if (options.shrinks?.() ?? true) v8.young = 1 * MB;
          // The requested collection is observed too, after the fact, with its start inside the request.
          queueMicrotask(() => v8.listener?.(at));
        },
        watchCollections: (listener) => {
          v8.listener = listener;
          return () => {
            v8.unwatched = true;
            v8.listener = undefined;
          };
        },
        onTrim: (outcome) => v8.trims.push(outcome),
        ...extra,
      });
    },
  };
  return v8;
}

describe('giving the young generation back when quiet', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks once, a quiet second after V8’s last own collection, and not again until V8 collects by itself', async () => {
    const v8 = fakeV8();
    const trim = v8.start();
    // A burst: V8 collects every 200 ms for 3 s.
    for (let at = 0; at < 15; at++) {
      v8.collects();
      await vi.advanceTimersByTimeAsync(200);
    }
    const lastOwn = Date.now() - 200;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(v8.requests).toEqual([lastOwn + TRIM_DEFAULTS.firstAfterMs]);
    expect(v8.trims).toEqual([{ beforeBytes: 32 * MB, afterBytes: 1 * MB, attempt: 1 }]);
    // The next burst grows it again; the next quiet gives it back again.
    v8.young = 32 * MB;
    v8.collects();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(v8.requests).toHaveLength(2);
    trim.stop();
  });

  it('asks again 5.5 s apart while nothing is given back, at most three times per quiet period', async () => {
    const v8 = fakeV8({ shrinks: () => false });
    const trim = v8.start();
    v8.collects();
    const lastOwn = Date.now();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(v8.requests).toEqual([lastOwn + 1_000, lastOwn + 6_500, lastOwn + 12_000]);
    expect(v8.trims).toEqual([]);
    trim.stop();
  });

  it('after a request that gave nothing back, waits 5.5 s of quiet before the next, bursts or not, until one gives space back', async () => {
    let shrinks = false;
    const v8 = fakeV8({ shrinks: () => shrinks });
    const trim = v8.start();
    v8.collects();
    let lastOwn = Date.now();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(v8.requests).toEqual([lastOwn + 1_000]);
    // Work every 3 s, as pings make it: no gap is quiet for long enough, so nothing more is asked.
    for (let burst = 0; burst < 10; burst++) {
      await vi.advanceTimersByTimeAsync(2_000);
      v8.collects();
      lastOwn = Date.now();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(v8.requests).toHaveLength(1);
    // A longer quiet: asked 5.5 s after the last collection, and this time it gives back…
    shrinks = true;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(v8.requests).toEqual([expect.any(Number), lastOwn + 5_500]);
    // …so after the next burst a quiet second is enough again.
    v8.young = 32 * MB;
    v8.collects();
    lastOwn = Date.now();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(v8.requests.slice(2)).toEqual([lastOwn + 1_000]);
    trim.stop();
  });

  it('asks nothing while the young generation is too small to be worth a collection', async () => {
    const v8 = fakeV8({ young: 2 * MB });
    const trim = v8.start();
    v8.collects();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(v8.requests).toEqual([]);
    trim.stop();
  });

  it('after stop(), asks nothing and stops watching V8', async () => {
    const v8 = fakeV8();
    const trim = v8.start();
    await vi.advanceTimersByTimeAsync(500);
    trim.stop();
    expect(v8.unwatched).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(v8.requests).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('over random bursts, quiet periods and outcomes: asks only when quiet, never more than allowed, and always when it should', async () => {
    let seed = 11;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const { firstAfterMs, retryAfterMs, attempts, worthBytes } = TRIM_DEFAULTS;
    for (let trial = 0; trial < 150; trial++) {
      let shrinkOdds = 0.5;
      const outcomes: boolean[] = [];
      const v8 = fakeV8({
        shrinks: () => {
          const shrank = random() < shrinkOdds;
          outcomes.push(shrank);
          return shrank;
        },
      });
      const trim = v8.start();
      // Each period: a burst of V8's own collections, then a quiet stretch of random length and young generation.
      const periods: { from: number; to: number; first: number; count: number; worth: boolean }[] = [];
      for (let period = 0; period < 8; period++) {
        const first = v8.requests.length;
        // The quiet is counted from the burst's last collection.
        let lastOwn = 0;
        for (let gc = 0, count = 1 + Math.floor(random() * 5); gc < count; gc++) {
          v8.collects();
          lastOwn = Date.now();
          await vi.advanceTimersByTimeAsync(Math.floor(random() * 400));
        }
        v8.young = random() < 0.2 ? Math.floor(random() * worthBytes) : worthBytes + Math.floor(random() * 40 * MB);
        shrinkOdds = random();
        const worth = v8.young >= worthBytes;
        await vi.advanceTimersByTimeAsync(Math.floor(random() * 20_000));
        periods.push({ from: lastOwn, to: Date.now(), first, count: v8.requests.length - first, worth });
      }
      const made = v8.requests.length;
      trim.stop();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(v8.requests).toHaveLength(made); // nothing after stop()
      for (const { from, to, first, count, worth } of periods) {
        const requests = v8.requests.slice(first, first + count);
        const shrank = outcomes.slice(first, first + count);
        // The quiet a first request waits for: a second, or 5.5 s while the last request gave nothing back.
        const firstWait = first > 0 && outcomes[first - 1] === false ? retryAfterMs : firstAfterMs;
        expect(count).toBeLessThanOrEqual(attempts);
        if (!worth) expect(count).toBe(0);
        // Only when quiet: the first a second (or 5.5 s) after V8's own last collection, the others 5.5 s apart.
        requests.forEach((at, index) => {
          const after = index === 0 ? from : (requests[index - 1] as number);
          expect(at - after).toBeGreaterThanOrEqual(index === 0 ? firstWait : retryAfterMs);
        });
        // Nothing after a request that gave space back…
        expect(shrank.slice(0, -1)).not.toContain(true);
        // …and while none did, every request that came due within the quiet was made.
        if (worth && count < attempts && shrank[count - 1] !== true) {
          const due = count === 0 ? from + firstWait : (requests[count - 1] as number) + retryAfterMs;
          expect(due).toBeGreaterThan(to);
        }
      }
    }
  });
});

describe('giving the young generation back, on this Node.js’s V8', () => {
  const built = new URL('../../dist/util/young-generation.js', import.meta.url).pathname;

  it('a young generation grown by a burst is given back within a few quiet seconds, and no gc() is left in reach', async () => {
    expect(existsSync(built), 'dist/ is built by npm test before vitest').toBe(true);
    // Its own process: a heap no other test allocates in. The deadline ends it if nothing is ever given back.
    const script = `
      import { trimYoungGenerationWhenQuiet, youngGenerationBytes } from ${JSON.stringify(built)};
      let keep = [];
      for (let i = 0; i < 400000; i++) { keep.push({ a: i, b: 'x' + i, c: [i] }); if (keep.length > 200000) keep = keep.slice(100000); }
      const grown = youngGenerationBytes();
      keep = null;
      const deadline = setTimeout(() => { console.log(JSON.stringify({ grown, given: false })); process.exit(0); }, 20000);
      const trim = trimYoungGenerationWhenQuiet({
        onTrim: (outcome) => {
          trim.stop();
          clearTimeout(deadline);
          console.log(JSON.stringify({ grown, given: true, ...outcome, now: youngGenerationBytes(), gcInReach: typeof globalThis.gc }));
        },
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const result = JSON.parse(out) as { grown: number; given: boolean; beforeBytes: number; afterBytes: number; attempt: number; now: number; gcInReach: string };
    expect(result.grown).toBeGreaterThanOrEqual(16 * MB);
    expect(result.given).toBe(true);
    expect(result.attempt).toBeLessThanOrEqual(TRIM_DEFAULTS.attempts);
    expect(result.afterBytes).toBeLessThanOrEqual(result.beforeBytes / 4);
    expect(result.now).toBeLessThanOrEqual(4 * MB);
    expect(result.gcInReach).toBe('undefined');
  });
});
