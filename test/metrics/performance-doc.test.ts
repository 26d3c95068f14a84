/**
 * docs/performance.md shows the figures of the newest recorded bench runs (bench/runs/<date>.json) as
 * bench/figures.ts renders them, nothing typed by hand in between: no template leftovers such as
 * "**249 / 255 MB**PEAK MB", and every figure the tables need is a field of the bench's own BENCH line.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BEGIN, END, latestRunFile, parseRunFile, performanceFigures, withFigures, type BenchLine } from '../../bench/figures.js';
import { parseOptions } from '../../bench/options.js';
import { report, type Figures } from '../../bench/report.js';

const DOC = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8');

/** Text glued to a bold figure, or a capitalised placeholder left before a unit: what a template leaves behind. */
function templateResidue(markdown: string): string[] {
  const found: string[] = [];
  markdown.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\*\*(?=\S)[^*\n]*?\S\*\*(?=[\p{L}\p{N}])/gu)) found.push(`line ${index + 1}: bold figure glued to text: ${match[0]}…`);
    for (const match of line.matchAll(/\b[A-Z]{3,} (?:MB|KiB|ms|s|%)(?=[\s|]|$)/g)) found.push(`line ${index + 1}: placeholder ${match[0]}`);
  });
  return found;
}

describe('docs/performance.md', () => {
  it('holds exactly the figures rendered from the newest bench record', () => {
    const { name, file } = latestRunFile();
    expect(DOC).toContain(BEGIN);
    expect(DOC).toContain(END);
    expect(DOC).toBe(withFigures(DOC, performanceFigures(name, file)));
  });

  it('has no template leftovers (and the check catches the ones it once had)', () => {
    expect(templateResidue('| RSS ≤ 300 MB | peak 259–279 MB (**249 / 255 MB**PEAK MB in run 3) | met |')).toHaveLength(2);
    expect(templateResidue('| collection CPU | 14.8 %, 13.3 %, **4.9 s = 16.3 %**PCT % | met |')).toHaveLength(2);
    expect(templateResidue('| **scrape** p50 / p95 | **177 / 353 ms** | RSS 262 MB, CPU 4 % |')).toEqual([]);
    expect(templateResidue(DOC)).toEqual([]);
  });

  it("renders verdicts from the figures, not from the record's say-so", () => {
    const { name, file } = latestRunFile();
    const over = structuredClone(file);
    for (const run of over.runs) run.bench.rss_peak_mb = 301;
    expect(performanceFigures(name, over)).toMatch(/\| RSS ≤ 300 MB \|.*\| NOT met \|/);
    const under = structuredClone(file);
    for (const run of under.runs) run.bench.rss_peak_mb = 299;
    expect(performanceFigures(name, under)).toMatch(/\| RSS ≤ 300 MB \|.*\| met as Prometheus uses it/);
  });

  it('shows baseline runs beside the others but judges only the others against the targets', () => {
    const { name, file } = latestRunFile();
    const mixed = structuredClone(file);
    for (const run of mixed.runs) run.bench.rss_peak_mb = 299;
    const first = mixed.runs[0];
    if (first === undefined) throw new Error('no run');
    mixed.runs.unshift({ ...structuredClone(first), label: 'old build', baseline: true, bench: { ...first.bench, rss_peak_mb: 900 } });
    const text = performanceFigures(name, mixed);
    expect(text).toContain('| old build |');
    expect(text).toMatch(/\| RSS ≤ 300 MB \|.*\| met as Prometheus uses it/);
  });

  it('rejects a record with a figure missing', () => {
    const { name, file } = latestRunFile();
    const broken = structuredClone(file) as unknown as { runs: { bench: Partial<BenchLine> }[] };
    delete broken.runs[0]?.bench.rss_peak_mb;
    expect(() => parseRunFile(JSON.stringify(broken), name)).toThrow('rss_peak_mb must be a number');
  });
});

describe('the BENCH line', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('carries every figure the doc shows, so a run can be recorded as printed', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((text: string) => {
      lines.push(text);
    });
    const times = [10, 12, 14];
    const figures: Figures = {
      options: parseOptions(['--quick']),
      readySeconds: 1,
      timings: new Map([
        ['exporter', times],
        ['exporter gzip', times],
        ['static', times],
        ['static gzip', times],
        ['naive prom-client', [100, 120]],
      ]),
      bytes: new Map(),
      series: 6837,
      plainBytes: 1_000_000,
      gzipBytes: 300_000,
      gzipAfterCyclesMs: 20,
      fullDeflateMs: 10,
      prometheusTimes: [8, 9, 11],
      rssWarmMb: 120,
      rssPrometheusMb: 138,
      rssPrometheusPeakMb: 145,
      rssEndMb: 141,
      rssPeakMb: 145,
      cycleCpuMs: 270,
      cpuShareOfCore: 0.053,
      fetched: { '/rest/system/resource': { requests: 20, bytes: 20_000 } },
      connections: 5,
      naiveCycleMs: 3,
      ratios: { staticFactor: 1, naiveFactor: 10 },
    };
    report(figures);
    const bench = lines.find((line) => line.startsWith('BENCH '));
    expect(bench).toBeDefined();
    const record = { date: '2026-01-01', commit: 'abcdef0', conditions: 'test', runs: [{ label: '--quick', bench: JSON.parse((bench ?? '').slice(6)) as BenchLine }] };
    expect(() => parseRunFile(JSON.stringify(record), 'printed.json')).not.toThrow();
    expect(templateResidue(performanceFigures('printed.json', record))).toEqual([]);
  });
});
