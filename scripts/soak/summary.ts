/**
 * The soak's figures: RSS growth after the warm-up, event-loop lag and scrape times over every scrape.
 * RSS rises and falls by tens of MiB with each garbage collection cycle (about a minute apart), so a growth
 * taken from two single samples says more about where they fell in the cycle than about a leak. Growth is
 * the least-squares line through every sample after the warm-up: its rise from the first to the last sample,
 * relative to its start. The lowest values of the first and last quarter (what a collection leaves) are
 * reported beside it.
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
  /** The fitted line's RSS at the first and last sample after the warm-up. */
  rssStartMiB: number;
  rssEndMiB: number;
  /** Lowest RSS in the first and last quarter after the warm-up. */
  rssLowStartMiB: number;
  rssLowEndMiB: number;
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

/** The least-squares line through (t, y) points, evaluated at the first and the last t. */
function fittedEnds(points: readonly (readonly [number, number])[]): [number, number] {
  const usable = points.filter(([, y]) => Number.isFinite(y));
  const n = usable.length;
  if (n === 0) return [NaN, NaN];
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / n;
  const tMean = mean(usable.map(([t]) => t));
  const yMean = mean(usable.map(([, y]) => y));
  const spread = usable.reduce((sum, [t]) => sum + (t - tMean) ** 2, 0);
  const slope = spread === 0 ? 0 : usable.reduce((sum, [t, y]) => sum + (t - tMean) * (y - yMean), 0) / spread;
  const at = (t: number): number => yMean + slope * (t - tMean);
  return [at(usable[0]?.[0] ?? tMean), at(usable[n - 1]?.[0] ?? tMean)];
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
  const [rssStart, rssEnd] = fittedEnds(measured.map((s) => [s.t, s.rss]));
  return {
    minutes: run.minutes,
    routers: run.routers,
    peers: run.peers,
    samples: samples.length,
    scrapes: scrapes.length,
    warmupSeconds: run.warmupSeconds,
    rssStartMiB: mib(rssStart),
    rssEndMiB: mib(rssEnd),
    rssLowStartMiB: mib(quantile(head.map((s) => s.rss), 0)),
    rssLowEndMiB: mib(quantile(tail.map((s) => s.rss), 0)),
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
