/**
 * `npm run bench`: the emulator at scale, the exporter (dist/) collecting from it, and in one run the
 * exporter's /metrics (plain and gzip) next to a static buffer of the same bytes (the machine's limit)
 * and a naive prom-client exporter fed the same series. Prints figures; never fails on timing.
 * Every server is its own process, so the exporter's CPU and memory are read from /proc for it alone.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import { ask, forkChild, nextReply, startEmulatorChild, stopChild } from './children.js';
import { unusedPort } from '../test/helpers/ports.js';
import { startExporter, waitReady } from './exporter.js';
import type { FetchStats } from './ipc.js';
import { runFleet } from './fleet.js';
import { runBigReply } from './big-reply.js';
import { parseOptions, type BenchOptions } from './options.js';
import { sampleProcess } from './proc.js';
import { report, type Figures, type Timings } from './report.js';
import { fetchBody, percentile, scrape, target, type Target } from './scrape.js';

const MB = 1024 * 1024;
/** Seconds between gzip scrapes in the phase that scrapes as Prometheus does. */
const PROMETHEUS_EVERY_S = 2;

async function fetchStats(emulator: ChildProcess): Promise<{ stats: FetchStats; connections: number }> {
  const reply = nextReply(emulator, 'stats', 30_000);
  ask(emulator, { type: 'stats' });
  const { stats, connections } = await reply;
  return { stats, connections };
}

function statsDelta(before: FetchStats, after: FetchStats): FetchStats {
  const out: FetchStats = {};
  for (const [path, now] of Object.entries(after)) {
    const then = before[path] ?? { requests: 0, bytes: 0 };
    if (now.requests > then.requests) out[path] = { requests: now.requests - then.requests, bytes: now.bytes - then.bytes };
  }
  return out;
}

/** Series = sample lines (neither comments nor blank). */
function countSeries(text: Buffer): number {
  let series = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf(10, start);
    if (end === -1) end = text.length;
    if (end > start && text[start] !== 0x23) series++;
    start = end + 1;
  }
  return series;
}

/** One warm-up scrape per target (connection, first render), then `rounds` rounds over all of them. */
async function scrapeRounds(targets: readonly Target[], rounds: number, timings: Timings, bytes: Map<string, number>): Promise<void> {
  step(`scrapes: ${rounds} rounds over ${targets.map((t) => t.name).join(', ')}`);
  for (const t of targets) {
    await scrape(t);
    timings.set(t.name, []);
  }
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const result = await scrape(t);
      timings.get(t.name)?.push(result.ms);
      bytes.set(t.name, result.bytes);
    }
  }
  for (const t of targets) t.agent.destroy();
}

function step(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

async function run(options: BenchOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-bench-'));
  const children: (ChildProcess | undefined)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const child of children.reverse()) await stopChild(child);
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    step(`emulator: ${options.routers} routers × ${options.peers} peers over ${options.interfaces} interfaces`);
    const { emulator, routers, caFile } = await startEmulatorChild([options.routers, options.interfaces, options.peers], dir, children);

    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}`;
    const interval = options.scheduleSeconds;
    step(`exporter: node ${options.main ?? 'dist/main.js'}, every collector every ${interval} s, on ${url}`);
    const plan = { routers, caFile, port, scheduleSeconds: interval, pingCount: options.pingCount, pingIntervalMs: options.pingIntervalMs };
    const exporter = startExporter(dir, plan, options.main);
    children.push(exporter);
    const pid = exporter.pid ?? 0;
    const readySeconds = await waitReady(url, exporter, 300_000);
    step(`ready after ${readySeconds.toFixed(1)} s (every job tried once); warming up for one more cycle`);
    // One more whole cycle, jitter included (at most a quarter of the interval, at most 5 s).
    await sleep((interval + Math.min(5, interval / 4) + 1) * 1000);
    // A gzip scrape now, as Prometheus makes them: the one after the quiet cycles then deflates only what changed.
    await fetchBody(`${url}/metrics`, true);

    const warm = sampleProcess(pid);
    const fetchedBefore = await fetchStats(emulator);
    step(`collection: ${options.cycles} cycles of ${interval} s, no scrapes`);
    await sleep(options.cycles * interval * 1000);
    const afterCycles = sampleProcess(pid);
    const fetchedAfter = await fetchStats(emulator);
    const fetched = statsDelta(fetchedBefore.stats, fetchedAfter.stats);
    const connections = fetchedAfter.connections - fetchedBefore.connections;

    step('scrapes: copying the exposition to the baselines');
    const afterCyclesGzipStarted = performance.now();
    const gzipBody = await fetchBody(`${url}/metrics`, true);
    const gzipAfterCyclesMs = performance.now() - afterCyclesGzipStarted;
    // The plain text from the gzip body, not from a plain scrape: the exporter inflates a plain form only when a
    // plain scrape asks, and the next phase measures its memory as Prometheus (gzip only) leaves it.
    const plainBody = gunzipSync(gzipBody);
    const plainFile = join(dir, 'metrics.txt');
    const gzipFile = join(dir, 'metrics.txt.gz');
    writeFileSync(plainFile, plainBody);
    writeFileSync(gzipFile, gzipBody);
    const series = countSeries(plainBody);
    // What a gzip scrape would cost if it compressed the whole body each time (level 1, as the exporter).
    const deflateStarted = performance.now();
    deflateRawSync(plainBody, { level: 1 });
    const fullDeflateMs = performance.now() - deflateStarted;

    step(`as Prometheus scrapes: gzip every ${PROMETHEUS_EVERY_S} s for ${interval} s (one more collection)`);
    const timings: Timings = new Map();
    const prometheusTimes: number[] = [];
    const prometheus = target('exporter gzip', `${url}/metrics`, true);
    for (let at = 0; at < interval; at += PROMETHEUS_EVERY_S) {
      const started = performance.now();
      prometheusTimes.push((await scrape(prometheus)).ms);
      await sleep(Math.max(0, PROMETHEUS_EVERY_S * 1000 - (performance.now() - started)));
    }
    prometheus.agent.destroy();
    const asPrometheus = sampleProcess(pid);

    const staticServer = forkChild('static-child.ts', [plainFile, gzipFile]);
    children.push(staticServer);
    const staticUrl = (await nextReply(staticServer, 'listening', 60_000)).url;
    const bytes = new Map<string, number>();
    // The exporter and its limit in alternating rounds, so noise (collections included) hits both alike.
    await scrapeRounds(
      [
        target('exporter', `${url}/metrics`, false),
        target('exporter gzip', `${url}/metrics`, true),
        target('static', `${staticUrl}/plain`, false),
        target('static gzip', `${staticUrl}/gzip`, true),
      ],
      options.scrapes,
      timings,
      bytes,
    );
    const end = sampleProcess(pid);
    await stopChild(staticServer);

    let naiveCycleMs: number | undefined;
    if (options.naive) {
      // Started only now: its .set() cycles would otherwise take CPU from the rounds above.
      step('naive prom-client baseline: loading the same series');
      const naive = forkChild('naive-child.ts', [plainFile, String(interval)], { maxOldSpaceMb: 8192 });
      children.push(naive);
      const listening = await nextReply(naive, 'listening', 600_000);
      naiveCycleMs = listening.cycleMs;
      await scrapeRounds([target('naive prom-client', listening.url, false)], options.scrapes, timings, bytes);
      await stopChild(naive);
    }

    const p50 = (name: string): number => percentile(timings.get(name) ?? [], 50);
    const cycleCpuSeconds = (afterCycles.cpuSeconds - warm.cpuSeconds) / options.cycles;
    const figures: Figures = {
      options,
      readySeconds,
      timings,
      bytes,
      series,
      plainBytes: plainBody.length,
      gzipBytes: gzipBody.length,
      gzipAfterCyclesMs,
      fullDeflateMs,
      prometheusTimes,
      rssWarmMb: warm.rssBytes / MB,
      rssPrometheusMb: asPrometheus.rssBytes / MB,
      rssPrometheusPeakMb: asPrometheus.peakRssBytes / MB,
      rssEndMb: end.rssBytes / MB,
      rssPeakMb: end.peakRssBytes / MB,
      cycleCpuMs: cycleCpuSeconds * 1000,
      cpuShareOfCore: cycleCpuSeconds / interval,
      fetched,
      connections,
      naiveCycleMs,
      ratios: { staticFactor: p50('exporter') / p50('static'), naiveFactor: p50('naive prom-client') / p50('exporter') },
    };
    report(figures);
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
(options.bigReply ? runBigReply(options) : options.fleet ? runFleet(options) : run(options)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
