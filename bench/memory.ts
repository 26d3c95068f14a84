/**
 * Where the exporter's memory goes, at the bench shape: the emulator and the exporter (dist/) in their own
 * processes as `npm run bench` runs them, collections for a while with gzip scrapes as Prometheus makes them,
 * then the exporter's own Node.js figures (heap spaces, external memory: prom-client's default metrics on its
 * /metrics) beside /proc's RSS, the exposition's bytes per family, and with --heap-snapshot a V8 heap snapshot
 * (SIGUSR2) summarised by what holds the bytes. A tool for finding a cost, not a benchmark: it prints, never fails.
 *
 * With --allocation, what the exporter allocates per cycle by function (bench/allocation.ts), sampled over the
 * cycles after the first; with --survivors as well, only what outlived V8's young generation (promoted to the old
 * one, whose growth sets when V8 collects in full).
 *
 *   npx tsx bench/memory.ts [--routers 100] [--peers 1000] [--schedule 30] [--cycles 2] [--heap-snapshot]
 *                           [--save-snapshot FILE] [--main path/to/dist/main.js] [--fleet [--ping]] [--allocation [--survivors]]
 *
 * --ping gives every router of the fleet shape the scale scenario's two ping targets (one run each per cycle).
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import { startEmulatorChild, stopChild } from './children.js';
import { startExporter, waitReady } from './exporter.js';
import { fetchBody } from './scrape.js';
import { sampleProcess } from './proc.js';
import { unusedPort } from '../test/helpers/ports.js';
import { summariseHeapSnapshot } from './heap-summary.js';
import { printAllocations, sampleAllocations } from './allocation.js';

const { values } = parseArgs({
  options: {
    routers: { type: 'string' },
    peers: { type: 'string' },
    schedule: { type: 'string' },
    cycles: { type: 'string' },
    main: { type: 'string' },
    fleet: { type: 'boolean' },
    ping: { type: 'boolean' },
    'heap-snapshot': { type: 'boolean' },
    'save-snapshot': { type: 'string' },
    allocation: { type: 'boolean' },
    survivors: { type: 'boolean' },
  },
});
const fleet = values.fleet === true;
const routers = Number(values.routers ?? (fleet ? 2000 : 100));
const peers = Number(values.peers ?? (fleet ? 4 : 1000));
const interfaces = fleet ? 1 : 4;
const schedule = Number(values.schedule ?? 30);
const cycles = Number(values.cycles ?? 2);
const MB = 1024 * 1024;

/** The value of an unlabelled (or first matching) sample of `name` in a text exposition. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const match = new RegExp(`^${name}${labels === '' ? '' : `\\{${labels}\\}`} (\\S+)$`, 'm').exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** Plain bytes and sample lines per family, in exposition order. */
function families(text: string): { name: string; series: number; bytes: number }[] {
  const out = new Map<string, { name: string; series: number; bytes: number }>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const name = /^[^{ ]+/.exec(line)?.[0] ?? '?';
    const entry = out.get(name) ?? { name, series: 0, bytes: 0 };
    entry.series++;
    entry.bytes += line.length + 1;
    out.set(name, entry);
  }
  return [...out.values()].sort((a, b) => b.bytes - a.bytes);
}

/** A mapping of /proc/<pid>/smaps: its path ('' when anonymous, `[heap]` for brk), size and resident bytes. */
interface Mapping {
  path: string;
  size: number;
  rss: number;
}

function mappings(pid: number): Mapping[] {
  const found: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      current = { path: header[3] ?? '', size: parseInt(header[2] ?? '0', 16) - parseInt(header[1] ?? '0', 16), rss: 0 };
      found.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null && current !== undefined) current.rss = Number(rss[1]) * 1024;
  }
  return found;
}

/** RSS by kind of mapping: file-backed (binary, libraries), the brk heap (malloc), other anonymous (V8 pages, mmapped malloc chunks, thread stacks). */
function smapsSummary(found: readonly Mapping[]): string {
  const totals = { file: 0, brk: 0, anonymous: 0 };
  for (const { path, rss } of found) totals[path === '[heap]' ? 'brk' : path.startsWith('/') ? 'file' : 'anonymous'] += rss;
  return `file-backed ${(totals.file / MB).toFixed(0)} MB, brk heap (malloc) ${(totals.brk / MB).toFixed(0)} MB, other anonymous (V8 pages, mmapped malloc) ${(totals.anonymous / MB).toFixed(0)} MB`;
}

/**
 * The anonymous mappings holding the most RSS, grouped by size: V8's pages come in 256 KiB mappings, a glibc
 * thread arena in one region of up to 64 MiB (its unused tail mapped without access, so it shows as two mappings
 * back to back), mmapped malloc chunks at their own size.
 */
function largestAnonymous(found: readonly Mapping[], count = 8): string[] {
  const bySize = new Map<number, { mappings: number; rss: number }>();
  for (const mapping of found) {
    if (mapping.path !== '') continue;
    const entry = bySize.get(mapping.size) ?? { mappings: 0, rss: 0 };
    entry.mappings++;
    entry.rss += mapping.rss;
    bySize.set(mapping.size, entry);
  }
  return [...bySize.entries()]
    .sort((a, b) => b[1].rss - a[1].rss)
    .slice(0, count)
    .map(([size, { mappings, rss }]) => `${mappings} × ${(size / 1024).toFixed(0)} KiB: ${(rss / MB).toFixed(1)} MB resident`);
}

const dir = mkdtempSync(join(tmpdir(), 'routeros-memory-'));
const children: ChildProcess[] = [];
try {
  const ready = await startEmulatorChild([routers, interfaces, peers], dir, children);
  const caFile = ready.caFile;
  const port = await unusedPort();
  const url = `http://127.0.0.1:${port}`;
  // The exporter writes a heap snapshot into its working directory on SIGUSR2.
  process.env['NODE_OPTIONS'] = `${process.env['NODE_OPTIONS'] ?? ''} --heapsnapshot-signal=SIGUSR2`.trim();
  const inspectPort = values.allocation === true ? await unusedPort() : undefined;
  if (inspectPort !== undefined) {
    // The exporter's own inspector, on loopback, for the allocation sampler.
    process.env['BENCH_EXPORTER_NODE_ARGS'] = `${process.env['BENCH_EXPORTER_NODE_ARGS'] ?? ''} --inspect=127.0.0.1:${inspectPort}`.trim();
  }
  const cwd = process.cwd();
  process.chdir(dir);
  const exporter = startExporter(dir, { routers: ready.routers, caFile, port, scheduleSeconds: schedule, pingCount: 2, pingIntervalMs: 500, fleet, fleetPing: values.ping === true }, values.main);
  process.chdir(cwd);
  children.push(exporter);
  const pid = exporter.pid ?? 0;
  console.log(`${routers} routers × ${peers} peers, every ${schedule} s; ready after ${(await waitReady(url, exporter, 600_000)).toFixed(1)} s`);
  // Sampled over the cycles after the first (connections settled), beside the scrapes.
  const warmSeconds = cycles > 1 ? schedule : 0;
  const sampledSeconds = Math.max(1, cycles - 1) * schedule;
  const allocations = inspectPort === undefined ? undefined : sleep(warmSeconds * 1000).then(() => sampleAllocations(inspectPort, sampledSeconds, values.survivors === true));
  // Its failure is reported where it is awaited, after the scrapes, not as an unhandled rejection meanwhile.
  allocations?.catch(() => undefined);
  for (let at = 0; at < cycles * schedule; at += 2) {
    await fetchBody(`${url}/metrics`, true);
    await sleep(2000);
  }
  if (allocations !== undefined) printAllocations(await allocations, sampledSeconds, schedule, values.survivors === true);
  const body = gunzipSync(await fetchBody(`${url}/metrics`, true)).toString('utf8');
  const proc = sampleProcess(pid);
  const space = (name: string, figure: 'used' | 'total' = 'used'): number => (sample(body, `nodejs_heap_space_size_${figure}_bytes`, `space="${name}"`) ?? 0) / MB;
  const used = (name: string): string => `${space(name).toFixed(1)} (of ${space(name, 'total').toFixed(1)} committed)`;
  const heapUsed = (sample(body, 'nodejs_heap_size_used_bytes') ?? 0) / MB;
  const heapTotal = (sample(body, 'nodejs_heap_size_total_bytes') ?? 0) / MB;
  const external = (sample(body, 'nodejs_external_memory_bytes') ?? 0) / MB;
  const fams = families(body);
  const series = fams.reduce((sum, f) => sum + f.series, 0);
  console.log(`RSS ${(proc.rssBytes / MB).toFixed(0)} MB (peak ${(proc.peakRssBytes / MB).toFixed(0)}), V8 heap used ${heapUsed.toFixed(1)} of ${heapTotal.toFixed(1)} MB committed`);
  console.log(`  old space ${used('old')}, new ${used('new')}, code ${used('code')}, large objects ${used('large_object')} MB`);
  console.log(`  external (Buffers, zlib output) ${external.toFixed(1)} MB`);
  const gc = (kind: string, figure: 'count' | 'sum'): number => sample(body, `nodejs_gc_duration_seconds_${figure}`, `kind="${kind}"`) ?? 0;
  console.log(`  garbage collections since start: ${['major', 'minor', 'incremental'].map((kind) => `${kind} ${gc(kind, 'count')} (${gc(kind, 'sum').toFixed(2)} s)`).join(', ')}`);
  const found = mappings(pid);
  console.log(`  RSS by mapping: ${smapsSummary(found)}`);
  console.log(`  anonymous mappings by size: ${largestAnonymous(found).join('; ')}`);
  console.log(`exposition: ${series} series, ${(body.length / MB).toFixed(1)} MB plain; by family (plain MB, series):`);
  for (const f of fams.slice(0, 20)) console.log(`  ${f.name.padEnd(70)} ${(f.bytes / MB).toFixed(1).padStart(6)} ${String(f.series).padStart(8)}`);
  if (values['heap-snapshot'] === true) {
    exporter.kill('SIGUSR2');
    // Writing takes a while; the file appears complete when the exporter answers again.
    let file: string | undefined;
    for (let waited = 0; waited < 300 && file === undefined; waited++) {
      await sleep(1000);
      const found = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot'));
      if (found !== undefined) {
        await fetchBody(`${url}/-/ready`, false).catch(() => undefined);
        file = join(dir, found);
      }
    }
    if (file !== undefined) {
      // Writing a snapshot runs a full collection first: what the heap and the Buffers hold when garbage is gone
      // tells what was live from what was only waiting for V8 (dead Buffers count as external until then). Read
      // once the snapshot is written: collections go on meanwhile, so at fleet shape (seconds of writing) the
      // snapshot's own summary below is the steadier figure.
      const after = gunzipSync(await fetchBody(`${url}/metrics`, true)).toString('utf8');
      const figure = (name: string): string => ((sample(after, name) ?? 0) / MB).toFixed(1);
      console.log(`after the snapshot's full collection: V8 heap used ${figure('nodejs_heap_size_used_bytes')} of ${figure('nodejs_heap_size_total_bytes')} MB committed, external ${figure('nodejs_external_memory_bytes')} MB, RSS ${(sampleProcess(pid).rssBytes / MB).toFixed(0)} MB`);
    }
    if (file === undefined) console.log('no heap snapshot was written');
    else if (values['save-snapshot'] !== undefined) copyFileSync(file, values['save-snapshot']);
    if (file !== undefined) summariseHeapSnapshot(JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof summariseHeapSnapshot>[0]);
  }
} finally {
  for (const child of children.reverse()) await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
