/**
 * docs/performance.md's fleet table shows the newest recorded fleet runs (bench/runs/fleet-<date>.json) as
 * bench/fleet-figures.ts renders them, and the sizing rule's routers-per-core comes from the figures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLEET_BEGIN, FLEET_END, fleetFigures, latestFleetFile, routersPerCore, withFleetFigures, type FleetLine, type FleetRun } from '../../bench/fleet-figures.js';

const DOC = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8');

/** The newest fleet record and its first run, the base the row tests vary. */
function newestRun(): { latest: NonNullable<ReturnType<typeof latestFleetFile>>; run: FleetRun } {
  const latest = latestFleetFile();
  const run = latest?.file.runs[0];
  if (latest === undefined || run === undefined) throw new Error('bench/runs holds no fleet record with a run');
  return { latest, run };
}

describe('docs/performance.md fleet figures', () => {
  it('holds exactly the figures rendered from the newest fleet record', () => {
    const latest = latestFleetFile();
    expect(latest).toBeDefined();
    if (latest === undefined) return;
    expect(DOC).toContain(FLEET_BEGIN);
    expect(DOC).toContain(FLEET_END);
    expect(DOC).toBe(withFleetFigures(DOC, fleetFigures(latest.name, latest.file)));
  });

  it('shows RSS sampled through the cycles where a run recorded it, and says so where it did not', () => {
    const { latest, run } = newestRun();
    const sampled = { ...run, label: 'sampled', bench: { ...run.bench, rss_median_mb: 281.4, rss_min_mb: 262.6, rss_max_mb: 333.5 } };
    const unsampled = { ...run, label: 'unsampled', bench: { ...run.bench, rss_median_mb: undefined, rss_min_mb: undefined, rss_max_mb: undefined } };
    const table = fleetFigures('fleet-test.json', { ...latest.file, runs: [sampled, unsampled] });
    expect(table).toContain('| RSS through the cycles, sampled every second: median (range) | 281 (263–334) MB | not sampled |');
  });

  it('shows the static buffer’s first scrape after as long an idle beside the first plain one, where a run measured it', () => {
    const { latest, run } = newestRun();
    const single = { first_plain_after_collection_samples_ms: undefined, static_first_after_idle_samples_ms: undefined };
    const measured = { ...run, label: 'measured', bench: { ...run.bench, ...single, first_plain_after_collection_ms: 35.4, static_first_after_idle_ms: 19.2 } };
    const unmeasured = { ...run, label: 'unmeasured', bench: { ...run.bench, ...single, first_plain_after_collection_ms: 51.6, static_first_after_idle_ms: undefined } };
    const cycles = {
      ...run,
      label: 'cycles',
      bench: { ...run.bench, first_plain_after_collection_ms: 21.3, static_first_after_idle_ms: 14.6, first_plain_after_collection_samples_ms: [21.3, 30.1, 18], static_first_after_idle_samples_ms: [14.6, 9.9, 22] },
    };
    const table = fleetFigures('fleet-test.json', { ...latest.file, runs: [measured, unmeasured, cycles] });
    expect(table).toContain('| first plain scrape after a collection (static buffer after as long an idle) | 35 ms (19 ms) | 52 ms (not measured) | 21 ms (15 ms), median of 3 cycles |');
  });

  it("shows the machine's speed and the collection CPU in reference workloads, where a run measured it", () => {
    const { latest, run } = newestRun();
    const measured = { ...run, label: 'measured', bench: { ...run.bench, cycle_cpu_ms: 3_600, reference_cpu_ms: 412.6 } };
    const unmeasured = { ...run, label: 'unmeasured', bench: { ...run.bench, reference_cpu_ms: undefined } };
    const table = fleetFigures('fleet-test.json', { ...latest.file, runs: [measured, unmeasured] });
    expect(table).toContain("| the machine's speed: a fixed reference workload's CPU (collection CPU per cycle in reference workloads) | 413 ms (8.7) | not measured |");
  });

  it('names the Node.js the exporter ran on, its options and its own environment, where a run recorded them', () => {
    const { latest, run } = newestRun();
    const image = { ...run, label: 'image', bench: { ...run.bench, node: 'v24.21.0', node_options: '--max-semi-space-size=16', exporter_env: 'MALLOC_MMAP_THRESHOLD_=65536' } };
    const options = { ...run, label: 'options', bench: { ...run.bench, node: 'v24.21.0', node_options: '--max-semi-space-size=4', exporter_env: '' } };
    const bare = { ...run, label: 'bare', bench: { ...run.bench, node: 'v20.20.2', node_options: '', exporter_env: undefined } };
    const old = { ...run, label: 'old', bench: { ...run.bench, node: undefined, node_options: undefined } };
    const table = fleetFigures('fleet-test.json', { ...latest.file, runs: [image, options, bare, old] });
    expect(table).toContain(
      "| exporter's Node.js (options; environment) | v24.21.0 (`--max-semi-space-size=16`; `MALLOC_MMAP_THRESHOLD_=65536`) | v24.21.0 (`--max-semi-space-size=4`) | v20.20.2 | not recorded |",
    );
  });

  it('derives routers per core from CPU per router, leaving half the core', () => {
    const line = { routers: 2000, schedule_s: 30, cycle_cpu_ms: 6000 } as FleetLine;
    // 3 ms per router per 30 s cycle; half a core is 15,000 ms: 5,000 routers.
    expect(routersPerCore(line)).toBe(5000);
    expect(routersPerCore({ ...line, cycle_cpu_ms: 8640 })).toBe(3400);
  });
});
