/**
 * A discovered target is forgotten once Prometheus has not probed it for its forget period. A pause of the process
 * (a VM paused, SIGSTOP) is no such time: Prometheus could not reach a paused exporter. A pause past the forget
 * period forgot every discovered target at the resume, their states and series with them.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DiscoveryRegistry } from '../../src/discovery/registry.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { testConfig } from '../helpers/config.js';

const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };
const FORGET_MS = 60_000;

/** A target probed and collected, then `before` ms of running, a pause of `pause` ms, `after` ms of running: swept then. */
async function sweptAfter(before: number, pause: number, after: number): Promise<number> {
  let clock = 0;
  let pausedFrom: number | undefined;
  const store = new SnapshotStore();
  const registry = new DiscoveryRegistry({
    now: () => clock,
    paused: (since) => (pausedFrom === undefined ? 0 : Math.max(0, pausedFrom + pause - Math.max(since, pausedFrom))),
    store,
    changed: () => undefined,
    logger: pino({ level: 'silent' }),
    metrics: { targets: () => undefined, created: () => undefined, forgotten: () => undefined, refused: () => undefined },
  } as ConstructorParameters<typeof DiscoveryRegistry>[0]);
  registry.configure(testConfig({ defaults: { username: 'm', password: 'p', collectors: ONLY_SYSTEM }, routers: [], profiles: { a: { targets: ['10.20.0.0/16'], forget_after: '1m' } } }));
  store.plan(new Map([['10.20.0.1', [{ collector: 'system', job: 'system' }]]]));
  await registry.discover('10.20.0.1', 'a', 0);
  store.record({ router: '10.20.0.1', collector: 'system', job: 'system', ok: true, finishedAt: clock, durationSeconds: 0.1, data: undefined });
  expect(await registry.discover('10.20.0.1', 'a', 0)).toEqual({ kind: 'ready', router: '10.20.0.1' });
  clock += before;
  if (pause > 0) pausedFrom = clock;
  clock += pause + after;
  return registry.sweep();
}

describe('discovered targets over a pause of the process', () => {
  it('are forgotten only once unprobed for the forget period while the process ran (property)', async () => {
    const ms = fc.integer({ min: 0, max: 2 * FORGET_MS });
    await fc.assert(
      fc.asyncProperty(ms, fc.oneof(fc.constant(0), fc.integer({ min: 1_000, max: 24 * 3_600_000 })), ms, async (before, pause, after) => {
        expect(await sweptAfter(before, pause, after)).toBe(before + after >= FORGET_MS ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });

  it('a 10-minute pause 10 s after a probe: the target is kept (it was forgotten at the resume)', async () => {
    expect(await sweptAfter(10_000, 600_000, 1_000)).toBe(0);
  });
});
