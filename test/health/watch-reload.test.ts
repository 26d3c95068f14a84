/**
 * The app tells the verdict-change log of every load: a router a reload removes loses its states at once, so one
 * added back is judged afresh (its being down is news again), though no run of any router landed in between; so is
 * one a reload points at another URL (maybe another device), while one whose other settings change is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config/types.js';
import type { SnapshotStore } from '../../src/metrics/store.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const PASSWORD = 'monitor-secret-43';
const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };
let emulator: Emulator;
let ca: string;

beforeAll(async () => {
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], routers: [{ name: 'r' }, { name: 'b' }, { name: 'c' }, { name: 'd' }] });
  ca = writeCa(emulator);
  // b answers every request with 503: down, and said so once.
  emulator.router('b').setFaults({ status: { '/': 503 } });
  emulator.router('c').setFaults({ status: { '/': 503 } });
  // d answers its system reads and refuses its interface reads.
  emulator.router('d').setFaults({ status: { '/rest/interface': 503 } });
});

afterAll(async () => {
  await emulator?.close();
});

/** The routers named, each at its emulated router's URL, or at another's (`{ b: 'c' }`: router b at c's URL). */
function configWith(names: string[], at: Record<string, string> = {}, timeout = '2s'): Config {
  return testConfig({
    defaults: { username: 'monitor', password: PASSWORD, timeout, tls: { ca_file: ca }, collectors: ONLY_SYSTEM },
    routers: names.map((name) => ({ name, url: emulator.router(at[name] ?? name).url })),
  });
}

function recorded(store: SnapshotStore, router: string): Promise<void> {
  return new Promise((resolve) => {
    const off = store.subscribe((name) => {
      if (name === router) {
        off();
        resolve();
      }
    });
  });
}

describe('the verdict log across reloads', () => {
  it('a router removed and added back with no run landing in between is said down again (found by review)', async () => {
    let names = ['r', 'b'];
    const logs = captureLogs();
    const app = createApp(configWith(names), { logger: logs.logger, loadConfig: () => Promise.resolve(configWith(names)), triggerFactory: new ManualTriggers().factory, jitter: false });
    const downLines = (): number => logs.lines().filter((line) => String(line['msg']).startsWith('router b down')).length;
    try {
      const first = recorded(app.store, 'b');
      app.start();
      await first;
      await expect.poll(downLines).toBe(1);
      names = ['r'];
      expect(await app.reload()).toEqual({ ok: true });
      names = ['r', 'b'];
      const again = recorded(app.store, 'b');
      expect(await app.reload()).toEqual({ ok: true });
      await again;
      await expect.poll(downLines).toBe(2);
    } finally {
      await app.stop();
    }
  }, 20_000);

  it('a router a reload points at another URL is judged afresh: its being down is news again; another timeout is not', async () => {
    let config = configWith(['r', 'b']);
    const logs = captureLogs();
    const triggers = new ManualTriggers();
    const app = createApp(config, { logger: logs.logger, loadConfig: () => Promise.resolve(config), triggerFactory: triggers.factory, jitter: false });
    const downLines = (): number => logs.lines().filter((line) => String(line['msg']).startsWith('router b down')).length;
    const reloadAndLand = async (next: Config): Promise<void> => {
      config = next;
      const landed = recorded(app.store, 'b');
      expect(await app.reload()).toEqual({ ok: true });
      await landed;
    };
    try {
      const first = recorded(app.store, 'b');
      app.start();
      await first;
      await expect.poll(downLines).toBe(1);
      // Another timeout: the same device, still down, and not news (the replaced job ran at once and landed).
      // A run this small is judged, and its lines written, in the turn it lands: before the test's own listener hears it.
      await reloadAndLand(configWith(['r', 'b'], {}, '3s'));
      expect(downLines()).toBe(1);
      // Another URL: c, down too, is told.
      await reloadAndLand(configWith(['r', 'b'], { b: 'c' }, '3s'));
      await expect.poll(downLines).toBe(2);
    } finally {
      await app.stop();
    }
  }, 20_000);

  it('a reload that turns off the collector that answered is judged at once: down, as /metrics says, not a cycle later (found by review)', async () => {
    const withSystem = (system: boolean): Config =>
      testConfig({
        defaults: { username: 'monitor', password: PASSWORD, timeout: '2s', tls: { ca_file: ca }, collectors: { ...ONLY_SYSTEM, system, interface: true } },
        routers: [{ name: 'd', url: emulator.router('d').url }],
      });
    let config = withSystem(true);
    const logs = captureLogs();
    const app = createApp(config, { logger: logs.logger, loadConfig: () => Promise.resolve(config), triggerFactory: new ManualTriggers().factory, jitter: false });
    const said = (prefix: string): number => logs.lines().filter((line) => String(line['msg']).startsWith(prefix)).length;
    const bothLanded = new Promise<void>((resolve) => {
      let landed = 0;
      const off = app.store.subscribe((name) => {
        if (name === 'd' && ++landed === 2) {
          off();
          resolve();
        }
      });
    });
    try {
      app.start();
      await bothLanded;
      expect(app.store.snapshots('d').map((run) => `${run.job}:${String(run.ok)}`).sort()).toEqual(['interface:false', 'system:true']);
      expect(said('router d down')).toBe(0);
      config = withSystem(false);
      expect(await app.reload()).toEqual({ ok: true });
      // No run lands: the interface job is unchanged, its next tick a cycle away; its failure alone says down.
      expect(app.store.snapshots('d').map((run) => run.job)).toEqual(['interface']);
      expect(said('router d down')).toBe(1);
    } finally {
      await app.stop();
    }
  }, 20_000);
});
