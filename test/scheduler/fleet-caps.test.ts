/**
 * The caps at fleet size, as a review of the scheduler found them (each test failed on the code before):
 * - a mass outage (2,500 of 3,000 routers silent at once) left the 500 still answering collected a few dozen per
 *   cycle for as long as it lasted: a run of a newly silent router queued for a waiting permit behind the silent
 *   routers' runs and kept its quick permit for its whole timeout;
 * - 600 routers with one default ping each (3 × 1 s) held the quick cap with their pings, and their 30 s reads ran
 *   once a minute.
 * Fake clocks: routers that answer do so in 20 ms, silent ones time out after 10 s.
 */
import { afterEach, expect, it, vi } from 'vitest';
import pino from 'pino';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { testConfig } from '../helpers/config.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const logger = pino({ level: 'silent' });
const only = (...names: string[]): Record<string, boolean> => Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, names.includes(name)]));
const RESOURCE: RouterRecord = { uptime: '1d', version: '7.19 (stable)', 'cpu-load': '3' };
const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] as const;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A router that answers reads in 20 ms (or, while `behaviour()` says so, times out after its timeout, or answers in
 * that many ms) and pings in 3 s.
 */
type Behaviour = 'ok' | 'silent' | number;
function client(behaviour: () => Behaviour, timeoutMs: number): JobContext['client'] {
  const later = <T>(ms: number, settle: () => T | Error, signal?: AbortSignal): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      // Its listener goes with the request, as the real client's does: a job's signal lives across its runs, and
      // listeners left on it piled up (Node's MaxListenersExceededWarning, 547 times a test run).
      const aborted = (): void => {
        clearTimeout(timer);
        reject(new RouterOsError('ROS_ERR_ABORTED', 'aborted'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', aborted);
        const value = settle();
        if (value instanceof Error) reject(value);
        else resolve(value);
      }, ms);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  const fake = {
    list: () => Promise.resolve([]),
    getSingleton: (_menu: string, options?: { signal?: AbortSignal }) => {
      const now = behaviour();
      return now === 'silent'
        ? later(timeoutMs, () => new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/system/resource: no complete answer within the timeout'), options?.signal)
        : later(now === 'ok' ? 20 : now, () => RESOURCE, options?.signal);
    },
    run: (_command: string, _parameters?: unknown, options?: { signal?: AbortSignal }) =>
      later(3_000, () => [{ host: '10.0.0.1', sent: '3', received: '3', 'packet-loss': '0', 'avg-rtt': '1ms' }], options?.signal),
  };
  return fake as unknown as JobContext['client'];
}

/** A scheduler of `count` routers on manual triggers; returns it with a function that fires every job once. */
function fleet(count: number, collectors: Record<string, boolean>, behaviour: (name: string) => Behaviour, options: { ping?: boolean; timeoutSeconds?: number } = {}) {
  const ping = options.ping === true;
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  const triggers = new ManualTriggers();
  const store = new SnapshotStore();
  const scheduler = new Scheduler({
    store,
    logger,
    clientFor: (router) => client(() => behaviour(router.name), timeoutSeconds * 1000),
    triggerFactory: triggers.factory,
    jitter: false,
  });
  scheduler.load(
    testConfig({
      defaults: { username: 'u', password: 'p', collectors, timeout: `${timeoutSeconds}s` },
      routers: Array.from({ length: count }, (_, i) => ({
        name: `r${i}`,
        url: `https://10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        ...(ping ? { ping: [{ target: '10.0.0.1' }] } : {}),
      })),
    }),
  );
  scheduler.start(false);
  const tick = (): void => {
    for (const name of triggers.ticks.keys()) triggers.fire(name);
  };
  return { scheduler, store, tick };
}

it('collects the routers still answering in a mass outage: 2,500 of 3,000 silent at once cost them a few cycles, not the outage', async () => {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const answering = (name: string): boolean => Number(name.slice(1)) % 6 === 0;
  let outage = false;
  const { scheduler, store, tick } = fleet(3_000, only('system'), (name) => (outage && !answering(name) ? 'silent' : 'ok'));
  let collected = 0;
  store.subscribe((router) => {
    if (answering(router) && store.snapshots(router).some((snapshot) => snapshot.ok)) collected++;
  });
  const perCycle: number[] = [];
  for (let cycle = 0; cycle < 16; cycle++) {
    if (cycle === 2) outage = true;
    collected = 0;
    tick();
    await vi.advanceTimersByTimeAsync(30_000);
    perCycle.push(collected);
  }
  // Before the outage, and from a few cycles into it (the onset: each newly silent router's first run holds a
  // quick permit for 2 s, 2,500 × 2 s / 32 permits), all 500 every cycle. Before the fix: 96, 32, 19, 32, 20, …
  expect(perCycle.slice(0, 2), perCycle.join(' ')).toEqual([500, 500]);
  expect(perCycle.slice(8), perCycle.join(' ')).toEqual(Array(8).fill(500));
  const stopped = scheduler.stop();
  await vi.advanceTimersByTimeAsync(20_000);
  await stopped;
}, 120_000);

it("collects every router's 30 s reads every cycle beside one default ping per router (600 routers)", async () => {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const { scheduler, store, tick } = fleet(600, only('system', 'ping'), () => 'ok', { ping: true });
  let reads = 0;
  let pings = 0;
  store.subscribe((_router, collector) => {
    if (collector === 'system') reads++;
    else pings++;
  });
  const perCycle: string[] = [];
  for (let cycle = 0; cycle < 4; cycle++) {
    reads = 0;
    pings = 0;
    tick();
    await vi.advanceTimersByTimeAsync(30_000);
    perCycle.push(`${reads}/${pings}`);
  }
  // Before the fix: 600 reads one cycle and 0 the next (the pings held the quick cap 3 s each).
  expect(perCycle).toEqual(Array(4).fill('600/600'));
  expect(scheduler.occupancy().quick).toEqual({ inFlight: 0, queued: 0 });
  const stopped = scheduler.stop();
  await vi.advanceTimersByTimeAsync(10_000);
  await stopped;
}, 60_000);

it('collects a router that answers again while slow routers keep moving their runs off the quick cap', async () => {
  vi.useFakeTimers({ toFake: [...FAKED] });
  // 400 routers answer each read in 13 s within a 14 s timeout: never silent, every run moves after 2 s, 16 a
  // second. r0 does not answer for four cycles, then answers in 20 ms. When moved runs took the silent cap's permits
  // (paid back before any waiter), r0's queued run was never granted in 40 cycles (found by review).
  let cycle = 0;
  const { scheduler, store, tick } = fleet(401, only('system'), (name) => (name === 'r0' ? (cycle < 4 ? 'silent' : 'ok') : 13_000), { timeoutSeconds: 14 });
  const answered: number[] = [];
  for (cycle = 0; cycle < 12; cycle++) {
    tick();
    await vi.advanceTimersByTimeAsync(15_000);
    const last = store.snapshots('r0').find((snapshot) => snapshot.job === 'system');
    if (cycle === 3) expect(last?.ok).toBe(false);
    if (last?.ok === true) answered.push(cycle);
  }
  // Seen again within a few cycles of answering (its queued runs wait out the silent runs ahead of them).
  expect(answered.length).toBeGreaterThan(0);
  expect(answered[0]).toBeLessThanOrEqual(8);
  const stopped = scheduler.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopped;
}, 120_000);

it('pings every router every cycle at 3,000 routers with one default ping each (the timed cap held ~1,280 a cycle)', async () => {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const { scheduler, store, tick } = fleet(3_000, only('ping'), () => 'ok', { ping: true });
  let pings = 0;
  store.subscribe(() => pings++);
  const perCycle: number[] = [];
  for (let cycle = 0; cycle < 3; cycle++) {
    pings = 0;
    tick();
    await vi.advanceTimersByTimeAsync(30_000);
    perCycle.push(pings);
  }
  expect(perCycle).toEqual([3_000, 3_000, 3_000]);
  const stopped = scheduler.stop();
  await vi.advanceTimersByTimeAsync(10_000);
  await stopped;
}, 120_000);

it('runs at most 32 bandwidth tests at once when a fleet\'s daily tests fire together (the timed cap would start 512)', async () => {
  vi.useFakeTimers({ toFake: [...FAKED] });
  const triggers = new ManualTriggers();
  const store = new SnapshotStore();
  let running = 0;
  let most = 0;
  const tester = {
    list: () => Promise.resolve([]),
    getSingleton: () => Promise.resolve(RESOURCE),
    run: () => {
      running++;
      most = Math.max(most, running);
      return new Promise((resolve) =>
        setTimeout(() => {
          running--;
          resolve([{ status: 'done testing', duration: '10s', 'rx-total-average': '8000000', 'tx-total-average': '4000000', direction: 'both' }]);
        }, 10_000),
      );
    },
  } as unknown as JobContext['client'];
  const scheduler = new Scheduler({ store, logger, clientFor: () => tester, triggerFactory: triggers.factory, jitter: false });
  scheduler.load(
    testConfig({
      defaults: { username: 'u', password: 'p', collectors: only('bandwidth_test') },
      routers: Array.from({ length: 200 }, (_, i) => ({ name: `r${i}`, url: `https://10.9.0.${i}`, bandwidth_test: [{ target: '10.0.0.2', duration: '10s' }] })),
    }),
  );
  scheduler.start(false);
  for (const name of triggers.ticks.keys()) triggers.fire(name);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(scheduler.occupancy().timed).toEqual({ inFlight: 32, queued: 168 });
  await vi.advanceTimersByTimeAsync(120_000);
  expect(most).toBe(32);
  expect(store.routerNames().filter((name) => store.snapshots(name).length > 0)).toHaveLength(200);
  const stopped = scheduler.stop();
  await vi.advanceTimersByTimeAsync(30_000);
  await stopped;
}, 60_000);
