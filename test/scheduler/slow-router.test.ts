/**
 * A router that answers every read slowly, but each well within the timeout, over real HTTPS: every collector
 * that reads fires at once (as a cycle's jobs do), and each must succeed. Their reads take turns on the router's
 * one connection; once, the waiting counted against each read's timeout and each run's deadline, so a router
 * answering each read in 0.3 s with a 1 s timeout failed the collectors at the back of the queue.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { ClientPool } from '../../src/routeros/pool.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { testConfig } from '../helpers/config.js';

const READING = ['system', 'wireguard', 'interface', 'health', 'firmware'];

let emulator: Emulator;
const pool = new ClientPool();

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'slow' }] });
  emulator.router('slow').setFaults({ latencyMs: 300 });
});

afterAll(async () => {
  await pool.closeAll();
  await emulator.close();
});

it('collects every reading collector of a router that answers each read in 0.3 s, with a 1 s timeout', async () => {
  const store = new SnapshotStore();
  const scheduler = new Scheduler({ store, logger: pino({ level: 'silent' }), clientFor: (router) => pool.clientFor(router), jitter: false });
  scheduler.load(testConfig({
    defaults: {
      username: 'admin',
      password: '',
      tls: { insecure_skip_verify: true },
      timeout: '1s',
      collectors: Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, READING.includes(name)])),
    },
    routers: [{ name: 'slow', url: emulator.router('slow').url }],
  }));
  const results = await scheduler.runAllOnce();
  const snapshots = store.snapshots('slow');
  expect(snapshots.filter((snapshot) => !snapshot.ok).map((snapshot) => `${snapshot.job}: ${String(snapshot.reason)}`)).toEqual([]);
  expect(results).toEqual(Array<string>(READING.length).fill('ok'));
  // More reads than fit in one timeout: the case is the one described, not a router fast enough anyway.
  expect(emulator.router('slow').stats.requests * 0.3).toBeGreaterThan(1.5);
});
