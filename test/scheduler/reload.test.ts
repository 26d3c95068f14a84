/**
 * Reloads keep what did not change: runs in flight of unchanged jobs go on and record, their triggers stay;
 * changed jobs are replaced; jobs a reload adds run at once. Driven by hand (manual triggers, a client whose
 * answers the test releases), so nothing waits on a clock.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { CollectorName } from '../../src/config/types.js';
import type { TriggerFactory } from '../../src/scheduler/trigger.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { registerSecret } from '../../src/util/redact.js';

const logger = pino({ level: 'silent' });

type Options = { signal?: AbortSignal } | undefined;

/**
 * Answers like FakeClient, but requests whose key (`system`, `wireguard`, `ping:<address>`) is held wait until
 * the test releases them; an abort while waiting is counted and rejects, as the real client does.
 */
class GatedClient implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  readonly inner = new FakeClient();
  readonly held = new Set<string>();
  readonly started = new Map<string, number>();
  readonly aborted = new Map<string, number>();
  #waiting: { key: string; release: () => void }[] = [];
  #watchers: { key: string; count: number; resolve: () => void }[] = [];

  /** Resolves once `count` requests with this key have reached the client (runs start after a microtask or two). */
  reached(key: string, count = 1): Promise<void> {
    if ((this.started.get(key) ?? 0) >= count) return Promise.resolve();
    return new Promise((resolve) => this.#watchers.push({ key, count, resolve }));
  }

  release(key: string): void {
    const [now, later] = [this.#waiting.filter((w) => w.key === key), this.#waiting.filter((w) => w.key !== key)];
    this.#waiting = later;
    for (const waiter of now) waiter.release();
  }

  async #gate(key: string, options: Options): Promise<void> {
    const started = (this.started.get(key) ?? 0) + 1;
    this.started.set(key, started);
    for (const watcher of this.#watchers.filter((w) => w.key === key && w.count <= started)) watcher.resolve();
    if (!this.held.has(key)) return;
    if (options?.signal?.aborted === true) throw new Error('aborted');
    await new Promise<void>((resolve, reject) => {
      options?.signal?.addEventListener(
        'abort',
        () => {
          this.aborted.set(key, (this.aborted.get(key) ?? 0) + 1);
          reject(new Error('aborted'));
        },
        { once: true },
      );
      this.#waiting.push({ key, release: resolve });
    });
  }

  async list(menu: string, options?: { signal?: AbortSignal }): Promise<RouterRecord[]> {
    await this.#gate(menu.startsWith('interface/wireguard') ? 'wireguard' : menu, options);
    return this.inner.list(menu, options);
  }

  async getSingleton(menu: string, options?: { signal?: AbortSignal }): Promise<RouterRecord> {
    await this.#gate(menu === 'system/resource' ? 'system' : menu, options);
    return this.inner.getSingleton(menu, options);
  }

  async run(command: string, parameters?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    const address = (parameters as { address?: string } | undefined)?.address ?? '';
    await this.#gate(`${command}:${address}`, options);
    return this.inner.run(command, parameters, options);
  }
}

/** Counts trigger creations per name, so a test can tell a kept trigger from a restarted one. */
function countingTriggers(): { triggers: ManualTriggers; created: Map<string, number>; factory: TriggerFactory } {
  const triggers = new ManualTriggers();
  const created = new Map<string, number>();
  const factory: TriggerFactory = (expression, onTick, name) => {
    created.set(name, (created.get(name) ?? 0) + 1);
    return triggers.factory(expression, onTick, name);
  };
  return { triggers, created, factory };
}

/** Resolves at the next recorded run of that router and job. */
function nextRecord(store: SnapshotStore, router: string, collector: CollectorName): Promise<void> {
  return new Promise((resolve) => {
    const off = store.subscribe((r, c) => {
      if (r === router && c === collector) {
        off();
        resolve();
      }
    });
  });
}

interface PingRaw {
  target: string;
  count?: number;
}

/** A fresh config object each time, as re-reading an unchanged file gives. */
function configOf(routers: { name: string; ping?: PingRaw[] }[]) {
  return testConfig({
    defaults: { username: 'u', password: 'p', timeout: '2s', collectors: { wireguard: false } },
    routers: routers.map(({ name, ping }, i) => ({
      name,
      url: `https://192.0.2.${i + 1}`,
      ...(ping === undefined ? {} : { ping: ping.map((p) => ({ interval: '1s', schedule: '*/10 * * * * *', ...p })) }),
    })),
  });
}

function setup(names: string[]) {
  const clients = new Map(names.map((name) => [name, new GatedClient()]));
  const store = new SnapshotStore();
  const { triggers, created, factory } = countingTriggers();
  const scheduler = new Scheduler({
    store,
    logger,
    clientFor: (router) => {
      const client = clients.get(router.name) ?? new GatedClient();
      clients.set(router.name, client);
      return client;
    },
    triggerFactory: factory,
    jitter: false,
  });
  const client = (name: string): GatedClient => clients.get(name) as GatedClient;
  return { clients, client, store, triggers, created, scheduler };
}

const pingJob = (store: SnapshotStore, router: string, target: string) =>
  store.snapshots(router).find((snapshot) => snapshot.job === `ping:${JSON.stringify([target, target])}`);

describe('a load handed the same routers (a discovered target came or went)', () => {
  it('keeps every router it was handed as the same object, building only the new one; a secret registered since, or a new object, builds again', async () => {
    const { created, scheduler, triggers, store } = setup(['a', 'b', 'c']);
    const first = configOf([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect(scheduler.load(first)).toEqual({ built: 3, kept: 0 });
    scheduler.start(false);
    // The same objects, one more router: as the registry's loads hand them.
    const more = { ...first, routers: [...first.routers, ...configOf([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]).routers.slice(3)] };
    expect(scheduler.load(more)).toEqual({ built: 1, kept: 3 });
    expect(scheduler.load(more)).toEqual({ built: 0, kept: 4 });
    // What was kept runs and records as before: its trigger not restarted.
    expect(created.get('a/system')).toBe(1);
    const recorded = nextRecord(store, 'a', 'system');
    triggers.fire('a/system');
    await recorded;
    expect(store.snapshots('d').map((snapshot) => snapshot.job)).toContain('system');
    // A router another object (a reload re-read the file) is built again, its unchanged jobs kept by fingerprint.
    const reread = configOf([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    expect(scheduler.load(reread)).toEqual({ built: 4, kept: 0 });
    expect(created.get('a/system')).toBe(1);
    // A secret registered since may redact a label otherwise: every router is built again.
    registerSecret(`secret-${String(Math.random())}`);
    expect(scheduler.load(reread)).toEqual({ built: 4, kept: 0 });
    expect(scheduler.load(reread)).toEqual({ built: 0, kept: 4 });
    // A router moved to the low lane (made a discovered target) is built again: its label says so.
    expect(scheduler.load(reread, new Set(['b']))).toEqual({ built: 1, kept: 3 });
    await scheduler.stop();
  });
});

describe('reloading keeps what did not change', () => {
  it('a slow ping in flight survives 10 reloads of an unchanged config and records its result', async () => {
    const { client, store, triggers, created, scheduler } = setup(['a']);
    const routers = [{ name: 'a', ping: [{ target: '192.0.2.50', count: 4 }] }];
    scheduler.load(configOf(routers));
    scheduler.start(false);
    client('a').held.add('ping:192.0.2.50');
    triggers.fire('a/ping:["192.0.2.50","192.0.2.50"]');
    await client('a').reached('ping:192.0.2.50');

    for (let i = 0; i < 10; i++) scheduler.load(configOf(routers));

    expect(client('a').aborted.get('ping:192.0.2.50')).toBeUndefined();
    // Kept triggers are not restarted (a restart could skip a tick or move a pending jitter delay).
    expect(created.get('a/ping:["192.0.2.50","192.0.2.50"]')).toBe(1);
    expect(created.get('a/system')).toBe(1);
    const recorded = nextRecord(store, 'a', 'ping');
    client('a').release('ping:192.0.2.50');
    await recorded;
    expect(pingJob(store, 'a', '192.0.2.50')?.ok).toBe(true);
    // The reloads started no second run.
    expect(client('a').started.get('ping:192.0.2.50')).toBe(1);
    await scheduler.stop();
  });

  it('a changed job is replaced (its run aborted, the new one run at once); an unchanged sibling is not', async () => {
    const { client, store, triggers, created, scheduler } = setup(['a']);
    const before = [{ name: 'a', ping: [{ target: '192.0.2.50' }, { target: '192.0.2.51' }] }];
    scheduler.load(configOf(before));
    scheduler.start(false);
    client('a').held.add('ping:192.0.2.50');
    client('a').held.add('ping:192.0.2.51');
    triggers.fire('a/ping:["192.0.2.50","192.0.2.50"]');
    triggers.fire('a/ping:["192.0.2.51","192.0.2.51"]');
    await Promise.all([client('a').reached('ping:192.0.2.50'), client('a').reached('ping:192.0.2.51')]);

    scheduler.load(configOf([{ name: 'a', ping: [{ target: '192.0.2.50', count: 5 }, { target: '192.0.2.51' }] }]));

    expect(client('a').aborted.get('ping:192.0.2.50')).toBe(1);
    await client('a').reached('ping:192.0.2.50', 2);
    expect(client('a').started.get('ping:192.0.2.50')).toBe(2);
    expect(created.get('a/ping:["192.0.2.50","192.0.2.50"]')).toBe(2);
    expect(client('a').aborted.get('ping:192.0.2.51')).toBeUndefined();
    expect(client('a').started.get('ping:192.0.2.51')).toBe(1);
    expect(created.get('a/ping:["192.0.2.51","192.0.2.51"]')).toBe(1);
    expect(created.get('a/system')).toBe(1);

    const both = Promise.all([nextRecord(store, 'a', 'ping'), nextRecord(store, 'a', 'ping')]);
    client('a').release('ping:192.0.2.50');
    client('a').release('ping:192.0.2.51');
    await both;
    expect(pingJob(store, 'a', '192.0.2.50')?.ok).toBe(true);
    expect(pingJob(store, 'a', '192.0.2.51')?.ok).toBe(true);
    await scheduler.stop();
  });

  it('a change of the connection settings replaces every job of that router, and only of that router', async () => {
    const { client, triggers, created, scheduler } = setup(['a', 'b']);
    scheduler.load(configOf([{ name: 'a' }, { name: 'b' }]));
    scheduler.start(false);
    client('a').held.add('system');
    client('b').held.add('system');
    triggers.fire('a/system');
    triggers.fire('b/system');
    await Promise.all([client('a').reached('system'), client('b').reached('system')]);
    const changed = configOf([{ name: 'a' }, { name: 'b' }]);
    const b = changed.routers[1];
    if (b === undefined) throw new Error('no router b');
    changed.routers[1] = { ...b, timeoutSeconds: 3 };
    scheduler.load(changed);
    expect(client('a').aborted.get('system')).toBeUndefined();
    expect(client('b').aborted.get('system')).toBe(1);
    expect(created.get('a/system')).toBe(1);
    expect(created.get('b/system')).toBe(2);
    client('a').release('system');
    await scheduler.stop();
  });

  it('a router and a ping target added by a reload are collected at once, not at their next tick', async () => {
    const { client, store, scheduler, triggers } = setup(['a']);
    scheduler.load(configOf([{ name: 'a' }]));
    scheduler.start(false);
    const added = Promise.all([nextRecord(store, 'b', 'system'), nextRecord(store, 'a', 'ping')]);
    scheduler.load(configOf([{ name: 'a', ping: [{ target: '192.0.2.60' }] }, { name: 'b' }]));
    await added;
    expect(client('b').started.get('system')).toBe(1);
    expect(client('a').started.get('ping:192.0.2.60')).toBe(1);
    // The router that was there already is not run again by the reload.
    expect(client('a').started.get('system')).toBeUndefined();
    // Every job of the new router runs at once (some make more than one request, so they end later).
    await expect.poll(() => store.tried('b')).toBe(true);
    expect(triggers.ticks.has('b/system')).toBe(true);
    await scheduler.stop();
  });

  it('a removed router stops: its triggers go, its run in flight is aborted, its series are dropped', async () => {
    const { client, store, triggers, scheduler } = setup(['a', 'b']);
    scheduler.load(configOf([{ name: 'a' }, { name: 'b' }]));
    await scheduler.runAllOnce();
    scheduler.start(false);
    client('b').held.add('system');
    triggers.fire('b/system');
    // The second: the first was runAllOnce's.
    await client('b').reached('system', 2);
    scheduler.load(configOf([{ name: 'a' }]));
    expect(client('b').aborted.get('system')).toBe(1);
    expect(triggers.ticks.has('b/system')).toBe(false);
    expect(store.routerNames()).toEqual(['a']);
    await scheduler.stop();
  });
});

describe('readiness', () => {
  it('waits for frequent jobs only: an hourly ping in flight does not hold it back, and a daily bandwidth test does not start', async () => {
    const { client, store, scheduler } = setup(['a']);
    const configWith = (duration: string) =>
      testConfig({
        defaults: { username: 'u', password: 'p', timeout: '2s', collectors: { wireguard: false } },
        routers: [
          {
            name: 'a',
            url: 'https://192.0.2.1',
            ping: [{ target: '192.0.2.70', schedule: '0 0 * * * *' }],
            bandwidth_test: [{ target: '192.0.2.80', duration, schedule: '0 3 * * *' }],
          },
        ],
      });
    scheduler.load(configWith('10s'));
    client('a').held.add('tool/bandwidth-test:192.0.2.80');
    client('a').held.add('ping:192.0.2.70');
    client('a').held.add('system');
    scheduler.start(true);
    await Promise.all(['system', 'ping:192.0.2.70'].map((key) => client('a').reached(key)));
    expect(scheduler.ready()).toBe(false);
    const system = nextRecord(store, 'a', 'system');
    client('a').release('system');
    await system;
    // The router's other reading jobs, which waited for system's turn, finish; the hourly ping is still running.
    await expect.poll(() => scheduler.ready()).toBe(true);
    expect(client('a').aborted.size).toBe(0);
    // The bandwidth test waits for 03:00: a start does not load the link (found by review: every restart tested
    // every router's link at once). A reload that changes it does not run it either.
    scheduler.load(configWith('5s'));
    await Promise.resolve();
    expect(client('a').started.get('tool/bandwidth-test:192.0.2.80')).toBeUndefined();
    expect(scheduler.ready()).toBe(true);
    await scheduler.stop();
  });
});
