/**
 * `npm run bench -- --fleet`: the shape ISPs and MSPs run (issue 14) — many routers with a few tunnels each,
 * system + wireguard on one schedule, no pings. Prints what a fleet costs per cycle: collection CPU, new TLS
 * connections (full handshakes vs resumptions, counted by the emulator), memory per router, how long after the
 * tick the last router is collected, the first plain scrape after a collection and repeated plain scrapes
 * against a static buffer of the same bytes; then the `BENCH {json}` line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import { ask, forkChild, nextReply, startEmulatorChild, stopChild } from './children.js';
import { unusedPort } from '../test/helpers/ports.js';
import { exporterRuntime, startExporter, waitReady } from './exporter.js';
import { KEEP_WARM_PATH, type ChildReply } from './ipc.js';
import type { BenchOptions } from './options.js';
import { sampleProcess } from './proc.js';
import { fetchBody, percentile, scrape, target } from './scrape.js';
import { referenceCpuMs } from './reference.js';

const MB = 1024 * 1024;
type Stats = Extract<ChildReply, { type: 'stats' }>;

function step(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

async function emulatorStats(emulator: ChildProcess): Promise<Stats> {
  const reply = nextReply(emulator, 'stats', 30_000);
  ask(emulator, { type: 'stats' });
  return reply;
}

/** Sleeps until `offsetMs` past the next multiple of the schedule on the wall clock (where cron ticks fall). */
async function untilAfterTick(intervalMs: number, offsetMs: number): Promise<number> {
  const now = Date.now();
  const tick = now - (now % intervalMs) + intervalMs;
  await sleep(tick + offsetMs - now);
  return tick;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** Cycles the first plain scrape after a collection is measured over (one pair with the static buffer each). */
const FIRST_SCRAPES = 3;

export async function runFleet(options: BenchOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-fleet-'));
  const children: (ChildProcess | undefined)[] = [];
  const interval = options.scheduleSeconds;
  const intervalMs = interval * 1000;
  try {
    const shape = `${options.routers} routers × ${options.peers} peers over ${options.interfaces} interface(s)`;
    const hung =
      options.hung > 0
        ? `, ${options.hung} of them never answering`
        : options.outage > 0
          ? `, ${options.outage} of them stopping to answer as the measured cycles begin`
          : '';
    const routerSide = `keep-alive ${options.keepAliveSeconds ?? 30} s, resumption ${options.resumption ?? 'tickets'}${hung}`;
    // The machine's speed, before anything else of the bench runs (reference.ts).
    const reference = referenceCpuMs();
    const referenceMs = percentile(reference, 50);
    step(`reference workload: ${referenceMs.toFixed(0)} ms of CPU (median of ${reference.map((ms) => ms.toFixed(0)).join(', ')})`);
    step(`emulator: ${shape} (${routerSide})`);
    const args = [options.routers, options.interfaces, options.peers, options.keepAliveSeconds ?? '', options.resumption ?? '', interval, options.hung];
    const { emulator, routers, caFile } = await startEmulatorChild(args, dir, children);
    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}`;
    const jobs = options.fleetPing ? 'system + wireguard + 2 pings' : 'system + wireguard';
    step(`exporter: ${jobs} every ${interval} s on ${url}, idle_connection: ${options.idleConnection}`);
    const plan = { routers, caFile, port, scheduleSeconds: interval, pingCount: 1, pingIntervalMs: 10, fleet: true, fleetPing: options.fleetPing, idleConnection: options.idleConnection };
    const exporter = startExporter(dir, plan, options.main);
    children.push(exporter);
    const pid = exporter.pid ?? 0;
    const readySeconds = await waitReady(url, exporter, 600_000);
    step(`ready after ${readySeconds.toFixed(1)} s; warming up for two cycles (connections settle into their steady state)`);
    await untilAfterTick(intervalMs, intervalMs - 2_000);
    await untilAfterTick(intervalMs, intervalMs / 2);
    await fetchBody(`${url}/metrics`, true);

    // Measured from just before a tick, over whole cycles, with no scrapes.
    await untilAfterTick(intervalMs, -1_000);
    if (options.outage > 0) {
      const hanging = nextReply(emulator, 'hanging', 30_000);
      ask(emulator, { type: 'hang', routers: options.outage });
      await hanging;
    }
    const before = await emulatorStats(emulator);
    const warm = sampleProcess(pid);
    const firstTick = Date.now() + 1_000;
    step(`collection: ${options.cycles} cycles of ${interval} s, no scrapes`);
    // RSS sampled every second through the cycles: one sample moves by ±50 MB with the garbage collector's timing.
    const rssSamples: number[] = [];
    const measuredUntil = Date.now() + options.cycles * intervalMs;
    while (Date.now() < measuredUntil) {
      rssSamples.push(sampleProcess(pid).rssBytes / MB);
      await sleep(Math.min(1_000, Math.max(0, measuredUntil - Date.now())));
    }
    const after = await emulatorStats(emulator);
    const collected = sampleProcess(pid);
    const cycleCpuSeconds = (collected.cpuSeconds - warm.cpuSeconds) / options.cycles;
    const connections = (after.connections - before.connections) / options.cycles;
    const resumed = (after.resumed - before.resumed) / options.cycles;
    const measured = ([tick]: [string, number]): boolean =>
      Number(tick) >= firstTick - 1_500 && Number(tick) < firstTick + options.cycles * intervalMs - 1_500;
    const afterTick = Object.entries(after.lastReplyAfterTickMs).filter(measured).map(([, ms]) => ms);
    // Of the routers that answer, how many were collected in each measured cycle (all of them, unless others starve them).
    const collectedRouters = Object.entries(after.peerListsByTick).filter(measured).map(([, count]) => count);
    let requests = 0;
    for (const [path, entry] of Object.entries(after.stats)) requests += entry.requests - (before.stats[path]?.requests ?? 0);
    const keepWarm = (after.stats[KEEP_WARM_PATH]?.requests ?? 0) - (before.stats[KEEP_WARM_PATH]?.requests ?? 0);

    // The body as Prometheus fetches it, now that the measured cycles are over; the static server serves these bytes.
    const gzipBody = await fetchBody(`${url}/metrics`, true);
    const plainBody = gunzipSync(gzipBody);
    const deflatedOnce = deflateRawSync(plainBody, { level: 1 }).length;
    const scraped = sampleProcess(pid);

    const plainFile = join(dir, 'metrics.txt');
    const gzipFile = join(dir, 'metrics.txt.gz');
    writeFileSync(plainFile, plainBody);
    writeFileSync(gzipFile, gzipBody);
    const staticServer = forkChild('static-child.ts', [plainFile, gzipFile]);
    children.push(staticServer);
    const staticUrl = (await nextReply(staticServer, 'listening', 60_000)).url;
    // Connections that already scraped, as Prometheus's is; a new connection's first scrape also measured the
    // connection and the first plain render the process ever did, not the collection that landed before it.
    const plain = target('exporter', `${url}/metrics`, false);
    const buffer = target('static', `${staticUrl}/plain`, false);
    await scrape(plain);
    await scrape(buffer);

    // The first plain scrape after a collection: just after a cycle's last reply (+1 s for the run to record), once
    // per cycle for FIRST_SCRAPES cycles, each beside the static buffer's first scrape after the same idle (a
    // transfer after an idle spell is slower for any server: TCP restarts slow start after idle), in turn first
    // and second. One pair, as before the eighth round, moved from 1.2 to 2.5 × between runs of the same code.
    const lastAfterTick = Math.max(...afterTick, 0);
    const first = { plain: [] as number[], static: [] as number[], idleMs: [] as number[] };
    for (let pair = 0; pair < FIRST_SCRAPES; pair++) {
      const idleSince = performance.now();
      await untilAfterTick(intervalMs, lastAfterTick + 1_000);
      first.idleMs.push(performance.now() - idleSince);
      if (pair % 2 === 0) {
        first.plain.push((await scrape(plain)).ms);
        first.static.push((await scrape(buffer)).ms);
      } else {
        first.static.push((await scrape(buffer)).ms);
        first.plain.push((await scrape(plain)).ms);
      }
    }

    const times = { plain: [] as number[], static: [] as number[] };
    await scrape(plain);
    await scrape(buffer);
    for (let round = 0; round < options.scrapes; round++) {
      times.plain.push((await scrape(plain)).ms);
      times.static.push((await scrape(buffer)).ms);
    }
    plain.agent.destroy();
    buffer.agent.destroy();
    const end = sampleProcess(pid);

    const series = plainBody.toString('latin1').split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    const rssMb = collected.rssBytes / MB;
    const json = {
      fleet: true,
      routers: options.routers,
      peers: options.peers,
      interfaces: options.interfaces,
      schedule_s: interval,
      router_keep_alive_s: options.keepAliveSeconds ?? 30,
      router_resumption: options.resumption ?? 'tickets',
      idle_connection: options.idleConnection,
      ...(options.fleetPing ? { ping_targets: 2 } : {}),
      cycles: options.cycles,
      cycle_cpu_ms: round(cycleCpuSeconds * 1000, 0),
      cpu_pct_of_core: round((cycleCpuSeconds / interval) * 100, 1),
      cycle_system_ms: round(((collected.systemSeconds - warm.systemSeconds) / options.cycles) * 1000, 0),
      cycle_main_thread_ms: round(((collected.mainThreadSeconds - warm.mainThreadSeconds) / options.cycles) * 1000, 0),
      tls_connections_per_cycle: round(connections, 1),
      tls_full_handshakes_per_cycle: round(connections - resumed, 1),
      tls_resumed_per_cycle: round(resumed, 1),
      requests_per_cycle: round(requests / options.cycles, 1),
      keep_warm_requests_per_cycle: round(keepWarm / options.cycles, 1),
      collected_all_after_tick_ms: afterTick.map((ms) => Math.round(ms)),
      hung_routers: options.hung,
      outage_routers: options.outage,
      collected_routers_per_cycle: collectedRouters,
      rss_mb: round(rssMb, 1),
      rss_peak_mb: round(collected.peakRssBytes / MB, 1),
      rss_per_router_kb: round((collected.rssBytes / options.routers) / 1024, 0),
      rss_median_mb: round(percentile(rssSamples, 50), 1),
      rss_min_mb: round(Math.min(...rssSamples), 1),
      rss_max_mb: round(Math.max(...rssSamples), 1),
      rss_after_scrapes_mb: round(end.rssBytes / MB, 1),
      rss_scraped_gzip_mb: round(scraped.rssBytes / MB, 1),
      series,
      bytes: plainBody.length,
      gzip_bytes: gzipBody.length,
      deflate_once_bytes: deflatedOnce,
      gzip_vs_deflate_once: round(gzipBody.length / deflatedOnce),
      first_plain_after_collection_ms: round(percentile(first.plain, 50), 1),
      static_first_after_idle_ms: round(percentile(first.static, 50), 1),
      first_plain_after_collection_samples_ms: first.plain.map((ms) => round(ms, 1)),
      static_first_after_idle_samples_ms: first.static.map((ms) => round(ms, 1)),
      idle_before_first_plain_s: round(percentile(first.idleMs, 50) / 1000, 1),
      scrape_p50_ms: round(percentile(times.plain, 50)),
      static_p50_ms: round(percentile(times.static, 50)),
      static_factor: round(percentile(times.plain, 50) / percentile(times.static, 50)),
      ready_s: round(readySeconds, 1),
      reference_cpu_ms: round(referenceMs, 1),
      reference_cpu_samples_ms: reference.map((ms) => round(ms, 1)),
      ...exporterRuntime(),
    };
    console.log(
      [
        '',
        `fleet      ${shape}, ${jobs} every ${interval} s; routers: ${routerSide}`,
        `collection CPU ${json.cycle_cpu_ms} ms per cycle = ${json.cpu_pct_of_core} % of one core; ${json.requests_per_cycle} requests per cycle (${json.keep_warm_requests_per_cycle} of them keep-warm reads)`,
        `           of it in the kernel ${json.cycle_system_ms} ms, on the main thread ${json.cycle_main_thread_ms} ms (the rest on V8's and libuv's helper threads)`,
        `machine    reference workload ${json.reference_cpu_ms} ms of CPU: collection CPU per cycle = ${round(json.cycle_cpu_ms / json.reference_cpu_ms, 1)} reference workloads`,
        `TLS        per cycle: ${json.tls_connections_per_cycle} new connections, ${json.tls_full_handshakes_per_cycle} full handshakes, ${json.tls_resumed_per_cycle} resumed`,
        `tick       every router collected ${json.collected_all_after_tick_ms.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s after the tick`,
        `           routers collected per cycle: ${collectedRouters.join(', ')} of the ${options.routers - options.hung - options.outage} that answer`,
        `memory     RSS ${json.rss_mb} MB (peak ${json.rss_peak_mb}) = ${json.rss_per_router_kb} KiB per router; after scrapes ${json.rss_after_scrapes_mb} MB`,
        `           RSS through the cycles, sampled every second: median ${json.rss_median_mb} MB (${json.rss_min_mb}–${json.rss_max_mb})`,
        `exposition ${series} series, ${(plainBody.length / MB).toFixed(2)} MB plain, gzip ${(gzipBody.length / MB).toFixed(2)} MB vs ${(deflatedOnce / MB).toFixed(2)} MB deflated once (${json.gzip_vs_deflate_once} ×)`,
        `scrapes    first plain after a collection, median of ${FIRST_SCRAPES} cycles: ${json.first_plain_after_collection_ms} ms (${json.first_plain_after_collection_samples_ms.join(', ')}); static after the same ~${json.idle_before_first_plain_s} s idle: ${json.static_first_after_idle_ms} ms (${json.static_first_after_idle_samples_ms.join(', ')})`,
        `           plain p50 ${json.scrape_p50_ms} ms vs static ${json.static_p50_ms} ms (${json.static_factor} ×)`,
        '',
      ].join('\n'),
    );
    console.log(`BENCH ${JSON.stringify(json)}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
