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
});
