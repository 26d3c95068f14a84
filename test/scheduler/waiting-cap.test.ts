/**
 * The waiting and timed runs' caps and readiness, as reviews found them: a run that moves off the quick cap moves
 * at once, past the waiting cap if it is full (queued there, it kept the quick permit while silent runs queued
 * ahead of it); pings hold timed permits, not quick ones; a router counted by readiness stays counted. Each test
 * failed on the code before.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const logger = pino({ level: 'silent' });
const only = (...names: string[]): Record<string, boolean> => Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, names.includes(name)]));

afterEach(() => {
  vi.useRealTimers();
});

/** A client whose reads and console commands (ping) answer separately: at once, after a delay, or never. */
class SplitClient implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  reads: 'ok' | 'hang' = 'ok';
  commandDelayMs: number | 'hang' = 0;
  readonly #hanging = { reads: [] as ((error: Error) => void)[], commands: [] as ((error: Error) => void)[] };

  /** Fails the hanging requests of one kind (or both) as timeouts. */
  timeOut(kind?: 'reads' | 'commands'): void {
    for (const which of kind === undefined ? (['reads', 'commands'] as const) : [kind]) {
      for (const fail of this.#hanging[which].splice(0)) fail(new RouterOsError('ROS_ERR_TIMEOUT', 'GET /rest/x: no complete answer within the timeout'));
    }
  }

  hanging(kind: 'reads' | 'commands'): number {
    return this.#hanging[kind].length;
  }

  #hang<T>(kind: 'reads' | 'commands', signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((_, reject) => {
      this.#hanging[kind].push(reject);
      signal?.addEventListener('abort', () => reject(new RouterOsError('ROS_ERR_ABORTED', 'aborted')), { once: true });
    });
  }

  list(): Promise<RouterRecord[]> {
    return Promise.resolve([]);
  }

  getSingleton(_menu: string, options?: { signal?: AbortSignal }): Promise<RouterRecord> {
    if (this.reads === 'hang') return this.#hang('reads', options?.signal);
    return Promise.resolve({ uptime: '1d', version: '7.19 (stable)', 'cpu-load': '3' });
  }

  run(_command: string, _parameters?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    if (this.commandDelayMs === 'hang') return this.#hang('commands', options?.signal);
    const reply = [{ host: '10.0.0.1', sent: '3', received: '3', 'packet-loss': '0', 'avg-rtt': '1ms' }];
    return new Promise((resolve) => setTimeout(() => resolve(reply), this.commandDelayMs as number));
  }
}

function schedulerFor(names: readonly string[], clientFor: (name: string) => unknown, options: { collectors: Record<string, boolean>; ping?: boolean; maxInFlight?: number }) {
  const triggers = new ManualTriggers();
  const store = new SnapshotStore();
  const scheduler = new Scheduler({
    store,
    logger,
    clientFor: (router) => clientFor(router.name) as JobContext['client'],
    triggerFactory: triggers.factory,
    jitter: false,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
  });
  scheduler.load(
    testConfig({
      defaults: { username: 'u', password: 'p', collectors: options.collectors },
      // The default ping: 3 echoes 1 s apart.
      routers: names.map((name, index) => ({ name, url: `https://192.0.2.${index + 1}`, ...(options.ping === true ? { ping: [{ target: '10.0.0.1' }] } : {}) })),
    }),
  );
  return { scheduler, triggers, store };
}

describe('a run that moves off the quick cap', () => {
  it('moves at once, past the waiting cap when it is full, so silent routers queued there cannot keep it on the quick cap', async () => {
    vi.useFakeTimers();
    const silent = ['s1', 's2', 's3', 's4', 's5', 's6', 's7'];
    const names = [...silent, 'newly', 'live'];
    const clients = new Map(names.map((name) => [name, new FakeClient()]));
    // Quick cap 1, waiting cap 4.
    const { scheduler, triggers } = schedulerFor(names, (name) => clients.get(name), { collectors: only('system'), maxInFlight: 1 });
    scheduler.start(false);
    const client = (name: string): FakeClient => clients.get(name) as FakeClient;
    // s1…s7 are known silent: their last run did not answer.
    for (const name of silent) {
      client(name).behaviour = 'hang';
      triggers.fire(`${name}/system`);
      await vi.advanceTimersByTimeAsync(0);
      client(name).releaseAll();
      await vi.advanceTimersByTimeAsync(0);
    }
    // Their next runs: four wait out their timeouts on the waiting cap, s5 and s6 queue for it.
    for (const name of silent.slice(0, 6)) triggers.fire(`${name}/system`);
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.occupancy().waiting).toEqual({ inFlight: 4, queued: 2 });
    // `newly` stops answering now and holds the one quick permit; `live` waits for it.
    client('newly').behaviour = 'hang';
    triggers.fire('newly/system');
    await vi.advanceTimersByTimeAsync(0);
    triggers.fire('live/system');
    await vi.advanceTimersByTimeAsync(1_900);
    expect(client('live').calls).toBe(0);
    // Past its patience `newly` moves to the full waiting cap (one past its 4) and `live` runs at once. (It used to
    // queue there behind s5 and s6 and keep the quick permit until three silent runs had ended.)
    await vi.advanceTimersByTimeAsync(200);
    expect(client('live').calls).toBe(1);
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 5, queued: 2 }, timed: { inFlight: 0, queued: 0 } });
    // `newly` is carried without a permit: s1's end grants s5 at once, as if it had not moved there (found by
    // review: carried runs that took permits to pay back first kept a queued silent router waiting for good).
    client('s1').releaseAll();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.occupancy().waiting).toEqual({ inFlight: 5, queued: 1 });
    client('newly').releaseAll();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.occupancy().waiting).toEqual({ inFlight: 4, queued: 1 });
    for (const c of clients.values()) c.releaseAll();
    await vi.advanceTimersByTimeAsync(0);
    for (const c of clients.values()) c.releaseAll();
    await scheduler.stop();
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 0, queued: 0 }, timed: { inFlight: 0, queued: 0 } });
  });

  it("a ping holds a timed permit, never a quick one: answering routers' reads do not wait behind pings", async () => {
    vi.useFakeTimers();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const clients = new Map(names.map((name) => [name, new SplitClient()]));
    // Quick cap 1: five pings of 3 s held it 15 s before (found by review: 600 routers with a ping each left their
    // 30 s reads one run a minute).
    const { scheduler, triggers, store } = schedulerFor(names, (name) => clients.get(name), { collectors: only('system', 'ping'), ping: true, maxInFlight: 1 });
    for (const client of clients.values()) client.commandDelayMs = 3_000;
    scheduler.start(false);
    for (const name of triggers.ticks.keys()) if (name.includes('/ping')) triggers.fire(name);
    await vi.advanceTimersByTimeAsync(100);
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 0, queued: 0 }, timed: { inFlight: 5, queued: 0 } });
    for (const name of names) triggers.fire(`${name}/system`);
    await vi.advanceTimersByTimeAsync(100);
    for (const name of names) expect(store.snapshots(name).find((snapshot) => snapshot.job === 'system')?.ok, name).toBe(true);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 0, queued: 0 }, timed: { inFlight: 0, queued: 0 } });
    await scheduler.stop();
  });

  it('a ping of a router that did not answer its last run waits on the waiting cap, not on the timed one', async () => {
    vi.useFakeTimers();
    const client = new SplitClient();
    const { scheduler, triggers } = schedulerFor(['a'], () => client, { collectors: only('system', 'ping'), ping: true });
    await timedRunAfterSilentRead(client, scheduler, triggers, '/ping');
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 1, queued: 0 }, timed: { inFlight: 0, queued: 0 } });
    client.timeOut();
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.occupancy().waiting.inFlight).toBe(0);
    await scheduler.stop();
  });
});

/**
 * Router `a` leaves its system read unanswered (timed out), and then its timed jobs whose trigger names hold `match`
 * fire, their commands hanging: where they wait says which cap a silent router's timed run takes.
 */
async function timedRunAfterSilentRead(client: SplitClient, scheduler: Scheduler, triggers: ManualTriggers, match: string): Promise<void> {
  client.reads = 'hang';
  client.commandDelayMs = 'hang';
  scheduler.start(false);
  triggers.fire('a/system');
  await vi.advanceTimersByTimeAsync(0);
  client.timeOut('reads');
  await vi.advanceTimersByTimeAsync(0);
  for (const name of triggers.ticks.keys()) if (name.includes(match)) triggers.fire(name);
  await vi.advanceTimersByTimeAsync(0);
}

describe('a bandwidth test', () => {
  it("keeps to the bandwidth tests' share of the timed cap when its router did not answer its last run", async () => {
    // On the silent routers' cap, a fleet of silent routers' tests escaped the share of 32 (found by review).
    vi.useFakeTimers();
    const client = new SplitClient();
    const triggers = new ManualTriggers();
    const scheduler = new Scheduler({ store: new SnapshotStore(), logger, clientFor: () => client as unknown as JobContext['client'], triggerFactory: triggers.factory, jitter: false });
    scheduler.load(
      testConfig({
        defaults: { username: 'u', password: 'p', collectors: only('system', 'bandwidth_test') },
        routers: [{ name: 'a', url: 'https://192.0.2.1', bandwidth_test: [{ target: '10.0.0.2', duration: '5s' }] }],
      }),
    );
    await timedRunAfterSilentRead(client, scheduler, triggers, 'bandwidth');
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 0, queued: 0 }, timed: { inFlight: 1, queued: 0 } });
    client.timeOut();
    await vi.advanceTimersByTimeAsync(0);
    await scheduler.stop();
  });
});

describe('readiness', () => {
  it('stays true once a router was counted, when a silent router answers again before its other jobs ran', async () => {
    const r = new SplitClient();
    const live = new SplitClient();
    const { scheduler, triggers, store } = schedulerFor(['r', 'live'], (name) => (name === 'r' ? r : live), { collectors: only('system', 'ping'), ping: true });
    r.reads = 'hang';
    r.commandDelayMs = 'hang';
    scheduler.start(false);
    for (const name of triggers.ticks.keys()) triggers.fire(name);
    await expect.poll(() => r.hanging('reads') + r.hanging('commands')).toBe(2);
    expect(scheduler.ready()).toBe(false);
    // r's system run times out: r is silent, its ping (the other job readiness waits for) still in flight.
    r.timeOut('reads');
    await expect.poll(() => scheduler.ready()).toBe(true);
    // r answers its next system run; its ping has still never finished.
    r.reads = 'ok';
    triggers.fire('r/system');
    await expect.poll(() => store.snapshots('r').find((snapshot) => snapshot.job === 'system')?.ok).toBe(true);
    expect(r.hanging('commands')).toBe(1);
    expect(scheduler.ready()).toBe(true);
    r.commandDelayMs = 0;
    await scheduler.stop();
  });

  it('stays ready when a reload adds or changes a job of a router already tried, and counts a router at another URL again', async () => {
    const client = new SplitClient();
    const config = (ping: boolean, labels: Record<string, string> = {}, url = 'https://192.0.2.1') =>
      testConfig({ defaults: { username: 'u', password: 'p', collectors: only('system', 'ping') }, routers: [{ name: 'r', url, labels, ...(ping ? { ping: [{ target: '10.0.0.1' }] } : {}) }] });
    const triggers = new ManualTriggers();
    const scheduler = new Scheduler({ store: new SnapshotStore(), logger, clientFor: () => client as unknown as JobContext['client'], triggerFactory: triggers.factory, jitter: false });
    scheduler.load(config(false));
    scheduler.start(false);
    triggers.fire('r/system');
    await expect.poll(() => scheduler.ready()).toBe(true);
    client.commandDelayMs = 'hang';
    client.reads = 'hang';
    // A ping added, then the router's labels changed (every job replaced): the new runs are under way, and the
    // exporter stays ready (it went unready until they ran, for up to a backoff's 10 minutes: found by review).
    scheduler.load(config(true));
    await expect.poll(() => client.hanging('commands')).toBe(1);
    expect(scheduler.ready()).toBe(true);
    scheduler.load(config(true, { site: 'ams' }));
    await expect.poll(() => client.hanging('reads')).toBe(1);
    expect(scheduler.ready()).toBe(true);
    // Another URL may be another device: it is tried again before the exporter says ready.
    scheduler.load(config(true, { site: 'ams' }, 'https://192.0.2.9'));
    await expect.poll(() => client.hanging('reads')).toBe(1);
    expect(scheduler.ready()).toBe(false);
    client.reads = 'ok';
    client.commandDelayMs = 0;
    client.timeOut();
    await expect.poll(() => scheduler.ready()).toBe(true);
    await scheduler.stop();
  });
});
