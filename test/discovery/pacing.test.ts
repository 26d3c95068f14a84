/** The registry paces scheduler loads: a burst of first probes costs a few loads, not one per target. */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { DiscoveryRegistry } from '../../src/discovery/registry.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { testConfig } from '../helpers/config.js';

function registry(loadMs: number): { registry: DiscoveryRegistry; loads: () => number } {
  let loads = 0;
  const made = new DiscoveryRegistry({
    now: () => 0,
    store: new SnapshotStore(),
    logger: pino({ level: 'silent' }),
    // Stands in for a scheduler load over many routers: it takes loadMs of CPU.
    changed: () => {
      loads += 1;
      const until = performance.now() + loadMs;
      while (performance.now() < until);
    },
    metrics: { targets: () => undefined, created: () => undefined, forgotten: () => undefined, refused: () => undefined },
  });
  made.configure(
    testConfig({ defaults: { username: 'm', password: 'p' }, routers: [], profiles: { lab: { targets: ['127.0.0.0/8'], max_targets: 10_000 } } }),
  );
  return { registry: made, loads: () => loads };
}

describe('scheduler loads', () => {
  it('a lone first probe loads at once (within the same turn of the event loop)', async () => {
    const { registry: made, loads } = registry(0);
    void made.discover('127.0.0.1:1', 'lab', 0);
    await Promise.resolve();
    expect(loads()).toBe(1);
    made.close();
  });

  it('200 first probes arriving one per event-loop turn, with 20 ms loads, cost a few loads and every target gets in', async () => {
    const { registry: made, loads } = registry(20);
    for (let i = 0; i < 200; i++) {
      void made.discover(`127.0.${i >> 8}.${i & 255}:1`, 'lab', 0);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await made.flushed();
    console.log(`pacing: 200 first probes → ${loads()} loads`);
    expect(loads()).toBeLessThan(10);
    expect(made.routers()).toHaveLength(200);
    made.close();
  });
});

describe('a scheduler load that throws', () => {
  it('is logged, not thrown from a timer (which would end the process), and the registry goes on', async () => {
    const lines: string[] = [];
    let fail = true;
    const made = new DiscoveryRegistry({
      now: () => 0,
      store: new SnapshotStore(),
      logger: pino({ level: 'error' }, { write: (line: string) => lines.push(line) }),
      changed: () => {
        if (fail) throw new TypeError('Invalid URL');
      },
      metrics: { targets: () => undefined, created: () => undefined, forgotten: () => undefined, refused: () => undefined },
    });
    made.configure(testConfig({ defaults: { username: 'm', password: 'p' }, routers: [], profiles: { lab: { targets: ['127.0.0.0/8'] } } }));
    void made.discover('127.0.0.1:1', 'lab', 0);
    await made.flushed();
    expect(lines.some((line) => line.includes('loading the scheduler with the discovered targets failed'))).toBe(true);
    fail = false;
    void made.discover('127.0.0.2:1', 'lab', 0);
    await made.flushed();
    expect(made.routers()).toHaveLength(2);
    made.close();
  });
});
