/**
 * `npm run bench -- --big-reply`: one router whose peer list is near the reply cap (80,000 peers, ~25 MB of
 * JSON). How long the exporter's event loop is held while it reads, parses, maps and stores that reply, which is
 * how long every scrape and every other router's run waits: the exporter's own worst event-loop delay over a
 * cycle (its nodejs_eventloop_lag_max_seconds, reset by a scrape just before the tick), the worst wait of a cheap
 * request sent every 10 ms through the cycle (/-/healthy), and the run's duration; then the `BENCH {json}` line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ask, nextReply, startEmulatorChild, stopChild } from './children.js';
import { unusedPort } from '../test/helpers/ports.js';
import { exporterRuntime, startExporter, waitReady } from './exporter.js';
import type { BenchOptions } from './options.js';

const PEER_LIST_PATH = 'GET /rest/interface/wireguard/peers';

function step(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

/** A sample's value in an exposition, NaN when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

export async function runBigReply(options: BenchOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-big-reply-'));
  const children: (ChildProcess | undefined)[] = [];
  const intervalMs = options.scheduleSeconds * 1000;
  try {
    step(`emulator: 1 router × ${options.peers} peers over ${options.interfaces} interfaces`);
    const { emulator, routers, caFile } = await startEmulatorChild([1, options.interfaces, options.peers, '', '', options.scheduleSeconds], dir, children);
    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}`;
    const exporter = startExporter(dir, { routers, caFile, port, scheduleSeconds: options.scheduleSeconds, pingCount: 1, pingIntervalMs: 10, fleet: true }, options.main);
    children.push(exporter);
    step(`exporter ready after ${(await waitReady(url, exporter, 120_000)).toFixed(1)} s (its first collection)`);
    // Just before the next tick: a scrape resets the exporter's event-loop delay histogram (prom-client's default).
    const now = Date.now();
    const tick = now - (now % intervalMs) + intervalMs;
    await sleep(Math.max(0, tick - 1_000 - now));
    await (await fetch(`${url}/metrics`)).text();
    step('measuring one collection: /-/healthy every 10 ms');
    let worstWaitMs = 0;
    let requests = 0;
    const end = tick + Math.min(intervalMs - 2_000, 20_000);
    while (Date.now() < end) {
      const sent = performance.now();
      await (await fetch(`${url}/-/healthy`)).arrayBuffer();
      worstWaitMs = Math.max(worstWaitMs, performance.now() - sent);
      requests++;
      await sleep(10);
    }
    const text = await (await fetch(`${url}/metrics`)).text();
    const statsReply = nextReply(emulator, 'stats', 30_000);
    ask(emulator, { type: 'stats' });
    const stats = await statsReply;
    const fetched = stats.stats[PEER_LIST_PATH];
    const replyBytes = fetched === undefined || fetched.requests === 0 ? Number.NaN : fetched.bytes / fetched.requests;
    const router = routers[0]?.name ?? '';
    const figures = {
      mode: 'big-reply',
      peers: options.peers,
      reply_mb: Number((replyBytes / 1024 / 1024).toFixed(1)),
      collected: sample(text, `routeros_collector_success{router="${router}",collector="wireguard"}`) === 1,
      wireguard_run_s: Number(sample(text, `routeros_collector_duration_seconds{router="${router}",collector="wireguard"}`).toFixed(2)),
      event_loop_delay_max_ms: Math.round(sample(text, 'nodejs_eventloop_lag_max_seconds') * 1000),
      healthy_wait_max_ms: Math.round(worstWaitMs),
      healthy_requests: requests,
      ...exporterRuntime(),
    };
    console.log(`\none router, ${options.peers} peers in a ${figures.reply_mb} MB reply, collected: ${figures.collected ? 'yes' : 'NO'}`);
    console.log(`  wireguard run                        ${figures.wireguard_run_s} s`);
    console.log(`  exporter's worst event-loop delay    ${figures.event_loop_delay_max_ms} ms`);
    console.log(`  worst /-/healthy wait (${requests} sent)    ${figures.healthy_wait_max_ms} ms`);
    console.log(`BENCH ${JSON.stringify(figures)}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
