import perfHooks from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SelfMetrics } from '../../src/metrics/self.js';

type Lister = 'getActiveResourcesInfo' | '_getActiveHandles' | '_getActiveRequests';
const LISTERS: Lister[] = ['getActiveResourcesInfo', '_getActiveHandles', '_getActiveRequests'];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the exporter's own metrics", () => {
  it('list no handles, requests or resources at a scrape: that work grows with the fleet (thousands of router connections)', async () => {
    const self = new SelfMetrics({ version: 'test' });
    const proc = process as unknown as Record<Lister, () => unknown[]>;
    const spies = LISTERS.filter((name) => typeof proc[name] === 'function').map((name) => vi.spyOn(proc, name));
    expect(spies.length).toBeGreaterThan(0);
    for (const format of ['text', 'openmetrics'] as const) await self.render(format);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('still serve the process and runtime series users chart, the open file descriptors among them', async () => {
    const text = await new SelfMetrics({ version: 'test' }).render('text');
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_open_fds', 'process_max_fds', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'routeros_exporter_build_info']) {
      expect(text).toMatch(new RegExp(`^${name}(\\{| )`, 'm'));
    }
    expect(text).not.toMatch(/^nodejs_active_/m);
    // Once: served by open-fds.ts in place of prom-client's listing, which is left out.
    expect(text.match(/^process_open_fds /gm)?.length).toBe(process.platform === 'linux' ? 1 : undefined);
  });

  it('keep one set of runtime monitors for both formats: one event-loop delay histogram (a 10 ms timer) and one GC observer, not one per format', async () => {
    const monitors = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const observers = vi.spyOn(perfHooks.PerformanceObserver.prototype, 'observe');
    const self = new SelfMetrics({ version: 'test' });
    expect(monitors).toHaveBeenCalledTimes(1);
    expect(observers).toHaveBeenCalledTimes(1);
    // Shared, yet each format still writes every family the way it spells them, whichever renders first: prom-client
    // renames a counter it renders as OpenMetrics, which must not reach the text format's names.
    const names = (body: string): string[] => [...body.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] ?? '');
    const family = (name: string): string => name.replace(/_(total|info)$/, '');
    for (let round = 0; round < 2; round++) {
      const openmetrics = await self.render('openmetrics');
      const text = await self.render('text');
      expect(names(text).length).toBeGreaterThan(10);
      expect(names(openmetrics).map(family)).toEqual(names(text).map(family));
      for (const counter of ['process_cpu_seconds', 'routeros_exporter_reads_resent']) {
        expect(text).toMatch(new RegExp(`^# TYPE ${counter}_total counter\n${counter}_total \\S+$`, 'm'));
        expect(openmetrics).toMatch(new RegExp(`^# TYPE ${counter} counter\n(# .*\n)*${counter}_total \\S+$`, 'm'));
      }
    }
  });

  it("serve the scheduler's runs in flight and queued by cap, read at each scrape, in both formats", async () => {
    const self = new SelfMetrics({ version: 'test' });
    // Before the scheduler is watched: the families, no samples.
    expect(await self.render('text')).not.toMatch(/^routeros_exporter_runs_in_flight\{/m);
    let quick = 3;
    self.watchRuns(() => ({ quick: { inFlight: quick, queued: 40 }, waiting: { inFlight: 7, queued: 0 }, timed: { inFlight: 5, queued: 2 } }));
    for (const format of ['text', 'openmetrics'] as const) {
      const body = await self.render(format);
      expect(body).toContain('routeros_exporter_runs_in_flight{cap="quick"} 3\n');
      expect(body).toContain('routeros_exporter_runs_in_flight{cap="waiting"} 7\n');
      expect(body).toContain('routeros_exporter_runs_queued{cap="quick"} 40\n');
      expect(body).toContain('routeros_exporter_runs_queued{cap="waiting"} 0\n');
      expect(body).toContain('routeros_exporter_runs_in_flight{cap="timed"} 5\n');
      expect(body).toContain('routeros_exporter_runs_queued{cap="timed"} 2\n');
    }
    quick = 0;
    expect(await self.render('text')).toContain('routeros_exporter_runs_in_flight{cap="quick"} 0\n');
  });
});
