/**
 * Router labels through the scheduler: the labels of the config reach every series the jobs write, and a
 * reload that changes them replaces the router's jobs and series (none stays under the old labels).
 * Driven by hand: manual triggers, a scripted client, each step awaiting the store's record notice.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { COLLECTOR_NAMES, type CollectorName } from '../../src/config/types.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { RouterOsError } from '../../src/routeros/errors.js';

/** Only `system` runs: one job is enough to follow the labels. */
function configWith(labels: Record<string, string>) {
  const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
  return testConfig({
    defaults: { username: 'u', password: 'p', collectors, labels: { env: 'prod' } },
    routers: [{ name: 'hq', url: 'https://192.0.2.1', labels }],
  });
}

function nextRecord(store: SnapshotStore, collector: CollectorName): Promise<void> {
  return new Promise((resolve) => {
    const off = store.subscribe((_router, recorded) => {
      if (recorded === collector) {
        off();
        resolve();
      }
    });
  });
}

describe('router labels through the scheduler', () => {
  it('label every series of the router, and a reload that changes them replaces its series', async () => {
    const store = new SnapshotStore();
    const triggers = new ManualTriggers();
    const client = new FakeClient();
    const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor: () => client, triggerFactory: triggers.factory, jitter: false });
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));

    scheduler.load(configWith({ site: 'ams' }));
    scheduler.start(false);
    const first = nextRecord(store, 'system');
    triggers.fire('hq/system');
    await first;
    const before = exposition.routerText('text');
    expect(before).toContain('routeros_up{router="hq",env="prod",site="ams"} 1\n');
    expect(before).toContain('routeros_system_cpu_cores{router="hq",env="prod",site="ams"} 1\n');
    expect(before).toContain('routeros_collector_success{router="hq",env="prod",site="ams",collector="system"} 1\n');

    // The changed job runs at once after the reload; until then no series is left under the old labels.
    const second = nextRecord(store, 'system');
    scheduler.load(configWith({ site: 'lon' }));
    expect(exposition.routerText('text')).not.toContain('site="ams"');
    await second;
    const after = exposition.routerText('text');
    expect(after).not.toContain('site="ams"');
    expect(after).toContain('routeros_up{router="hq",env="prod",site="lon"} 1\n');
    expect(after).toContain('routeros_system_cpu_cores{router="hq",env="prod",site="lon"} 1\n');
    await scheduler.stop();
  });
});

describe('a router a reload points elsewhere or reaches otherwise (found by review)', () => {
  function configAt(url: string, settings: { schedule?: string; timeout?: string; password?: string } = {}) {
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
    return testConfig({
      defaults: { username: 'u', password: settings.password ?? 'p', collectors, timeout: settings.timeout ?? '5s' },
      routers: [{ name: 'hq', url, schedules: { system: settings.schedule ?? '*/30 * * * * *' } }],
    });
  }

  /** As the real pool keys clients: by every connection setting, so a timeout or a password makes another one. */
  function scripted() {
    const store = new SnapshotStore();
    const triggers = new ManualTriggers();
    const clients = new Map<string, FakeClient>();
    const clientFor = (router: { url: string; timeoutSeconds: number; password: { reveal(): string } }): FakeClient => {
      const key = `${router.url}|${router.timeoutSeconds}|${router.password.reveal()}`;
      let client = clients.get(key);
      if (client === undefined) clients.set(key, (client = new FakeClient()));
      return client;
    };
    const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor, triggerFactory: triggers.factory, jitter: false });
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    return { store, triggers, clients, scheduler, exposition };
  }

  it('another URL: nothing of the old endpoint is served as its own, no routeros_up until its first run there records', async () => {
    const { store, triggers, scheduler, exposition } = scripted();
    scheduler.load(configAt('https://192.0.2.1'));
    scheduler.start(false);
    const first = nextRecord(store, 'system');
    triggers.fire('hq/system');
    await first;
    expect(exposition.routerText('text')).toContain('routeros_up{router="hq"} 1\n');

    // Changes that keep the device keep what was collected: the schedule, the timeout (a new client), a password.
    scheduler.load(configAt('https://192.0.2.1', { schedule: '*/15 * * * * *' }));
    scheduler.load(configAt('https://192.0.2.1', { schedule: '*/15 * * * * *', timeout: '3s', password: 'rotated' }));
    expect(exposition.routerText('text')).toContain('routeros_up{router="hq"} 1\n');
    expect(store.tried('hq')).toBe(true);

    // Another URL under the same name and labels: the old device's figures are not this one's.
    const again = nextRecord(store, 'system');
    scheduler.load(configAt('https://192.0.2.99', { schedule: '*/15 * * * * *', timeout: '3s', password: 'rotated' }));
    expect(exposition.routerText('text')).not.toContain('routeros_up{router="hq"}');
    expect(store.snapshots('hq')).toEqual([]);
    await again;
    expect(exposition.routerText('text')).toContain('routeros_up{router="hq"} 1\n');
    await scheduler.stop();
  });

  it('a fixed password ends the backoff at once, and its gauge with it, not when the next run records', async () => {
    const { store, triggers, clients, scheduler, exposition } = scripted();
    scheduler.load(configAt('https://192.0.2.1', { password: 'wrong' }));
    scheduler.start(false);
    for (const client of clients.values()) client.behaviour = new RouterOsError('ROS_ERR_AUTH', 'GET /rest/system/resource: HTTP 401');
    const failed = nextRecord(store, 'system');
    triggers.fire('hq/system');
    await failed;
    expect(exposition.routerText('text')).toMatch(/^routeros_collector_backoff_seconds\{router="hq",collector="system"\} [1-9]/m);
    // The fixed password's run starts at once; until it records, the gauge already says no backoff.
    for (const client of clients.values()) client.behaviour = 'hang';
    scheduler.load(configAt('https://192.0.2.1', { password: 'fixed' }));
    expect(exposition.routerText('text')).toContain('routeros_collector_backoff_seconds{router="hq",collector="system"} 0\n');
    for (const client of clients.values()) client.releaseAll();
    await scheduler.stop();
  });
});

describe('label text that redaction changes with the labels untouched', () => {
  it('keeps one label set per router when a reload makes a value in its labels a secret (another router\'s new password)', async () => {
    const collectors = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system']));
    const config = (passwordOfA: string) =>
      testConfig({
        defaults: { username: 'u', collectors },
        routers: [
          { name: 'a', url: 'https://192.0.2.1', password: passwordOfA },
          { name: 'b', url: 'https://192.0.2.2', password: 'b-password-unchanged', labels: { role: 'corp-backbone' } },
        ],
      });
    const store = new SnapshotStore();
    const triggers = new ManualTriggers();
    // One client per router for good, as the app's pool keeps b's while b's connection settings stay.
    const clients = new Map<string, FakeClient>();
    const clientFor = (router: { name: string }): FakeClient => clients.get(router.name) ?? clients.set(router.name, new FakeClient()).get(router.name)!;
    const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor, triggerFactory: triggers.factory, jitter: false });
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    scheduler.load(config('a-password-old'));
    scheduler.start(false);
    let recorded = nextRecord(store, 'system');
    triggers.fire('b/system');
    await recorded;
    expect(exposition.routerText('text')).toContain('routeros_up{router="b",role="corp-backbone"} 1');
    // a's password becomes `backbone`: b's settings are untouched, its label text is now redacted. Its job is
    // replaced and runs at once, so all its series move to the new text together (before: routeros_up under the
    // new text, the data under the old one, with the secret in clear).
    recorded = nextRecord(store, 'system');
    scheduler.load(config('backbone'));
    await recorded;
    await expect.poll(() => exposition.routerText('text')).toMatch(/^routeros_system_uptime_seconds\{router="b",role="corp-\[REDACTED:[0-9a-f]+\]"\}/m);
    const text = exposition.routerText('text');
    const sets = new Set(text.split('\n').filter((line) => /^routeros_\w+\{router="b"/.test(line)).map((line) => /role="([^"]*)"/.exec(line)?.[1]));
    expect([...sets]).toHaveLength(1);
    expect(text).not.toContain('backbone');
    await scheduler.stop();
  });
});
