/**
 * Gives V8's young generation back once the process has gone quiet. A collection burst (2,000 routers answering
 * within ~3 s of the tick) grows the young generation to its largest (32 MB committed on Node 20), and V8 shrinks
 * it only after a collection made while allocation is slow. In an exporter nothing allocates between bursts, so no
 * collection comes until the next burst (or the keep-warm reads ~28 s later), and the burst's young generation
 * stayed committed through the quiet: ~25 MB of the fleet's median RSS (measured: 325 → 299 MB at 2,000 × 4).
 *
 * So, once V8 has made no collection of its own for a while, this asks it for one young-generation collection
 * (a scavenge: a few ms, proportional to what survives, nothing else paused). V8 judges "slow" over the last
 * ~5 s of collections, its own: on Node 24 the first request already gives the space back; on Node 20 the
 * first only closes the burst's accounting and a second, 5.5 s later, does. Requests stop once the young
 * generation shrank, after `attempts`, or while it is too small to be worth one, until V8 collects by itself
 * again (the next burst).
 *
 * A request that gave nothing back raises the quiet asked for from a second to 5.5 s until one gives something
 * back: where work comes every few seconds (pings every few seconds at 100 routers × 1,000 peers) a request in
 * each short gap gave nothing back and, each promoting what was in flight, grew the old generation by ~2 MB/s
 * (measured: 283 MB RSS as Prometheus scrapes against 252 MB without any request).
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface TrimOutcome {
  /** Young-generation bytes committed before and after the request that gave them back. */
  beforeBytes: number;
  afterBytes: number;
  /** Which request since V8's last own collection it was (1 = the first). */
  attempt: number;
}

export interface YoungGenerationTrimOptions {
  /** Quiet (no collection by V8 itself) before a request: the burst is over. */
  firstAfterMs?: number;
  /** The quiet asked for after a request that gave nothing back: longer than the ~5 s over which V8 judges allocation. */
  retryAfterMs?: number;
  /** Requests per quiet period at most. */
  attempts?: number;
  /** Below this many committed young-generation bytes there is nothing worth a collection. */
  worthBytes?: number;
  /** Called when a request gave space back. */
  onTrim?: (outcome: TrimOutcome) => void;
  /** Seams for tests: the collection asked for, the young generation's committed bytes, the clock, V8's collections. */
  collect?: () => void;
  youngBytes?: () => number;
  now?: () => number;
  watchCollections?: (onCollection: (startedAt: number) => void) => () => void;
}

export interface YoungGenerationTrim {
  stop(): void;
}

export const TRIM_DEFAULTS = { firstAfterMs: 1_000, retryAfterMs: 5_500, attempts: 3, worthBytes: 8 * 1024 * 1024 } as const;

/**
 * Starts watching; `stop()` ends it. Without a way to ask V8 for a collection (see youngCollector) it does nothing.
 */
export function trimYoungGenerationWhenQuiet(options: YoungGenerationTrimOptions = {}): YoungGenerationTrim {
  const available = options.collect ?? youngCollector();
  if (available === undefined) return { stop: () => undefined };
  const collect: () => void = available;
  const firstAfterMs = options.firstAfterMs ?? TRIM_DEFAULTS.firstAfterMs;
  const retryAfterMs = options.retryAfterMs ?? TRIM_DEFAULTS.retryAfterMs;
  const maxAttempts = options.attempts ?? TRIM_DEFAULTS.attempts;
  const worthBytes = options.worthBytes ?? TRIM_DEFAULTS.worthBytes;
  const youngBytes = options.youngBytes ?? youngGenerationBytes;
  const now = options.now ?? (() => performance.now());

  /** When the current wait began: V8's last own collection, or the last request. */
  let quietSince = now();
  let attempts = 0;
  /** The last request gave nothing back: the next waits retryAfterMs of quiet, even after a burst. */
  let failed = false;
  /** Nothing more to ask for until V8 collects by itself again. */
  let done = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (now() time). */
  let dueAt = Number.POSITIVE_INFINITY;
  /** The span of the last request: a collection that started within it is the one asked for, not V8's own. */
  let ownFrom = Number.NaN;
  let ownTo = Number.NaN;

  /** The quiet the next request waits for. */
  const quietNeeded = (): number => (failed ? retryAfterMs : firstAfterMs);
  const arm = (delayMs: number): void => {
    clearTimeout(timer);
    dueAt = now() + Math.max(0, delayMs);
    timer = setTimeout(due, Math.max(0, delayMs));
    timer.unref();
  };
  // One timer at a time, re-armed for the remainder when V8 collected meanwhile: no timer churn per collection.
  function due(): void {
    timer = undefined;
    dueAt = Number.POSITIVE_INFINITY;
    if (stopped || done) return;
    const wait = quietNeeded();
    const waited = now() - quietSince;
    if (waited < wait) {
      arm(wait - waited);
      return;
    }
    const beforeBytes = youngBytes();
    if (beforeBytes < worthBytes) {
      done = true;
      return;
    }
    ownFrom = now();
    collect();
    ownTo = now();
    attempts++;
    quietSince = ownTo;
    const afterBytes = youngBytes();
    failed = afterBytes >= beforeBytes;
    if (!failed) {
      done = true;
      options.onTrim?.({ beforeBytes, afterBytes, attempt: attempts });
    } else if (attempts >= maxAttempts) {
      done = true;
    } else {
      arm(retryAfterMs);
    }
  }

  const watch = options.watchCollections ?? watchGarbageCollections;
  const unwatch = watch((startedAt) => {
    if (stopped || (startedAt >= ownFrom && startedAt <= ownTo)) return;
    // V8 collected by itself: a burst (or a scrape) is under way; wait for quiet again.
    quietSince = Math.max(quietSince, startedAt);
    attempts = 0;
    done = false;
    // A timer armed for later (a retry after an earlier quiet) is brought forward.
    if (dueAt > quietSince + quietNeeded()) arm(quietSince + quietNeeded() - now());
  });
  arm(firstAfterMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      unwatch();
    },
  };
}

/** Committed bytes of V8's young generation (both semi-spaces). */
export function youngGenerationBytes(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

/**
 * A synchronous young-generation collection: through the gc() that --expose-gc gave, else through one fetched from
 * a fresh context with that flag set for a moment (V8 installs gc() in contexts made while it is set; the main
 * context has none, so nothing the exporter runs can call it). Undefined where neither works.
 */
function youngCollector(): (() => void) | undefined {
  let gc: NodeJS.GCFunction | undefined = globalThis.gc;
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('typeof gc === "function" ? gc : undefined') as NodeJS.GCFunction | undefined;
    } catch {
      gc = undefined;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  const fetched = gc;
  return fetched === undefined ? undefined : () => fetched({ type: 'minor' });
}

/** Calls `onCollection` with the start of each collection V8 makes (performance.now() time); returns the unwatch. */
function watchGarbageCollections(onCollection: (startedAt: number) => void): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) onCollection(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
