/**
 * The soak's figures: RSS growth after the warm-up, event-loop lag and scrape times over every scrape.
 * RSS rises and falls by tens of MiB with each garbage collection cycle, so growth compares the lowest RSS
 * (what stays after a collection) of the first and the last quarter of the samples after the warm-up.
 */

/** Memory, every few seconds. */
export interface Sample {
  /** Seconds since the start. */
  t: number;
  rss: number;
  /** V8 heap in use. */
  heap: number;
  /** Memory outside the V8 heap held by JavaScript objects (Buffers). */
  external: number;
}

/** Every scrape: how long it took and the daemon's event-loop delay p99 since the previous one. */
export interface Scrape {
  ms: number;
  lagP99Ms: number;
}

export interface SoakSummary {
  minutes: number;
  routers: number;
  peers: number;
  samples: number;
  scrapes: number;
  warmupSeconds: number;
  /** Lowest RSS in the first and last quarter after the warm-up. */
  rssStartMiB: number;
  rssEndMiB: number;
  rssMaxMiB: number;
  rssGrowthPercent: number;
  /** Lowest heap in use in the first and last quarter after the warm-up. */
  heapStartMiB: number;
  heapEndMiB: number;
  externalStartMiB: number;
  externalEndMiB: number;
  lagP99MedianMs: number;
  lagP99MaxMs: number;
  scrapeP95Ms: number;
  scrapeMaxMs: number;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
const round = (value: number): number => Math.round(value * 10) / 10;

export function summarise(
  samples: readonly Sample[],
  scrapes: readonly Scrape[],
  run: { warmupSeconds: number; minutes: number; routers: number; peers: number },
): SoakSummary {
  const settled = samples.filter((sample) => sample.t >= run.warmupSeconds);
  const measured = settled.length >= 2 ? settled : samples;
  const window = Math.max(1, Math.floor(measured.length / 4));
  const head = measured.slice(0, window);
  const tail = measured.slice(-window);
  const rssStart = quantile(head.map((s) => s.rss), 0);
  const rssEnd = quantile(tail.map((s) => s.rss), 0);
  return {
    minutes: run.minutes,
    routers: run.routers,
    peers: run.peers,
    samples: samples.length,
    scrapes: scrapes.length,
    warmupSeconds: run.warmupSeconds,
    rssStartMiB: mib(rssStart),
    rssEndMiB: mib(rssEnd),
    rssMaxMiB: mib(Math.max(...samples.map((s) => s.rss))),
    rssGrowthPercent: round(((rssEnd - rssStart) / rssStart) * 100),
    heapStartMiB: mib(quantile(head.map((s) => s.heap), 0)),
    heapEndMiB: mib(quantile(tail.map((s) => s.heap), 0)),
    externalStartMiB: mib(quantile(head.map((s) => s.external), 0)),
    externalEndMiB: mib(quantile(tail.map((s) => s.external), 0)),
    lagP99MedianMs: round(quantile(scrapes.map((s) => s.lagP99Ms), 0.5)),
    lagP99MaxMs: round(Math.max(...scrapes.map((s) => s.lagP99Ms).filter(Number.isFinite))),
    scrapeP95Ms: round(quantile(scrapes.map((s) => s.ms), 0.95)),
    scrapeMaxMs: round(Math.max(...scrapes.map((s) => s.ms))),
  };
}
