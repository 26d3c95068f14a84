/**
 * Reloads through the app, as SIGHUP and POST /-/reload do them: against emulated routers over HTTPS, a run in
 * flight survives reloads of an unchanged file; a daily bandwidth test does not gate /-/ready; top-level settings
 * are applied (log_level) or reported as needing a restart (listen).
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import type { Config, CollectorName } from '../../src/config/types.js';
import type { SnapshotStore } from '../../src/metrics/store.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const PASSWORD = 'monitor-secret-42';
let emulator: Emulator;
let ca: string;

beforeAll(async () => {
  emulator = await startEmulator({
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [{ name: 'r', interfaces: [{ name: 'wg0' }], peers: [] }],
  });
  ca = writeCa(emulator);
});

afterAll(async () => {
  await emulator?.close();
});

function configOf(top: Record<string, unknown>, router: Record<string, unknown> = {}): Config {
  return testConfig({
    listen: '127.0.0.1:0',
    ...top,
    defaults: { username: 'monitor', password: PASSWORD, timeout: '2s', tls: { ca_file: ca } },
    routers: [{ name: 'r', url: emulator.router('r').url, ...router }],
  });
}

function nextRecord(store: SnapshotStore, collector: CollectorName): Promise<void> {
  return new Promise((resolve) => {
    const off = store.subscribe((_router, c) => {
      if (c === collector) {
        off();
        resolve();
      }
    });
  });
}

/** An app whose reloads read the configs `files()` gives, one fresh object per reload like a re-read file. */
function appWith(file: () => Config, logs = captureLogs()): { app: App; logs: ReturnType<typeof captureLogs> } {
  const app = createApp(file(), {
    logger: logs.logger,
    loadConfig: () => Promise.resolve(file()),
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
  });
  return { app, logs };
}

describe('reloads through the app', () => {
  it('a 4 s ping in flight survives 10 reloads of the unchanged file and records', async () => {
    const router = { ping: [{ target: '192.0.2.9', count: 8, interval: '500ms', schedule: '*/10 * * * * *' }], collectors: { wireguard: false } };
    const { app } = appWith(() => configOf({}, router));
    const pinged = nextRecord(app.store, 'ping');
    app.start();
    for (let i = 0; i < 10; i++) expect(await app.reload()).toEqual({ ok: true });
    // The reloads were done while the ping ran.
    expect(app.store.snapshots('r').some((s) => s.collector === 'ping')).toBe(false);
    await pinged;
    const ping = app.store.snapshots('r').find((s) => s.collector === 'ping');
    expect(ping?.ok).toBe(true);
    await app.stop();
  }, 20_000);

  it('a daily bandwidth test in flight does not hold /-/ready back', async () => {
    emulator.router('r').setFaults({ path: 'tool/bandwidth-test', hang: true });
    const { app } = appWith(() =>
      configOf({}, { bandwidth_test: [{ target: '192.0.2.10', duration: '10s', schedule: '0 3 * * *' }] }),
    );
    let server: Server | undefined;
    try {
      server = await startServer(app, '127.0.0.1:0');
      const base = serverUrl(server);
      const tried = Promise.all([nextRecord(app.store, 'system'), nextRecord(app.store, 'wireguard')]);
      app.start();
      await tried;
      // Ready once the router's other reading collectors, which run one after the other, have finished too; the
      // bandwidth test still hangs: it has not recorded anything.
      await expect.poll(() => app.ready()).toBe(true);
      expect(app.store.snapshots('r').some((s) => s.collector === 'bandwidth_test')).toBe(false);
      expect((await fetch(`${base}/-/ready`)).status).toBe(200);
    } finally {
      emulator.router('r').setFaults([]);
      await app.stop();
      if (server !== undefined) await closeServer(server, 1000);
    }
  });
});

describe('reloads without a config file (the demo)', () => {
  it('each reload runs and is logged: none returns the result of an earlier one', async () => {
    const logs = captureLogs();
    // No loadConfig: the attempt has nothing to wait for and settles at once, which used to leave it cached.
    const app = createApp(configOf({}), { logger: logs.logger, triggerFactory: new ManualTriggers().factory, jitter: false });
    try {
      for (let i = 0; i < 3; i++) expect(await app.reload()).toEqual({ ok: true });
      expect(logs.lines().filter((line) => line.msg === 'configuration reloaded')).toHaveLength(3);
      // Asked for while one runs: one more after it, shared by every request meanwhile.
      const [a, b, c] = [app.reload(), app.reload(), app.reload()];
      expect(a).not.toBe(b);
      expect(b).toBe(c);
      await Promise.all([a, b]);
      expect(logs.lines().filter((line) => line.msg === 'configuration reloaded')).toHaveLength(5);
    } finally {
      await app.stop();
    }
  });
});

/**
 * An app whose first reload holds its read of the file until `release()`, so reloads asked for meanwhile queue
 * behind it; each read takes the file as `file()` gives it at that moment, and the first then fails with
 * `firstFails` when one is given.
 */
function heldFirstRead(file: () => Config, firstFails?: unknown): { app: App; reads: () => number; release: () => void } {
  let release = (): void => undefined;
  let reads = 0;
  const app = createApp(configOf({}), {
    logger: captureLogs().logger,
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    loadConfig: async () => {
      reads++;
      const next = file();
      if (reads === 1) {
        await new Promise<void>((resolve) => (release = resolve));
        if (firstFails !== undefined) throw firstFails;
      }
      return next;
    },
  });
  return { app, reads: () => reads, release: () => release() };
}

/** A config of these routers, all reached at the emulated router `r`. */
function configNaming(routers: readonly string[]): Config {
  return testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: PASSWORD, timeout: '2s', tls: { ca_file: ca } },
    routers: routers.map((name) => ({ name, url: emulator.router('r').url })),
  });
}

describe('a reload asked for while another runs', () => {
  it('runs once more after it, so a file edited after the first read it is not lost', async () => {
    let routers = ['r'];
    const { app, reads, release } = heldFirstRead(() => configNaming(routers));
    try {
      const first = app.reload();
      await expect.poll(reads).toBe(1);
      routers = ['r', 'added'];
      const second = app.reload();
      release();
      expect(await first).toEqual({ ok: true });
      expect(await second).toEqual({ ok: true });
      expect(reads()).toBe(2);
      expect(app.config().routers.map((router) => router.name)).toEqual(['r', 'added']);
    } finally {
      await app.stop();
    }
  });

  it('does not run once the app has stopped, queued or asked for after (found by review)', async () => {
    const { app, reads, release } = heldFirstRead(() => configOf({}));
    const first = app.reload();
    await expect.poll(reads).toBe(1);
    const queued = app.reload();
    await app.stop();
    release();
    await first;
    expect(await queued).toMatchObject({ ok: false });
    expect(await app.reload()).toMatchObject({ ok: false });
    expect(reads()).toBe(1);
  });

  it('applies nothing when the app stops while its file is being read (SIGTERM during SIGHUP; found by review)', async () => {
    let routers = ['r'];
    const { app, reads, release } = heldFirstRead(() => configNaming(routers));
    routers = ['r', 'added-after-stop'];
    const pending = app.reload();
    await expect.poll(reads).toBe(1);
    await app.stop();
    release();
    expect(await pending).toMatchObject({ ok: false });
    // Neither planned nor installed: the store and the config are the ones the stop left.
    expect(app.store.routerNames()).toEqual(['r']);
    expect(app.config().routers.map((router) => router.name)).toEqual(['r']);
    expect(await app.self.render('text')).toMatch(/^routeros_exporter_config_last_reload_successful 1$/m);
  });

  it('a read failing with what no message can be made of answers a failure, and the reloads after it run (found by review)', async () => {
    // String() of an object without a prototype throws: the failure's own report threw, the attempt rejected, the
    // reload queued behind it kept that rejection for good, and SIGHUP's `void reload()` ended the process.
    const { app, reads, release } = heldFirstRead(() => configOf({}), Object.create(null));
    try {
      const first = app.reload();
      await expect.poll(reads).toBe(1);
      const queued = app.reload();
      release();
      expect(await first).toMatchObject({ ok: false, problems: [{ path: '', message: expect.stringMatching(/could not be described/) }] });
      expect(await queued).toEqual({ ok: true });
      expect(await app.reload()).toEqual({ ok: true });
      expect(reads()).toBe(3);
    } finally {
      await app.stop();
    }
  });

  it('a failed reload whose report throws (its log line) still answers a failure, and the next reload runs', async () => {
    const logs = captureLogs();
    let fail = true;
    const app = createApp(configOf({}), {
      logger: logs.logger,
      triggerFactory: new ManualTriggers().factory,
      jitter: false,
      loadConfig: () => (fail ? Promise.reject(new Error('unreadable')) : Promise.resolve(configOf({}))),
    });
    const error = logs.logger.error.bind(logs.logger);
    logs.logger.error = ((...args: Parameters<typeof error>) => {
      if (fail) throw new Error('the log stream broke');
      error(...args);
    }) as typeof logs.logger.error;
    try {
      expect(await app.reload()).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/so did its report/) }] });
      expect(await app.self.render('text')).toMatch(/^routeros_exporter_config_last_reload_successful 0$/m);
      fail = false;
      expect(await app.reload()).toEqual({ ok: true });
    } finally {
      await app.stop();
    }
  });

  it('a reload whose success line fails to log is a success; one failing after its routers were planned says so (found by review)', async () => {
    const logs = captureLogs();
    let failInstall = false;
    let next = (): Config => configNaming(['r', 'added']);
    const app = createApp(configOf({}), {
      logger: logs.logger,
      triggerFactory: new ManualTriggers().factory,
      jitter: false,
      loadConfig: () => Promise.resolve(next()),
      prepareReload: () => () => {
        if (failInstall) throw new Error('the web config could not be installed');
      },
    });
    const info = logs.logger.info.bind(logs.logger);
    logs.logger.info = ((...args: Parameters<typeof info>) => {
      if (args.includes('configuration reloaded' as never)) throw new Error('the log stream broke');
      info(...args);
    }) as typeof logs.logger.info;
    try {
      // Before: answered as refused, the gauge 0, "the previous configuration keeps running", while the new one ran.
      expect(await app.reload()).toEqual({ ok: true });
      expect(app.config().routers.map((router) => router.name)).toEqual(['r', 'added']);
      expect(await app.self.render('text')).toMatch(/^routeros_exporter_config_last_reload_successful 1$/m);
      failInstall = true;
      expect(await app.reload()).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/^it failed while being applied: part of the new configuration may run .*: the web config could not be installed$/) }] });
      expect(logs.lines().at(-1)).toMatchObject({ msg: expect.stringMatching(/^configuration reload failed part-way/) });
      // A failure inside applying (its warnings are logged there, a router's plain HTTP here) is part-way too.
      failInstall = false;
      logs.logger.warn = (() => {
        throw new Error('the log stream broke');
      }) as typeof logs.logger.warn;
      next = () => testConfig({ listen: '127.0.0.1:0', defaults: { username: 'monitor', password: PASSWORD }, routers: [{ name: 'plain', url: 'http://192.0.2.1' }] });
      expect(await app.reload()).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/^it failed while being applied/) }] });
    } finally {
      await app.stop();
    }
  });

  it('a read failing after the stop answers "shutting down" and records no failed reload (found by review)', async () => {
    const { app, reads, release } = heldFirstRead(() => configOf({}), new Error('the file vanished'));
    const pending = app.reload();
    await expect.poll(reads).toBe(1);
    await app.stop();
    release();
    expect(await pending).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/shutting down/) }] });
    expect(await app.self.render('text')).toMatch(/^routeros_exporter_config_last_reload_successful 1$/m);
  });
});

describe('top-level settings on reload', () => {
  it('gives the event loop back between reading the config and applying it (each ~0.1–0.2 s at 2,000 routers)', async () => {
    const { app } = appWith(() => configOf({ log_level: 'debug' }));
    const before = app.config();
    const reloaded = app.reload();
    // Queued before the reload's own turn: it runs between the read and the apply, and finds the old config.
    const seen = await new Promise<Config>((resolve) => setImmediate(() => resolve(app.config())));
    expect(seen).toBe(before);
    expect(await reloaded).toEqual({ ok: true });
    expect(app.config()).not.toBe(before);
    await app.stop();
  });

  it('log_level applies at once, to child loggers made before the reload too', async () => {
    let level = 'info';
    const { app, logs } = appWith(() => configOf({ log_level: level }));
    logs.logger.level = 'info';
    const child = logs.logger.child({ part: 'made-before' });
    child.debug('hidden');
    level = 'debug';
    expect(await app.reload()).toEqual({ ok: true });
    expect(logs.logger.level).toBe('debug');
    child.debug('shown');
    expect(logs.lines().map((line) => line.msg)).toContain('shown');
    expect(logs.lines().map((line) => line.msg)).not.toContain('hidden');
    expect(logs.lines().some((line) => line.msg === 'log level changed' && line.to === 'debug')).toBe(true);
    level = 'warn';
    await app.reload();
    expect(child.isLevelEnabled('info')).toBe(false);
    await app.stop();
  });

  it('a changed listen is reported as needing a restart (one warning, a gauge), and cleared when undone', async () => {
    let listen = '127.0.0.1:0';
    const { app, logs } = appWith(() => configOf({ listen }));
    const gauge = async (): Promise<string | undefined> =>
      /^routeros_exporter_config_restart_required (\d)$/m.exec(await app.self.render('text'))?.[1];
    expect(await gauge()).toBe('0');
    listen = '127.0.0.1:9999';
    expect(await app.reload()).toEqual({ ok: true });
    expect(await gauge()).toBe('1');
    const warnings = logs.lines().filter((line) => line.level === 40 && line.setting === 'listen');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toContain('restart');
    expect(logs.lines().find((line) => line.msg === 'configuration reloaded')?.restart_required).toEqual(['listen']);
    listen = '127.0.0.1:0';
    await app.reload();
    expect(await gauge()).toBe('0');
    await app.stop();
  });

  it('the shard in force is served, 0 of 1 when not sharded, and follows a reload (for RouterOSExporterShardMissing)', async () => {
    let shard: Record<string, unknown> = {};
    const { app } = appWith(() => configOf(shard));
    const served = async (): Promise<[string | undefined, string | undefined]> => {
      const text = await app.self.render('text');
      return [/^routeros_exporter_shard_index (\d+)$/m.exec(text)?.[1], /^routeros_exporter_shards (\d+)$/m.exec(text)?.[1]];
    };
    expect(await served()).toEqual(['0', '1']);
    shard = { shard: { index: 2, count: 3 } };
    expect(await app.reload()).toEqual({ ok: true });
    expect(await served()).toEqual(['2', '3']);
    await app.stop();
  });
});
