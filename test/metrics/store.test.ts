/** The snapshot store's collector meta series: current whenever read, rendered once however many changes came between. */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERROR_REASONS } from '../../src/routeros/errors.js';
import { plainOf } from '../../src/metrics/gzip.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { FAMILIES } from '../../src/metrics/families.js';
import type { SeriesLabels } from '../../src/metrics/family.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function text(store: SnapshotStore): string {
  return store
    .chunksByFamily()
    .flat()
    .map((chunk) => plainOf(chunk).toString('utf8'))
    .join('');
}

function planned(): SnapshotStore {
  const store = new SnapshotStore();
  store.plan(
    new Map([
      [
        'hq',
        [
          { collector: 'system', job: 'system' },
          { collector: 'wireguard', job: 'wireguard' },
        ],
      ],
    ]),
  );
  return store;
}

const run = (collector: 'system' | 'wireguard', ok: boolean, finishedAt: number) =>
  ({ router: 'hq', collector, job: collector, ok, finishedAt, durationSeconds: 0.25, ...(ok ? {} : { reason: 'timeout' as const }) }) as const;

describe('SnapshotStore meta series', () => {
  it('a collector of several targets, some not run yet, is as successful as the ones that ran (found by review)', () => {
    const store = new SnapshotStore();
    store.plan(new Map([['hq', [{ collector: 'ping', job: 'ping:a' }, { collector: 'ping', job: 'ping:b' }]]]));
    expect(text(store)).not.toContain('routeros_collector_success{');
    store.record({ router: 'hq', collector: 'ping', job: 'ping:a', ok: true, finishedAt: 1_000_000, durationSeconds: 1 });
    expect(text(store)).toContain('routeros_collector_success{router="hq",collector="ping"} 1\n');
    expect(text(store)).toContain('routeros_collector_last_success_timestamp_seconds{router="hq",collector="ping"} 1000\n');
    store.record({ router: 'hq', collector: 'ping', job: 'ping:b', ok: false, reason: 'timeout', finishedAt: 1_002_000, durationSeconds: 1 });
    expect(text(store)).toContain('routeros_collector_success{router="hq",collector="ping"} 0\n');
    // The oldest success of the jobs that ran: one never succeeded, so none.
    expect(text(store)).not.toContain('routeros_collector_last_success_timestamp_seconds{');
  });

  it("renders a router's meta once for all the changes between two reads (a cycle's runs land milliseconds apart)", () => {
    const store = planned();
    text(store);
    const renders = vi.spyOn(SampleSet.prototype, 'toChunks');
    store.record(run('system', true, 1_000));
    store.record(run('wireguard', true, 1_010));
    store.setBackoff('hq', 'wireguard', 5);
    expect(renders).toHaveBeenCalledTimes(0);
    text(store);
    expect(renders).toHaveBeenCalledTimes(1);
    // Nothing changed since: the same chunks, nothing rendered.
    const before = store.chunksByFamily().flat();
    expect(store.chunksByFamily().flat()).toEqual(before);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  it('shows every change at the next read, and bumps the version with each, so a prepared layout is never stale', () => {
    const store = planned();
    const versions = [store.version];
    store.record(run('system', true, 1_000));
    versions.push(store.version);
    store.record(run('wireguard', false, 2_000));
    versions.push(store.version);
    expect(text(store)).toContain('routeros_collector_success{router="hq",collector="wireguard"} 0\n');
    expect(text(store)).toContain('routeros_collector_errors_total{router="hq",collector="wireguard",reason="timeout"} 1\n');
    store.setBackoff('hq', 'wireguard', 30);
    versions.push(store.version);
    expect(text(store)).toContain('routeros_collector_backoff_seconds{router="hq",collector="wireguard"} 30\n');
    expect(store.routerChunksOf('hq', 0)).toBeDefined();
    store.record(run('wireguard', true, 3_000));
    versions.push(store.version);
    const now = text(store);
    expect(now).toContain('routeros_collector_success{router="hq",collector="wireguard"} 1\n');
    expect(now).toContain('routeros_up{router="hq"} 1\n');
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('serves, whenever read, what a store rendering at every change would: random runs, backoffs, plans and reads', () => {
    const ROUTERS = ['a', 'b', 'c'];
    const COLLECTORS = ['system', 'wireguard', 'interface'] as const;
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('run' as const),
        router: fc.constantFrom(...ROUTERS),
        collector: fc.constantFrom(...COLLECTORS),
        ok: fc.boolean(),
        reason: fc.constantFrom(...ERROR_REASONS),
        finishedAt: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
        durationSeconds: fc.double({ min: 0, max: 60, noNaN: true }),
      }),
      fc.record({ kind: fc.constant('backoff' as const), router: fc.constantFrom(...ROUTERS), collector: fc.constantFrom(...COLLECTORS), seconds: fc.integer({ min: 0, max: 600 }) }),
      fc.record({ kind: fc.constant('plan' as const), routers: fc.subarray(ROUTERS, { minLength: 1 }), collectors: fc.subarray([...COLLECTORS], { minLength: 1 }) }),
      fc.record({ kind: fc.constant('read' as const) }),
    );
    const plan = (store: SnapshotStore, routers: readonly string[], collectors: readonly (typeof COLLECTORS)[number][]): void => {
      store.plan(new Map(routers.map((router) => [router, collectors.map((collector) => ({ collector, job: collector }))])));
    };
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        // `eager` is read after every change (what rendering at each change served); `lazy` only where a read comes.
        const eager = new SnapshotStore();
        const lazy = new SnapshotStore();
        for (const store of [eager, lazy]) plan(store, ROUTERS, COLLECTORS);
        let expected = text(eager);
        for (const step of operations) {
          if (step.kind === 'read') {
            expect(text(lazy)).toBe(expected);
            continue;
          }
          for (const store of [eager, lazy]) {
            if (step.kind === 'plan') plan(store, step.routers, step.collectors);
            else if (step.kind === 'backoff') store.setBackoff(step.router, step.collector, step.seconds);
            else store.record({ router: step.router, collector: step.collector, job: step.collector, ok: step.ok, reason: step.reason, finishedAt: step.finishedAt, durationSeconds: step.durationSeconds });
          }
          expected = text(eager);
        }
        expect(text(lazy)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('SnapshotStore.chunksByFamily', () => {
  const NAMES = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
  const JOBS = [
    { collector: 'system', job: 'system' },
    { collector: 'wireguard', job: 'wireguard' },
  ] as const;

  it("property: every router's chunks of each family in router order, however the store grows and shrinks between walks", () => {
    // Its lists are made as long as the last walk's (a fleet's layouts walk the store several times a cycle):
    // a shorter walk must leave no holes or stale chunks at the end, a longer one must lose none.
    const step = fc.record({
      routers: fc.subarray(NAMES),
      families: fc.uniqueArray(fc.nat({ max: FAMILIES.length - 1 }), { maxLength: 8 }),
      ok: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
        const store = new SnapshotStore();
        let at = 1_000_000;
        for (const { routers, families, ok } of steps) {
          store.plan(new Map(routers.map((name) => [name, JOBS])));
          for (const router of routers) {
            for (const { collector, job } of JOBS) {
              const samples = new SampleSet();
              for (const index of families) samples.add(FAMILIES[index] as (typeof FAMILIES)[number], `router="${router}"` as SeriesLabels<readonly string[]>, at);
              store.record({ router, collector, job, ok, finishedAt: (at += 1000), durationSeconds: 0.1, samples, ...(ok ? {} : { reason: 'timeout' as const }) });
            }
          }
          const walked = store.chunksByFamily();
          expect(walked).toHaveLength(FAMILIES.length);
          for (let index = 0; index < FAMILIES.length; index++) {
            const expected = store.routerNames().flatMap((name) => store.routerChunksOf(name, index) ?? []);
            const list = walked[index] ?? [];
            expect(list.length).toBe(expected.length);
            // No holes: every slot holds the very chunk the router holds, in order.
            expect(Object.keys(list)).toHaveLength(expected.length);
            list.forEach((chunk, position) => expect(chunk).toBe(expected[position]));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
