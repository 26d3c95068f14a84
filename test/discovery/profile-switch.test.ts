/**
 * A target forgotten under one profile and probed under another before the scheduler load that drops its runs:
 * the store still holds the old profile's runs (its labels, its credentials), and they are not the new entry's
 * first collection. Registry over a real store, on an injected clock; the scheduler load is held back.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { DiscoveryRegistry } from '../../src/discovery/registry.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { testConfig } from '../helpers/config.js';

const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };

function setup() {
  let clock = 0;
  const store = new SnapshotStore();
  const registry = new DiscoveryRegistry({
    now: () => clock,
    store,
    // The load that would replan the store never runs here: the old runs stay, as they do until a paced load.
    changed: () => undefined,
    logger: pino({ level: 'silent' }),
    metrics: { targets: () => undefined, created: () => undefined, forgotten: () => undefined, refused: () => undefined },
  });
  registry.configure(
    testConfig({
      // The jobs the store is planned with below: system alone.
      defaults: { username: 'm', password: 'p', collectors: ONLY_SYSTEM },
      routers: [],
      profiles: {
        a: { targets: ['10.20.0.0/16'], forget_after: '1m', labels: { tier: 'a' } },
        b: { targets: ['10.20.0.0/16'], labels: { tier: 'b' } },
        // The same jobs as a: only its allow list and forget period differ.
        c: { targets: ['10.20.0.0/24'], forget_after: '2m', labels: { tier: 'a' } },
        // a's `system` job (the same labels, schedule and settings) and `firmware`, hourly.
        d: { targets: ['10.20.0.0/16'], labels: { tier: 'a' }, collectors: { firmware: true } },
      },
    }),
  );
  const run = (router: string, job: 'system' | 'firmware' = 'system'): void => {
    store.record({ router, collector: job, job, ok: true, finishedAt: clock, durationSeconds: 0.1, data: undefined });
  };
  store.plan(new Map([['10.20.0.1', [{ collector: 'system', job: 'system' }]]]));
  return { registry, store, run, advance: (ms: number) => (clock += ms) };
}

describe('a target forgotten under one profile and probed under another', () => {
  it('waits for a run recorded after it was made again (found by review)', async () => {
    const { registry, run, advance } = setup();
    expect((await registry.discover('10.20.0.1', 'a', 0)).kind).toBe('timeout');
    run('10.20.0.1');
    expect(await registry.discover('10.20.0.1', 'a', 0)).toEqual({ kind: 'ready', router: '10.20.0.1' });
    advance(61_000);
    expect(registry.sweep()).toBe(1);
    // Under b, before the load: a's run is not b's first collection.
    expect(await registry.discover('10.20.0.1', 'b', 0)).toEqual({ kind: 'timeout', router: '10.20.0.1' });
    run('10.20.0.1');
    expect(await registry.discover('10.20.0.1', 'b', 0)).toEqual({ kind: 'ready', router: '10.20.0.1' });
  });

  /** A target collected under a and forgotten, its run still in the store (the load that drops it not run yet). */
  async function forgottenUnderA(): Promise<DiscoveryRegistry> {
    const { registry, run, advance } = setup();
    await registry.discover('10.20.0.1', 'a', 0);
    run('10.20.0.1');
    advance(61_000);
    expect(registry.sweep()).toBe(1);
    return registry;
  }

  it('under the same profile again, the runs the store still holds are served at once', async () => {
    const registry = await forgottenUnderA();
    expect(await registry.discover('10.20.0.1', 'a', 0)).toEqual({ kind: 'ready', router: '10.20.0.1' });
  });

  it('under a profile that makes the same jobs, the runs held are its own: served at once, not after the jobs\' schedules (found by review)', async () => {
    const registry = await forgottenUnderA();
    expect(await registry.discover('10.20.0.1', 'c', 0)).toEqual({ kind: 'ready', router: '10.20.0.1' });
  });

  it("under a profile sharing some jobs, waits for the new jobs' runs only, not for the shared jobs' schedules (found by review)", async () => {
    const { registry, store, run, advance } = setup();
    const name = '10.20.0.1';
    await registry.discover(name, 'a', 0);
    run(name);
    advance(61_000);
    expect(registry.sweep()).toBe(1);
    // Probed under d; the load that plans d's jobs (system kept with its run, firmware new) comes next.
    expect((await registry.discover(name, 'd', 0)).kind).toBe('timeout');
    store.plan(new Map([[name, [{ collector: 'system', job: 'system' }, { collector: 'firmware', job: 'firmware' }]]]));
    expect((await registry.discover(name, 'd', 0)).kind).toBe('timeout');
    // firmware's first run: ready. The shared system job's next run, which waited for every job, is not needed.
    run(name, 'firmware');
    expect(await registry.discover(name, 'd', 0)).toEqual({ kind: 'ready', router: name });
  });
});
