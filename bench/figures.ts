/**
 * The figures of docs/performance.md, made from recorded bench runs (bench/runs/<date>.json: the `BENCH {json}`
 * lines of the runs, with the date, commit and conditions). The tables are written by
 * scripts/gen-performance-doc.ts and a test checks the doc still holds exactly what this renders, so a figure
 * is typed once, in the record, and hand-edited tables (and their template leftovers) cannot come back.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of a `BENCH {json}` line (bench/report.ts) that the doc shows. */
export interface BenchLine {
  routers: number;
  peers: number;
  schedule_s: number;
  quick: boolean;
  series: number;
  bytes: number;
  gzip_bytes: number;
  scrape_p50_ms: number;
  scrape_p95_ms: number;
  scrape_gzip_p50_ms: number;
  scrape_gzip_p95_ms: number;
  scrape_gzip_prometheus_p50_ms: number;
  scrape_gzip_prometheus_p95_ms: number;
  static_p50_ms: number;
  static_p95_ms: number;
  static_gzip_p50_ms: number;
  full_deflate_ms: number;
  naive_p50_ms: number | null;
  naive_p95_ms: number | null;
  static_factor: number;
  naive_factor: number | null;
  rss_mb: number;
  rss_peak_mb: number;
  rss_plain_mb: number;
  rss_plain_peak_mb: number;
  cycle_cpu_ms: number;
  cpu_pct_of_core: number;
  requests_per_router_cycle: number;
  bytes_per_router_cycle: number;
}

export interface RecordedRun {
  label: string;
  note?: string;
  /** A run of the build before a change, shown beside the others for comparison but not judged against the targets. */
  baseline?: boolean;
  bench: BenchLine;
}

export interface RunFile {
  date: string;
  commit: string;
  conditions: string;
  runs: RecordedRun[];
}

const NUMBERS: (keyof BenchLine)[] = [
  'routers', 'peers', 'schedule_s', 'series', 'bytes', 'gzip_bytes', 'scrape_p50_ms', 'scrape_p95_ms', 'scrape_gzip_p50_ms',
  'scrape_gzip_p95_ms', 'scrape_gzip_prometheus_p50_ms', 'scrape_gzip_prometheus_p95_ms', 'static_p50_ms', 'static_p95_ms',
  'static_gzip_p50_ms', 'full_deflate_ms', 'static_factor', 'rss_mb', 'rss_peak_mb', 'rss_plain_mb', 'rss_plain_peak_mb',
  'cycle_cpu_ms', 'cpu_pct_of_core', 'requests_per_router_cycle', 'bytes_per_router_cycle',
];
const OPTIONAL_NUMBERS: (keyof BenchLine)[] = ['naive_p50_ms', 'naive_p95_ms', 'naive_factor'];

/** Reads and checks a run file: a missing or non-numeric figure is an error naming it, not a blank cell. */
export function parseRunFile(text: string, name: string): RunFile {
  const file = JSON.parse(text) as RunFile;
  for (const key of ['date', 'commit', 'conditions'] as const) {
    if (typeof file[key] !== 'string' || file[key] === '') throw new Error(`${name}: ${key} must be a non-empty string`);
  }
  if (!Array.isArray(file.runs) || file.runs.length === 0) throw new Error(`${name}: runs must be a non-empty list`);
  for (const run of file.runs) {
    if (typeof run.label !== 'string' || run.label === '') throw new Error(`${name}: a run without a label`);
    for (const key of NUMBERS) {
      if (typeof run.bench[key] !== 'number' || !Number.isFinite(run.bench[key])) throw new Error(`${name}: ${run.label}: ${key} must be a number`);
    }
    for (const key of OPTIONAL_NUMBERS) {
      const value = run.bench[key];
      if (value !== null && (typeof value !== 'number' || !Number.isFinite(value))) throw new Error(`${name}: ${run.label}: ${key} must be a number or null`);
    }
  }
  return file;
}

export const RUNS_DIR = new URL('./runs/', import.meta.url);

/** The newest run file (names are dates, so they sort). */
export function latestRunFile(dir: URL = RUNS_DIR): { name: string; file: RunFile } {
  const names = readdirSync(dir).filter((name) => /^\d{4}-\d{2}-\d{2}.*\.json$/.test(name)).sort();
  const name = names[names.length - 1];
  if (name === undefined) throw new Error('no bench/runs/<date>.json');
  return { name, file: parseRunFile(readFileSync(new URL(name, dir), 'utf8'), name) };
}

const MIB = 1024 * 1024;
const thousands = (value: number): string => value.toLocaleString('en-US');
/** Milliseconds: one decimal below 20, whole above. */
const msNumber = (value: number): string => (value < 20 ? value.toFixed(1) : Math.round(value).toString());
const ms = (value: number): string => `${msNumber(value)} ms`;
/** A p50 / p95 pair in one unit: seconds when both are at least a second. */
const pair = (p50: number, p95: number): string =>
  p50 >= 1000 && p95 >= 1000 ? `${(p50 / 1000).toFixed(1)} / ${(p95 / 1000).toFixed(1)} s` : `${msNumber(p50)} / ${msNumber(p95)} ms`;
const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MB`;
const fullScale = (b: BenchLine): boolean => b.routers === 100 && b.peers === 1000 && b.schedule_s === 30 && !b.quick;

/** `low–high unit`, or one value when they are equal. */
function range(values: number[], format: (value: number) => string, unit: string): string {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? `${format(low)} ${unit}` : `${format(low)}–${format(high)} ${unit}`;
}

function figuresTable(runs: RecordedRun[]): string[] {
  const rows: [label: string, bold: boolean, cell: (b: BenchLine) => string][] = [
    ['routers × peers, schedule', false, (b) => `${b.routers} × ${thousands(b.peers)}, ${b.schedule_s} s`],
    ['series / plain / gzip', false, (b) => `${thousands(b.series)} / ${mib(b.bytes)} / ${mib(b.gzip_bytes)}`],
    ['scrape p50 / p95', true, (b) => pair(b.scrape_p50_ms, b.scrape_p95_ms)],
    ['scrape, gzip p50 / p95', true, (b) => pair(b.scrape_gzip_p50_ms, b.scrape_gzip_p95_ms)],
    ['gzip, as Prometheus (every 2 s, over a collection) p50 / p95', false, (b) => pair(b.scrape_gzip_prometheus_p50_ms, b.scrape_gzip_prometheus_p95_ms)],
    ['static buffer p50 / p95 (the limit)', true, (b) => pair(b.static_p50_ms, b.static_p95_ms)],
    ['static gzip p50', false, (b) => ms(b.static_gzip_p50_ms)],
    ['deflating the whole body once', false, (b) => ms(b.full_deflate_ms)],
    ['naive prom-client p50 / p95', true, (b) => (b.naive_p50_ms === null || b.naive_p95_ms === null ? 'not run' : pair(b.naive_p50_ms, b.naive_p95_ms))],
    ['exporter RSS scraped as Prometheus does / peak', true, (b) => `${Math.round(b.rss_mb)} / ${Math.round(b.rss_peak_mb)} MB`],
    ['RSS after plain scrapes too / peak', false, (b) => `${Math.round(b.rss_plain_mb)} / ${Math.round(b.rss_plain_peak_mb)} MB`],
    ['collection CPU per cycle', true, (b) => `${(b.cycle_cpu_ms / 1000).toFixed(b.cycle_cpu_ms < 1000 ? 2 : 1)} s per ${b.schedule_s} s = ${b.cpu_pct_of_core.toFixed(1)} % of a core`],
    ['fetched per router per cycle', false, (b) => `${b.requests_per_router_cycle} requests, ${Math.round(b.bytes_per_router_cycle / 1024)} KiB`],
  ];
  const lines = [`| | ${runs.map((run) => (run.label.startsWith('--') ? `\`${run.label}\`` : run.label)).join(' | ')} |`, `|---|${runs.map(() => '---:').join('|')}|`];
  for (const [label, bold, cell] of rows) {
    const cells = runs.map((run) => (bold && fullScale(run.bench) ? `**${cell(run.bench)}**` : cell(run.bench)));
    lines.push(`| ${bold ? `**${label}**` : label} | ${cells.join(' | ')} |`);
  }
  return lines;
}

function targetsTable(runs: BenchLine[]): string[] {
  const verdict = (ok: boolean, met = 'met'): string => (ok ? met : 'NOT met');
  const naive = runs.map((b) => b.naive_factor).filter((factor): factor is number => factor !== null);
  const gzipP50 = runs.map((b) => b.scrape_gzip_p50_ms);
  const deflate = runs.map((b) => b.full_deflate_ms);
  return [
    '| target | result | |',
    '|---|---|---|',
    `| scrape p50 ≤ 1.5 × static-buffer p50 | ${runs.map((b) => `${b.static_factor.toFixed(2)} ×`).join(', ')} | ${verdict(runs.every((b) => b.static_factor <= 1.5))} |`,
    `| ≥ 10 × faster than naive prom-client | ${naive.length === 0 ? 'not run' : naive.map((f) => `${Math.round(f)} ×`).join(', ')} | ${naive.length === 0 ? '' : verdict(naive.every((f) => f >= 10))} |`,
    `| RSS ≤ 300 MB | scraped as Prometheus does: ${range(runs.map((b) => b.rss_mb), (v) => Math.round(v).toString(), 'MB')}, ` +
      `peak ${range(runs.map((b) => b.rss_peak_mb), (v) => Math.round(v).toString(), 'MB')}. With plain scrapes in the mix too: ` +
      `${range(runs.map((b) => b.rss_plain_peak_mb), (v) => Math.round(v).toString(), 'MB')} peak until the next collection supersedes the inflated plain forms | ` +
      `${verdict(runs.every((b) => b.rss_peak_mb <= 300), 'met as Prometheus uses it — see *Memory*')} |`,
    `| collection CPU ≤ 20 % of one core at 30 s | ${runs.map((b) => `${b.cpu_pct_of_core.toFixed(1)} %`).join(', ')} | ${verdict(runs.every((b) => b.cpu_pct_of_core <= 20))} |`,
    `| a gzip scrape does not recompress everything | nothing is compressed at scrape time: each run deflates its changed families once; a gzip scrape lays ` +
      `deflated chunks end to end — ${range(gzipP50, msNumber, 'ms')} p50 against ${range(deflate, msNumber, 'ms')} to deflate the body once | ` +
      `${verdict(Math.max(...gzipP50) < Math.min(...deflate) / 2)} |`,
  ];
}

export const BEGIN = '<!-- figures: generated from bench/runs by `npx tsx scripts/gen-performance-doc.ts`; a test keeps them current -->';
export const END = '<!-- end of generated figures -->';

/** The generated part of docs/performance.md, markers included. */
export function performanceFigures(name: string, file: RunFile): string {
  const notes = file.runs.filter((run) => run.note !== undefined).map((run) => `${run.label}: ${run.note}`);
  const full = file.runs.filter((run) => run.baseline !== true).map((run) => run.bench).filter(fullScale);
  return [
    BEGIN,
    `${file.date}, main at \`${file.commit}\`: ${file.conditions}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}. Recorded in \`bench/runs/${name}\`.`,
    '',
    ...figuresTable(file.runs),
    '',
    '### Against the targets (100 × 1,000, 30 s schedules)',
    '',
    ...(full.length === 0 ? ['No full-scale run in this record.'] : targetsTable(full)),
    END,
  ].join('\n');
}

/** docs/performance.md with its generated part replaced. */
export function withFigures(doc: string, figures: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/performance.md has no generated figures markers');
  return doc.slice(0, start) + figures + doc.slice(end + END.length);
}
