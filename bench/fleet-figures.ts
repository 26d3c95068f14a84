/**
 * The fleet figures of docs/performance.md (issue 14), made from recorded `npm run bench -- --fleet` runs:
 * bench/runs/fleet-<date>.json holds their `BENCH {json}` lines with the date, commit and conditions (the
 * `fleet-` prefix keeps these records apart from the main shape's, which bench/figures.ts reads). Written by
 * scripts/gen-performance-doc.ts between their own markers; a test keeps the doc and the newest record equal.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of a fleet `BENCH {json}` line (bench/fleet.ts) that the doc shows. */
export interface FleetLine {
  routers: number;
  peers: number;
  schedule_s: number;
  router_keep_alive_s: number;
  router_resumption: string;
  /** The exporter's `idle_connection` (recorded since 2026-11-25; before, always keep). */
  idle_connection?: string;
  cycle_cpu_ms: number;
  cpu_pct_of_core: number;
  /** Of the collection CPU, in the kernel and on the main thread (recorded since 2026-12-03's thirty-third round). */
  cycle_system_ms?: number;
  cycle_main_thread_ms?: number;
  tls_connections_per_cycle: number;
  tls_full_handshakes_per_cycle: number;
  tls_resumed_per_cycle: number;
  requests_per_cycle: number;
  /** Recorded since the keep-warm read (2026-11-24); older records have none. */
  keep_warm_requests_per_cycle?: number;
  collected_all_after_tick_ms: number[];
  rss_mb: number;
  rss_peak_mb: number;
  rss_per_router_kb: number;
  /** RSS sampled every second through the measured cycles (recorded since 2026-11-24's third round). */
  rss_median_mb?: number;
  rss_min_mb?: number;
  rss_max_mb?: number;
  series: number;
  gzip_bytes: number;
  deflate_once_bytes: number;
  first_plain_after_collection_ms: number;
  /** The static buffer's first scrape after as long an idle as the exporter's first plain one (since 2026-11-24's fifth round). */
  static_first_after_idle_ms?: number;
  /**
   * One pair per cycle over several cycles (since 2026-11-24's eighth round); the two figures above are then their
   * medians, before it a single pair.
   */
  first_plain_after_collection_samples_ms?: number[];
  static_first_after_idle_samples_ms?: number[];
  scrape_p50_ms: number;
  static_p50_ms: number;
  /** The Node.js the exporter ran on and the options it got (recorded since 2026-11-24's sixth round). */
  node?: string;
  node_options?: string;
  /** Variables set for the exporter's process alone (BENCH_EXPORTER_ENV), e.g. the image's allocator setting. */
  exporter_env?: string;
  /** The machine's speed: CPU of bench/reference.ts's fixed workload, the median of its rounds (since 2026-11-29's seventeenth round). */
  reference_cpu_ms?: number;
}

export interface FleetRun {
  label: string;
  note?: string;
  bench: FleetLine;
}

export interface FleetFile {
  date: string;
  commit: string;
  conditions: string;
  runs: FleetRun[];
}

const RUNS_DIR = new URL('./runs/', import.meta.url);
const NUMBERS: (keyof FleetLine)[] = [
  'routers', 'peers', 'schedule_s', 'router_keep_alive_s', 'cycle_cpu_ms', 'cpu_pct_of_core', 'tls_connections_per_cycle',
  'tls_full_handshakes_per_cycle', 'tls_resumed_per_cycle', 'requests_per_cycle', 'rss_mb', 'rss_peak_mb', 'rss_per_router_kb', 'series', 'gzip_bytes',
  'deflate_once_bytes', 'first_plain_after_collection_ms', 'scrape_p50_ms', 'static_p50_ms',
];

export function parseFleetFile(text: string, name: string): FleetFile {
  const file = JSON.parse(text) as FleetFile;
  if (typeof file.date !== 'string' || typeof file.commit !== 'string' || !Array.isArray(file.runs) || file.runs.length === 0) {
    throw new Error(`${name}: needs date, commit, conditions and at least one run`);
  }
  for (const run of file.runs) {
    for (const key of NUMBERS) {
      if (typeof run.bench[key] !== 'number') throw new Error(`${name}: ${run.label}: ${key} is not a number`);
    }
    if (!Array.isArray(run.bench.collected_all_after_tick_ms)) throw new Error(`${name}: ${run.label}: collected_all_after_tick_ms is not a list`);
  }
  return file;
}

export function latestFleetFile(dir: URL = RUNS_DIR): { name: string; file: FleetFile } | undefined {
  const name = readdirSync(dir)
    .filter((entry) => /^fleet-\d{4}-\d{2}-\d{2}.*\.json$/.test(entry))
    .sort()
    .at(-1);
  return name === undefined ? undefined : { name, file: parseFleetFile(readFileSync(new URL(name, dir), 'utf8'), name) };
}

export const FLEET_BEGIN = '<!-- fleet figures: generated from bench/runs/fleet-*.json by `npx tsx scripts/gen-performance-doc.ts` -->';
export const FLEET_END = '<!-- end of generated fleet figures -->';

const thousands = (value: number): string => value.toLocaleString('en-US');
const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const span = (values: readonly number[]): string => {
  const low = seconds(Math.min(...values));
  const high = seconds(Math.max(...values));
  return low === high ? low : `${low}–${high}`;
};

/** Routers one core collects at `schedule_s` with room to spare (half the core), from a run's CPU per router. */
export function routersPerCore(line: FleetLine): number {
  const cpuMsPerRouter = line.cycle_cpu_ms / line.routers;
  return Math.floor((line.schedule_s * 1000 * 0.5) / cpuMsPerRouter / 100) * 100;
}

/** A run's Node.js options and the exporter's own environment, as the table shows them after its version. */
function runtimeNotes(line: FleetLine): string {
  const notes = [line.node_options, line.exporter_env].filter((note): note is string => note !== undefined && note !== '').map((note) => `\`${note}\``);
  return notes.length === 0 ? '' : ` (${notes.join('; ')})`;
}

export function fleetFigures(name: string, file: FleetFile): string {
  const notes = file.runs.filter((run) => run.note !== undefined).map((run) => `${run.label}: ${run.note}`);
  const cells = (render: (line: FleetLine) => string): string => ` | ${file.runs.map((run) => render(run.bench)).join(' | ')} |`;
  const lines = [
    FLEET_BEGIN,
    `${file.date}, main at \`${file.commit}\`: ${file.conditions}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}. Recorded in \`bench/runs/${name}\`.`,
    '',
    `| | ${file.runs.map((run) => run.label).join(' | ')} |`,
    `|---|${file.runs.map(() => '---:').join('|')}|`,
    `| exporter's Node.js (options; environment)${cells((l) => (l.node === undefined ? 'not recorded' : `${l.node}${runtimeNotes(l)}`))}`,
    `| routers × peers, schedule | ${file.runs.map((r) => `${thousands(r.bench.routers)} × ${r.bench.peers}, ${r.bench.schedule_s} s`).join(' | ')} |`,
    `| routers' keep-alive, resumption | ${file.runs.map((r) => `${r.bench.router_keep_alive_s} s, ${r.bench.router_resumption}`).join(' | ')} |`,
    `| exporter's \`idle_connection\`${cells((l) => l.idle_connection ?? 'keep')}`,
    `| **collection CPU per cycle**${cells((l) => `**${seconds(l.cycle_cpu_ms)} s = ${l.cpu_pct_of_core} % of a core**`)}`,
    ...(file.runs.some((run) => run.bench.cycle_system_ms !== undefined)
      ? [`| of it: in the kernel / on the main thread${cells((l) => (l.cycle_system_ms === undefined || l.cycle_main_thread_ms === undefined ? 'not recorded' : `${seconds(l.cycle_system_ms)} s / ${seconds(l.cycle_main_thread_ms)} s`))}`]
      : []),
    `| the machine's speed: a fixed reference workload's CPU (collection CPU per cycle in reference workloads)${cells((l) => (l.reference_cpu_ms === undefined ? 'not measured' : `${Math.round(l.reference_cpu_ms)} ms (${(l.cycle_cpu_ms / l.reference_cpu_ms).toFixed(1)})`))}`,
    `| new TLS connections per cycle: full handshakes / resumed${cells((l) => `${thousands(Math.round(l.tls_full_handshakes_per_cycle))} / ${thousands(Math.round(l.tls_resumed_per_cycle))}`)}`,
    `| requests per cycle (of them keep-warm reads)${cells((l) => `${thousands(Math.round(l.requests_per_cycle))} (${l.keep_warm_requests_per_cycle === undefined ? 'not counted' : thousands(Math.round(l.keep_warm_requests_per_cycle))})`)}`,
    `| **every router collected after the tick**${cells((l) => `**${span(l.collected_all_after_tick_ms)} s**`)}`,
    `| **RSS (peak) / per router**${cells((l) => `**${Math.round(l.rss_mb)} (${Math.round(l.rss_peak_mb)}) MB / ${l.rss_per_router_kb} KiB**`)}`,
    `| RSS through the cycles, sampled every second: median (range)${cells((l) => (l.rss_median_mb === undefined ? 'not sampled' : `${Math.round(l.rss_median_mb)} (${Math.round(l.rss_min_mb ?? Number.NaN)}–${Math.round(l.rss_max_mb ?? Number.NaN)}) MB`))}`,
    `| series${cells((l) => thousands(l.series))}`,
    `| gzip body vs one deflate of the plain body${cells((l) => `${(l.gzip_bytes / 1024 / 1024).toFixed(2)} vs ${(l.deflate_once_bytes / 1024 / 1024).toFixed(2)} MB`)}`,
    `| first plain scrape after a collection (static buffer after as long an idle)${cells((l) => `${Math.round(l.first_plain_after_collection_ms)} ms (${l.static_first_after_idle_ms === undefined ? 'not measured' : `${Math.round(l.static_first_after_idle_ms)} ms`})${l.first_plain_after_collection_samples_ms === undefined ? '' : `, median of ${l.first_plain_after_collection_samples_ms.length} cycles`}`)}`,
    `| plain scrape p50 vs static buffer${cells((l) => `${Math.round(l.scrape_p50_ms)} vs ${Math.round(l.static_p50_ms)} ms`)}`,
    `| routers per core at this schedule (half a core each for collection)${cells((l) => thousands(routersPerCore(l)))}`,
    FLEET_END,
  ];
  return lines.join('\n');
}

export function withFleetFigures(doc: string, figures: string): string {
  const start = doc.indexOf(FLEET_BEGIN);
  const end = doc.indexOf(FLEET_END);
  if (start < 0 || end < start) throw new Error('docs/performance.md has no generated fleet figures markers');
  return doc.slice(0, start) + figures + doc.slice(end + FLEET_END.length);
}
