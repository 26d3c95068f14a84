import { describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { testConfig } from '../helpers/config.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const logger = pino({ level: 'silent' });
/** One job per router (the tests count runs and calls): every collector of the catalog off but `system`. */
const SYSTEM_ONLY = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));

function setup(names: string[], maxInFlight?: number) {
  const clients = new Map(names.map((name) => [name, new FakeClient()]));
  const store = new SnapshotStore();
  const triggers = new ManualTriggers();
  const scheduler = new Scheduler({
    store,
    logger,
    clientFor: (router) => clients.get(router.name) as FakeClient,
    triggerFactory: triggers.factory,
    jitter: false,
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  });
  const config = testConfig({
    defaults: { username: 'u', password: 'p', collectors: SYSTEM_ONLY },
    routers: names.map((name, i) => ({ name, url: `https://192.0.2.${i + 1}` })),
  });
  scheduler.load(config);
  const text = (): string =>
    new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
  return { clients, store, triggers, scheduler, text, config };
}

describe('scheduler', () => {
  it('never overlaps a job with itself', async () => {
    const { clients, scheduler } = setup(['a']);
    const client = clients.get('a') as FakeClient;
    client.behaviour = 'hang';
    const first = scheduler.runAllOnce();
    expect(await scheduler.runAllOnce()).toEqual(['skipped']);
    expect(client.calls).toBe(1);
    client.releaseAll();
    expect(await first).toEqual(['failed']);
  });

  it('a hanging router does not delay the others', async () => {
    const { clients, scheduler, text } = setup(['slow', 'fast']);
    (clients.get('slow') as FakeClient).behaviour = 'hang';
    scheduler.start(false);
    const pending = scheduler.runAllOnce();
    // The fast router's run finishes while the slow one still hangs.
    await expect.poll(() => text()).toContain('routeros_up{router="fast"} 1');
    expect(text()).not.toContain('router="slow"} 1');
    (clients.get('slow') as FakeClient).releaseAll();
    await pending;
    expect(text()).toContain('routeros_up{router="slow"} 0');
    await scheduler.stop();
  });

  it("runs a router's reading jobs one at a time, its commands alongside them, and other routers' at once", async () => {
    const clients = new Map(['a', 'b'].map((name) => [name, new FakeClient()]));
    const scheduler = new Scheduler({ store: new SnapshotStore(), logger, clientFor: (router) => clients.get(router.name) as FakeClient, jitter: false });
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system' || name === 'wireguard' || name === 'ping']));
    scheduler.load(testConfig({
      defaults: { username: 'u', password: 'p', collectors },
      routers: ['a', 'b'].map((name, i) => ({ name, url: `https://192.0.2.${i + 1}`, ping: [{ target: '10.0.0.1' }] })),
    }));
    const [a, b] = [clients.get('a') as FakeClient, clients.get('b') as FakeClient];
    a.behaviour = 'hang';
    b.behaviour = 'hang';
    const pending = scheduler.runAllOnce();
    // Each router: one reading job (system or wireguard) and the ping; the other reading job waits its turn.
    await expect.poll(() => [a.inFlight, b.inFlight]).toEqual([2, 2]);
    await Promise.resolve();
    expect([a.calls, b.calls]).toEqual([2, 2]);
    a.releaseAll();
    // The first reading job ended (failed), and only then did the second start.
    await expect.poll(() => a.calls).toBe(3);
    expect(a.inFlight).toBe(1);
    a.releaseAll();
    b.releaseAll();
    await expect.poll(() => b.calls).toBe(3);
    b.releaseAll();
    expect(await pending).toEqual(Array<string>(6).fill('failed'));
    expect([a.maxInFlight, b.maxInFlight]).toEqual([2, 2]);
  });

  it('caps the number of runs in flight across routers', async () => {
    const { clients, scheduler } = setup(['a', 'b', 'c'], 2);
    for (const client of clients.values()) client.behaviour = 'hang';
    const pending = scheduler.runAllOnce();
    await expect.poll(() => [...clients.values()].reduce((sum, c) => sum + c.inFlight, 0)).toBe(2);
    await Promise.resolve();
    expect([...clients.values()].reduce((sum, c) => sum + c.calls, 0)).toBe(2);
    for (const client of clients.values()) client.releaseAll();
    await expect.poll(() => [...clients.values()].reduce((sum, c) => sum + c.calls, 0)).toBe(3);
    for (const client of clients.values()) client.releaseAll();
    await pending;
  });

  it('a router that did not answer its last run waits out the next on permits of its own, not on those the answering routers need', async () => {
    const { clients, scheduler } = setup(['dead', 'live'], 1);
    const [dead, live] = [clients.get('dead') as FakeClient, clients.get('live') as FakeClient];
    dead.behaviour = 'hang';
    // The first time, nothing says yet that it will not answer (runner.ts: it holds the permit until its timeout
    // or for PATIENCE_SECONDS, whichever comes first).
    const first = scheduler.runAllOnce();
    await expect.poll(() => dead.inFlight).toBe(1);
    dead.releaseAll();
    expect(await first).toEqual(['failed', 'ok']);
    // Now it is silent: its run hangs on a permit of the silent routers' cap, and the live router's run goes on.
    const second = scheduler.runAllOnce();
    // Well within PATIENCE_SECONDS (runner.ts), after which even a run under the common cap would move off it.
    await expect.poll(() => live.calls, { timeout: 500 }).toBe(2);
    expect(dead.inFlight).toBe(1);
    // As routeros_exporter_runs_in_flight and _queued show it.
    expect(scheduler.occupancy()).toEqual({ quick: { inFlight: 0, queued: 0 }, waiting: { inFlight: 1, queued: 0 }, timed: { inFlight: 0, queued: 0 } });
    dead.releaseAll();
    expect(await second).toEqual(['failed', 'ok']);
    dead.behaviour = 'ok';
    expect(await scheduler.runAllOnce()).toEqual(['ok', 'ok']);
  });

  it('counts a router its first run found silent as tried: readiness does not wait for its other jobs to time out', async () => {
    const clients = new Map(['dead', 'live'].map((name) => [name, new FakeClient()]));
    const scheduler = new Scheduler({ store: new SnapshotStore(), logger, clientFor: (router) => clients.get(router.name) as FakeClient, jitter: false });
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system' || name === 'wireguard']));
    scheduler.load(testConfig({
      defaults: { username: 'u', password: 'p', collectors },
      routers: ['dead', 'live'].map((name, i) => ({ name, url: `https://192.0.2.${i + 1}` })),
    }));
    const dead = clients.get('dead') as FakeClient;
    dead.behaviour = 'hang';
    const pending = scheduler.runAllOnce();
    await expect.poll(() => dead.calls).toBe(1);
    expect(scheduler.ready()).toBe(false);
    // Its first reading job times out; the second starts and hangs in turn. The live router is done.
    dead.releaseAll();
    await expect.poll(() => dead.calls).toBe(2);
    expect(scheduler.ready()).toBe(true);
    dead.releaseAll();
    expect(await pending).toEqual(['failed', 'failed', 'ok', 'ok']);
  });

  it('a scheduled tick runs the job; a failure drops data series and counts the reason', async () => {
    const { clients, scheduler, triggers, text } = setup(['a']);
    scheduler.start(false);
    triggers.fire('a/system');
    await expect.poll(() => text()).toContain('routeros_system_uptime_seconds{router="a"}');
    (clients.get('a') as FakeClient).behaviour = new RouterOsError('ROS_ERR_HTTP_5XX', 'boom', { status: 500 });
    await scheduler.runAllOnce();
    expect(text()).not.toContain('routeros_system_uptime_seconds{router="a"}');
    expect(text()).toContain('routeros_collector_errors_total{router="a",collector="system",reason="http_5xx"} 1');
    expect(text()).toContain('routeros_up{router="a"} 0');
    await scheduler.stop();
  });

  it('backs off after an authentication failure, visibly, and recovers', async () => {
    const { clients, scheduler, text } = setup(['a']);
    const client = clients.get('a') as FakeClient;
    client.behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
    expect(await scheduler.runAllOnce()).toEqual(['failed']);
    expect(await scheduler.runAllOnce()).toEqual(['skipped']);
    expect(client.calls).toBe(1);
    expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",collector="system"\} 30\n/);
  });

  it('shows the backoff as 0 once it has ended, not only at the next run (an hourly job showed 30 s for an hour)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { clients, scheduler, text } = setup(['a']);
      (clients.get('a') as FakeClient).behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
      expect(await scheduler.runAllOnce()).toEqual(['failed']);
      expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",collector="system"\} 30\n/);
      await vi.advanceTimersByTimeAsync(29_000);
      expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",collector="system"\} 30\n/);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",collector="system"\} 0\n/);
      await scheduler.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a reload that changes a backing-off job (its router\'s labels) runs it at once: the router keeps its routeros_up 0', async () => {
    const { clients, scheduler, text, triggers } = setup(['a']);
    const client = clients.get('a') as FakeClient;
    client.behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
    scheduler.start(false);
    expect(await scheduler.runAllOnce()).toEqual(['failed']);
    expect(text()).toContain('routeros_up{router="a"} 0');
    scheduler.load(
      testConfig({ defaults: { username: 'u', password: 'p', collectors: SYSTEM_ONLY }, routers: [{ name: 'a', url: 'https://192.0.2.1', labels: { site: 'ams' } }] }),
    );
    // The router's series start again under its new labels; the replaced job ran at once in spite of its backoff
    // (before: skipped until the backoff ended, up to 10 minutes without routeros_up, its alerts resolved).
    await expect.poll(() => client.calls).toBe(2);
    await expect.poll(() => text()).toContain('routeros_up{router="a",site="ams"} 0');
    // Its streak goes on: the next failure backs off for 60 s, and the next tick is skipped.
    expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",site="ams",collector="system"\} 60\n/);
    triggers.fire('a/system');
    expect(client.calls).toBe(2);
    await scheduler.stop();
  });

  it("shows a backoff a replaced job took over though it does not run at once (a bandwidth test's)", async () => {
    const store = new SnapshotStore();
    const client = new FakeClient();
    const triggers = new ManualTriggers();
    const scheduler = new Scheduler({ store, logger, clientFor: () => client, triggerFactory: triggers.factory, jitter: false });
    const configWith = (labels: Record<string, string>) =>
      testConfig({
        defaults: { username: 'u', password: 'p', collectors: Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'bandwidth_test'])) },
        routers: [{ name: 'a', url: 'https://192.0.2.1', labels, bandwidth_test: [{ target: '10.0.0.2', duration: '1s', schedule: '0 3 * * *' }] }],
      });
    const text = (): string => new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
    scheduler.load(configWith({}));
    scheduler.start(false);
    client.behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
    expect(await scheduler.runAllOnce()).toEqual(['failed']);
    scheduler.load(configWith({ site: 'ams' }));
    // The router's entry started afresh under its new labels; the test waits for 03:00, its backoff is shown.
    expect(text()).toMatch(/routeros_collector_backoff_seconds\{router="a",site="ams",collector="bandwidth_test"\} (29|30)\n/);
    expect(client.calls).toBe(1);
    await scheduler.stop();
  });

  it('a reload that changes the connection settings ends the backoff at once', async () => {
    const store = new SnapshotStore();
    const clients = new Map<string, FakeClient>();
    // One client per password, as the app's client pool makes a new client when the settings change.
    const clientFor = (router: { password: { reveal(): string } }): FakeClient => {
      const key = router.password.reveal();
      const client = clients.get(key) ?? new FakeClient();
      clients.set(key, client);
      return client;
    };
    const scheduler = new Scheduler({ store, logger, clientFor, jitter: false });
    const configWith = (password: string) =>
      testConfig({ defaults: { username: 'u', password, collectors: SYSTEM_ONLY }, routers: [{ name: 'a', url: 'https://192.0.2.1' }] });
    scheduler.load(configWith('wrong'));
    (clients.get('wrong') as FakeClient).behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
    expect(await scheduler.runAllOnce()).toEqual(['failed']);
    expect(await scheduler.runAllOnce()).toEqual(['skipped']);
    scheduler.load(configWith('wrong'));
    expect(await scheduler.runAllOnce()).toEqual(['skipped']);
    scheduler.load(configWith('fixed'));
    expect(await scheduler.runAllOnce()).toEqual(['ok']);
  });

  it('a reload removes vanished routers and keeps the snapshots of the others', async () => {
    const { scheduler, text } = setup(['a', 'b']);
    await scheduler.runAllOnce();
    expect(text()).toContain('routeros_up{router="b"} 1');
    scheduler.load(
      testConfig({ defaults: { username: 'u', password: 'p', collectors: SYSTEM_ONLY }, routers: [{ name: 'a', url: 'https://192.0.2.1' }] }),
    );
    expect(text()).not.toContain('router="b"');
    expect(text()).toContain('routeros_up{router="a"} 1');
  });

  it('gives a job a logger made straight from the root when it first logs, with its router and collector on its lines', async () => {
    const lines: Record<string, unknown>[] = [];
    const root = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    // Children inherit the spied method, so a child's children would be recorded too, with the child as `this`.
    const child = vi.spyOn(root, 'child');
    const clients = new Map(['a', 'b', 'c'].map((name) => [name, new FakeClient()]));
    const scheduler = new Scheduler({ store: new SnapshotStore(), logger: root, clientFor: (router) => clients.get(router.name) as FakeClient, jitter: false });
    scheduler.load(
      testConfig({
        defaults: { username: 'u', password: 'p', collectors: { ...SYSTEM_ONLY, wireguard: true } },
        routers: ['a', 'b', 'c'].map((name, i) => ({ name, url: `https://192.0.2.${i + 1}` })),
      }),
    );
    // A job that has nothing to say makes no logger: a pino child is ~0.4 KB, 1.6 MB at 2,000 routers of two jobs.
    await scheduler.runAllOnce();
    expect(child).not.toHaveBeenCalled();
    (clients.get('b') as FakeClient).behaviour = new RouterOsError('ROS_ERR_AUTH', 'HTTP 401', { status: 401 });
    await scheduler.runAllOnce();
    // A logger that has children is their prototype, and V8 gives every prototype a map of its own: per-router
    // parents cost 2,000 loggers and maps at 2,000 routers. Only the root has children, one per job that logged.
    expect(child.mock.calls).toHaveLength(2);
    expect(child.mock.contexts.every((parent) => parent === root)).toBe(true);
    expect(child.mock.calls.map(([bindings]) => bindings)).toContainEqual({ router: 'b', collector: 'wireguard' });
    const failed = lines.filter((line) => line.msg !== undefined && String(line.msg).startsWith('collector failed'));
    expect(failed.length).toBe(2);
    for (const line of failed) expect(line).toMatchObject({ router: 'b', collector: expect.stringMatching(/^(system|wireguard)$/), job: line.collector });
  });

  it('records where each run started among the runs recorded: the runs of one tick all start before any is recorded', async () => {
    const store = new SnapshotStore();
    const client = new FakeClient();
    client.behaviour = new RouterOsError('ROS_ERR_TIMEOUT', 'no answer');
    const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor: () => client, jitter: false });
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'interface' || name === 'wireguard']));
    scheduler.load(testConfig({ defaults: { username: 'u', password: 'p', collectors }, routers: [{ name: 'a', url: 'https://192.0.2.1' }] }));
    await scheduler.runAllOnce();
    const snapshots = store.snapshots('a');
    expect(snapshots.map((snapshot) => snapshot.seq).sort()).toEqual([1, 2]);
    // Both started with nothing recorded: a silent streak starts where its run started, not where it was recorded.
    expect(snapshots.map((snapshot) => snapshot.silentSince)).toEqual([0, 0]);
  });
});

