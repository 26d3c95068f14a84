/**
 * The app tells the verdict-change log of every load: a router a reload removes loses its states at once, so one
 * added back is judged afresh (its being down is news again), though no run of any router landed in between.
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
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], routers: [{ name: 'r' }, { name: 'b' }] });
  ca = writeCa(emulator);
  // b answers every request with 503: down, and said so once.
  emulator.router('b').setFaults({ status: { '/': 503 } });
});

afterAll(async () => {
  await emulator?.close();
});

function configWith(names: string[]): Config {
  return testConfig({
    defaults: { username: 'monitor', password: PASSWORD, timeout: '2s', tls: { ca_file: ca }, collectors: ONLY_SYSTEM },
    routers: names.map((name) => ({ name, url: emulator.router(name).url })),
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
});
