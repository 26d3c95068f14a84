/**
 * Routers from inventory through the app: first probe creates and collects, concurrent probes share one creation,
 * timeouts, configured names, other profiles, expiry on an injected clock, reloads. Emulated routers over HTTPS.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import type { Config } from '../../src/config/types.js';
import { writeCa } from '../helpers/emulator-config.js';
import { testConfig } from '../helpers/config.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const PASSWORD = 'inventory-secret-17';
let emulator: Emulator;
let ca: string;
let app: App | undefined;
let clock = 1_800_000_000_000;

/** Only the system collector: one job per target keeps the runs short and the expiry period obvious. */
const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };

function target(name: string): string {
  return new URL(emulator.router(name).url).host;
}

function config(profiles: Record<string, unknown>, routers: unknown[] = []): Config {
  return testConfig({
    defaults: { username: 'monitor', password: PASSWORD, timeout: '2s', tls: { ca_file: ca }, collectors: ONLY_SYSTEM },
    routers,
    profiles,
  });
}

function startApp(initial: Config, loadConfig?: () => Promise<Config>): { app: App; triggers: ManualTriggers } {
  const triggers = new ManualTriggers();
  const made = createApp(initial, {
    logger: pino({ level: 'silent' }),
    now: () => clock,
    elapsed: () => clock,
    jitter: false,
    triggerFactory: triggers.factory,
    ...(loadConfig === undefined ? {} : { loadConfig }),
  });
  made.start();
  app = made;
  return { app: made, triggers };
}

async function exposition(current: App): Promise<string> {
  return Buffer.concat((await current.exposition.render('text', false)).parts).toString();
}

async function selfText(current: App): Promise<string> {
  return current.self.render('text');
}

beforeAll(async () => {
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: ['r1', 'r2', 'r3', 'hang', 'hq'].map((name) => ({ name })),
  });
  ca = writeCa(emulator);
  emulator.router('hang').setFaults({ path: 'system/resource', hang: true });
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
});

afterAll(async () => {
  await emulator?.close();
});

describe('discover', () => {
  it('creates a router named as given on the first probe and answers once its first collection finished', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const name = target('r1');
    const result = await app.discovery.discover(name, 'lab', 5_000);
    expect(result).toEqual({ kind: 'ready', router: name });
    expect(app.store.tried(name)).toBe(true);
    expect(app.store.snapshots(name).map((snapshot) => [snapshot.job, snapshot.ok])).toEqual([['system', true]]);
    const body = await exposition(app);
    expect(body).toContain(`routeros_up{router="${name}"} 1`);
    const self = await selfText(app);
    expect(self).toContain('routeros_exporter_discovered_targets{profile="lab"} 1');
    expect(self).toContain('routeros_exporter_discovered_targets_created_total{profile="lab"} 1');
    // Later probes are served from snapshots: at once, no new request.
    const requests = emulator.router('r1').stats.requests;
    expect(await app.discovery.discover(name, 'lab', 5_000)).toEqual({ kind: 'ready', router: name });
    expect(emulator.router('r1').stats.requests).toBe(requests);
  });

  it('shares one creation between concurrent first probes of the same target', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const name = target('r2');
    const before = emulator.router('r2').stats.requests;
    const results = await Promise.all(Array.from({ length: 20 }, () => app.discovery.discover(name, 'lab', 5_000)));
    expect(results.every((result) => result.kind === 'ready')).toBe(true);
    expect(app.discovery.size).toBe(1);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_created_total{profile="lab"} 1');
    // One system run: one request for its one menu, not twenty.
    expect(emulator.router('r2').stats.requests - before).toBe(1);
  });

  it('answers timeout at the deadline when the first collection is still running, and keeps the target', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const name = target('hang');
    const started = performance.now();
    expect(await app.discovery.discover(name, 'lab', 300)).toEqual({ kind: 'timeout', router: name });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(app.discovery.size).toBe(1);
  });

  it('a target whose first run hangs never takes /-/ready away: a probe client cannot take the exporter out of service (found by review)', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    expect(app.ready()).toBe(true);
    expect((await app.discovery.discover(target('hang'), 'lab', 300)).kind).toBe('timeout');
    expect(app.discovery.size).toBe(1);
    expect(app.ready()).toBe(true);
  });

  it('takes no new target in once the app stopped: the probe is answered closed at once, nothing is planned (found by review)', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const polled = target('r1');
    expect((await app.discovery.discover(polled, 'lab', 5_000)).kind).toBe('ready');
    await app.stop();
    // One already polled is still served from what was collected.
    expect(await app.discovery.discover(polled, 'lab', 5_000)).toEqual({ kind: 'ready', router: polled });
    const name = target('r3');
    const before = emulator.router('r3').stats.requests;
    const started = performance.now();
    expect(await app.discovery.discover(name, 'lab', 5_000)).toEqual({ kind: 'closed' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(app.discovery.size).toBe(1);
    expect(app.store.routerNames()).toEqual([polled]);
    expect(emulator.router('r3').stats.requests).toBe(before);
  });

  it('serves a configured router as itself, whatever the allow list, and creates nothing', async () => {
    const { app } = startApp(config({ lab: { targets: ['10.0.0.0/8'] } }, [{ name: 'hq', url: emulator.router('hq').url }]));
    expect(await app.discovery.discover('hq', 'lab', 1_000)).toEqual({ kind: 'ready', router: 'hq' });
    expect(app.discovery.size).toBe(0);
  });

  it('refuses a target already polled under another profile, and an unknown profile', async () => {
    const { app } = startApp(config({ a: { targets: ['127.0.0.1/32'] }, b: { targets: ['127.0.0.0/8'] } }));
    const name = target('r1');
    expect((await app.discovery.discover(name, 'a', 5_000)).kind).toBe('ready');
    expect(await app.discovery.discover(name, 'b', 5_000)).toEqual({ kind: 'refused', reason: 'target is already polled under another profile' });
    expect(await app.discovery.discover(name, 'nope', 5_000)).toEqual({ kind: 'unknown_profile' });
    const self = await selfText(app);
    expect(self).toContain('routeros_exporter_discovery_refused_total{profile="b",reason="other_profile"} 1');
    expect(self).toContain('routeros_exporter_discovery_refused_total{profile="",reason="unknown_profile"} 1');
    expect(self).not.toContain('nope');
  });

  it('refuses a malformed target with a fixed reason', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    expect(await app.discovery.discover('127.0.0.1:8443/rest', 'lab', 1_000)).toEqual({ kind: 'refused', reason: expect.stringContaining('HOST or HOST:PORT') });
    expect(await selfText(app)).toContain('routeros_exporter_discovery_refused_total{profile="lab",reason="invalid_target"} 1');
  });
});

describe('expiry (injected clock, no sleeps)', () => {
  it('forgets a target not probed for forget_after: jobs stop, series go, counted', async () => {
    const { app, triggers } = startApp(config({ lab: { targets: ['127.0.0.1/32'], forget_after: '2m' } }));
    const name = target('r3');
    expect((await app.discovery.discover(name, 'lab', 5_000)).kind).toBe('ready');
    expect([...triggers.ticks.keys()]).toEqual([`${name}/system`]);
    clock += 100_000;
    expect(app.discovery.sweep()).toBe(0);
    // A probe restarts the period.
    expect((await app.discovery.discover(name, 'lab', 5_000)).kind).toBe('ready');
    clock += 119_000;
    expect(app.discovery.sweep()).toBe(0);
    clock += 1_000;
    expect(app.discovery.sweep()).toBe(1);
    await app.discovery.flushed();
    expect(app.store.routerNames()).not.toContain(name);
    expect(triggers.ticks.size).toBe(0);
    expect(await exposition(app)).not.toContain(name);
    const self = await selfText(app);
    expect(self).toContain('routeros_exporter_discovered_targets{profile="lab"} 0');
    expect(self).toContain('routeros_exporter_discovered_targets_expired_total{profile="lab",reason="idle"} 1');
  });

  it('defaults to 10 × the longest schedule of the jobs a target runs', async () => {
    // system every 15 s and firmware at minute 7 of every hour: 10 h.
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'], collectors: { firmware: true } } }));
    expect((await app.discovery.discover(target('r1'), 'lab', 5_000)).kind).toBe('ready');
    // Probed again, as Prometheus does at its next scrape: the whole period applies.
    clock += 60_000;
    expect((await app.discovery.discover(target('r1'), 'lab', 5_000)).kind).toBe('ready');
    clock += 10 * 3_600_000 - 1;
    expect(app.discovery.sweep()).toBe(0);
    clock += 1;
    expect(app.discovery.sweep()).toBe(1);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_expired_total{profile="lab",reason="idle"} 1');
  });

  it('forgets a target that never answered 10 min after its last probe, however often probed, and a full profile says when one is due (found by review)', async () => {
    // Junk a client named (closed ports) held the cap for the 10 h forget period; probing it twice kept it; Retry-After said 60 s.
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'], collectors: { firmware: true }, max_targets: 2 } }));
    expect((await app.discovery.discover('127.0.0.1:1', 'lab', 0)).kind).toBe('timeout');
    clock += 60_000;
    expect((await app.discovery.discover('127.0.0.1:2', 'lab', 0)).kind).toBe('timeout');
    clock += 60_000;
    // Due 8 min on, and the sweep runs every 10 s.
    expect(await app.discovery.discover('127.0.0.1:3', 'lab', 0)).toMatchObject({ kind: 'full', retryAfterSeconds: 480 + 10 });
    // Probed again: 10 min from this probe, not the whole period.
    expect((await app.discovery.discover('127.0.0.1:2', 'lab', 0)).kind).toBe('timeout');
    clock += 480_000 - 1;
    expect(app.discovery.sweep()).toBe(0);
    clock += 1;
    expect(app.discovery.sweep()).toBe(1);
    clock += 120_000;
    expect(app.discovery.sweep()).toBe(1);
    expect(app.discovery.size).toBe(0);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_expired_total{profile="lab",reason="never_answered"} 2');
  });

  it('keeps a target that answered for its whole forget period, however rarely it is probed (found by review)', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'], forget_after: '2h' } }));
    const name = target('r1');
    expect((await app.discovery.discover(name, 'lab', 5_000)).kind).toBe('ready');
    // Scraped every 15 minutes: not forgotten and made again between two scrapes.
    clock += 15 * 60_000;
    expect(app.discovery.sweep()).toBe(0);
    clock += 2 * 3_600_000 - 15 * 60_000;
    expect(app.discovery.sweep()).toBe(1);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_expired_total{profile="lab",reason="idle"} 1');
  });
});

describe('found by a review of the registry', () => {
  it('a profile with every collector off: its targets are ready at once, not after the whole wait', async () => {
    const off = Object.fromEntries(['system', 'interface', 'wireguard', 'wireguard_setup', 'health', 'firmware', 'ping', 'bandwidth_test'].map((name) => [name, false]));
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'], collectors: off } }));
    const started = performance.now();
    for (let probe = 0; probe < 3; probe++) expect((await app.discovery.discover(target('r1'), 'lab', 5_000)).kind).toBe('ready');
    // Each used to wait its 5 s out and answer timeout, leaving a reaction on a promise that never settled.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('forget_after runs on the monotonic clock: a wall clock stepped forward forgets nothing', async () => {
    let wall = Date.UTC(2026, 10, 28);
    const triggers = new ManualTriggers();
    app = createApp(config({ lab: { targets: ['127.0.0.1/32'], forget_after: '2m' } }), {
      logger: pino({ level: 'silent' }),
      now: () => wall,
      jitter: false,
      triggerFactory: triggers.factory,
    });
    app.start();
    expect((await app.discovery.discover(target('r2'), 'lab', 5_000)).kind).toBe('ready');
    wall += 2 * 3_600_000;
    expect(app.discovery.sweep()).toBe(0);
  });

  it('a probe right after its target was forgotten, before the load that drops it, is answered from what was collected', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'], forget_after: '2m' } }));
    const name = target('r3');
    expect((await app.discovery.discover(name, 'lab', 5_000)).kind).toBe('ready');
    clock += 120_000;
    expect(app.discovery.sweep()).toBe(1);
    // The paced load has not run yet: the router is still planned, with its snapshots.
    const started = performance.now();
    expect(await app.discovery.discover(name, 'lab', 3_000)).toEqual({ kind: 'ready', router: name });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('reload', () => {
  it('keeps targets of a kept profile with its new settings, forgets those of a removed or narrowed profile', async () => {
    const first = config({ a: { targets: ['127.0.0.1/32'] }, b: { targets: ['127.0.0.1/32'] }, c: { targets: ['127.0.0.1/32'] } });
    let next = first;
    const { app } = startApp(first, () => Promise.resolve(next));
    const [ta, tb, tc] = [target('r1'), target('r2'), target('r3')];
    for (const [name, profile] of [[ta, 'a'], [tb, 'b'], [tc, 'c']] as const) expect((await app.discovery.discover(name, profile, 5_000)).kind).toBe('ready');
    next = config({ a: { targets: ['127.0.0.1/32'], labels: { tier: 'edge' } }, c: { targets: ['10.0.0.0/8'] } });
    expect(await app.reload()).toEqual({ ok: true });
    expect(app.discovery.routers().map((router) => [router.name, router.labels])).toEqual([[ta, { tier: 'edge' }]]);
    expect(app.store.routerNames()).toEqual([ta]);
    const self = await selfText(app);
    expect(self).toContain('routeros_exporter_discovered_targets_expired_total{profile="b",reason="profile_removed"} 1');
    expect(self).toContain('routeros_exporter_discovered_targets_expired_total{profile="c",reason="outside_allow_list"} 1');
    expect(self).not.toContain('routeros_exporter_discovered_targets{profile="b"}');
  });

  it('answers a probe waiting when a reload removes its profile as an unknown profile (404), not "retry shortly" (found by review)', async () => {
    let next = config({ lab: { targets: ['127.0.0.1/32'] } });
    const { app } = startApp(next, () => Promise.resolve(next));
    const waiting = app.discovery.discover(target('hang'), 'lab', 5_000);
    next = config({ other: { targets: ['127.0.0.1/32'] } });
    expect(await app.reload()).toEqual({ ok: true });
    expect(await waiting).toEqual({ kind: 'unknown_profile' });
  });

  it('answers a probe waiting when a reload forgets its target as a probe of it now would be: refused, full, or the configured router (found by review)', async () => {
    const hang = target('hang');
    const waitThrough = async (after: Config): Promise<unknown> => {
      let next = config({ lab: { targets: ['127.0.0.1/32'] } });
      const { app } = startApp(next, () => Promise.resolve(next));
      const waiting = app.discovery.discover(hang, 'lab', 5_000);
      // A second target, probed after: a lowered max_targets forgets the older one, the one waiting.
      expect((await app.discovery.discover(target('r1'), 'lab', 5_000)).kind).toBe('ready');
      next = after;
      expect(await app.reload()).toEqual({ ok: true });
      const answer = await waiting;
      await app.stop();
      return answer;
    };
    // Before: each was "accepted, retry shortly" (timeout, then 503 with Retry-After: 1) of a target the next probe is refused.
    expect(await waitThrough(config({ lab: { targets: ['10.0.0.0/8'] } }))).toEqual({ kind: 'refused', reason: expect.stringContaining('outside') });
    expect(await waitThrough(config({ lab: { targets: ['127.0.0.1/32'], max_targets: 1 } }))).toMatchObject({ kind: 'full' });
    const named = config({ lab: { targets: ['127.0.0.1/32'] } }, [{ name: 'hq', url: emulator.router('hang').url }]);
    named.routers[0] = { ...named.routers[0]!, name: hang };
    expect(await waitThrough(named)).toEqual({ kind: 'ready', router: hang });
  });

  it('adds no target for a page of another site, but serves one polled already (found by review)', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const before = emulator.router('r3').stats.requests;
    expect(await app.discovery.discover(target('r3'), 'lab', 1_000, { fromPage: true })).toEqual({ kind: 'refused', reason: 'a page of another site may not add a target' });
    expect(app.discovery.size).toBe(0);
    expect(emulator.router('r3').stats.requests).toBe(before);
    expect(await selfText(app)).toContain('routeros_exporter_discovery_refused_total{profile="lab",reason="cross_site"} 1');
    expect((await app.discovery.discover(target('r3'), 'lab', 5_000)).kind).toBe('ready');
    expect(await app.discovery.discover(target('r3'), 'lab', 5_000, { fromPage: true })).toEqual({ kind: 'ready', router: target('r3') });
  });

  it('ends a first probe’s wait when its client has gone, keeping the target', async () => {
    const { app } = startApp(config({ lab: { targets: ['127.0.0.1/32'] } }));
    const gone = new AbortController();
    const waiting = app.discovery.discover(target('hang'), 'lab', 60_000, { gone: gone.signal });
    const started = performance.now();
    gone.abort();
    expect(await waiting).toEqual({ kind: 'timeout', router: target('hang') });
    // Not the 60 s of its timeout (before, the wait held its slot that long).
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(app.discovery.size).toBe(1);
    // Gone before it asked: no wait at all.
    const early = new AbortController();
    early.abort();
    expect(await app.discovery.discover(target('hang'), 'lab', 60_000, { gone: early.signal })).toEqual({ kind: 'timeout', router: target('hang') });
  });

  it('ports: refuses a target on a port the profile does not list, and forgets one a reload no longer lists', async () => {
    const port = (name: string): number => Number(new URL(emulator.router(name).url).port);
    const first = config({ a: { targets: ['127.0.0.1/32'], ports: [port('r1')] } });
    let next = first;
    const { app } = startApp(first, () => Promise.resolve(next));
    const before = emulator.router('r2').stats.requests;
    expect(await app.discovery.discover(target('r2'), 'a', 5_000)).toMatchObject({ kind: 'refused' });
    expect(emulator.router('r2').stats.requests).toBe(before);
    expect((await app.discovery.discover(target('r1'), 'a', 5_000)).kind).toBe('ready');
    next = config({ a: { targets: ['127.0.0.1/32'], ports: [port('r2')] } });
    expect(await app.reload()).toEqual({ ok: true });
    expect(app.discovery.size).toBe(0);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_expired_total{profile="a",reason="outside_allow_list"} 1');
  });

  it('leaves a discovered target running untouched when a reload changes nothing of its profile', async () => {
    const initial = config({ a: { targets: ['127.0.0.1/32'] } });
    const { app, triggers } = startApp(initial, () => Promise.resolve(config({ a: { targets: ['127.0.0.1/32'] } })));
    const name = target('r2');
    expect((await app.discovery.discover(name, 'a', 5_000)).kind).toBe('ready');
    const requests = emulator.router('r2').stats.requests;
    const before = app.store.snapshots(name)[0];
    expect(await app.reload()).toEqual({ ok: true });
    await app.discovery.flushed();
    // Same job (no re-run, same snapshot), same trigger: nothing was replaced.
    expect(emulator.router('r2').stats.requests).toBe(requests);
    expect(app.store.snapshots(name)[0]).toBe(before);
    expect([...triggers.ticks.keys()]).toEqual([`${name}/system`]);
  });

  it('hands a target over to the config when the config names it', async () => {
    const first = config({ a: { targets: ['127.0.0.0/8'] } });
    let next = first;
    const { app } = startApp(first, () => Promise.resolve(next));
    const name = target('r1');
    expect((await app.discovery.discover(name, 'a', 5_000)).kind).toBe('ready');
    // A configured name must be a safe name, so the config can only take over a name it spells the same way.
    next = config({ a: { targets: ['127.0.0.0/8'] } }, [{ name: 'hq', url: emulator.router('hq').url }]);
    next.routers[0] = { ...next.routers[0]!, name };
    expect(await app.reload()).toEqual({ ok: true });
    expect(app.discovery.size).toBe(0);
    expect(app.store.routerNames()).toEqual([name]);
    expect(await selfText(app)).toContain('routeros_exporter_discovered_targets_expired_total{profile="a",reason="configured"} 1');
  });
});
