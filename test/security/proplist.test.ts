/**
 * Every read any collector makes names the fields it wants (`.proplist`): a router then never sends a private
 * key, whatever menu a future collector reads and whatever RouterOS adds to it. Checked as a class: every job of
 * every collector, all switched on, runs against the emulator's demo routers through the production client, and
 * each read it makes is recorded. The one menu read whole is listed with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ROUTERS, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';

const PASSWORD = 'read only, for the proplist test';
/**
 * `/system/health` holds sensor readings only; its older form names each sensor by key (`fan1-speed`,
 * `psu2-voltage`…), which no fixed list can name, so it is read whole.
 */
const READ_WHOLE = new Set(['system/health']);
const SECRET_FIELDS = /private-key|preshared-key|password|secret/;

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ scenario: 'demo', users: [{ name: 'monitor', password: PASSWORD, policies: ['read', 'api', 'rest-api', 'test'] }] });
});

afterAll(async () => {
  await emulator.close();
});

interface Read {
  menu: string;
  proplist: readonly string[] | undefined;
}

describe('reads name their fields', () => {
  it('every read of every collector sends a .proplist naming no secret field; only the menus listed are read whole', async () => {
    const reads: Read[] = [];
    const collectorsRun = new Set<string>();
    for (const seed of DEMO_ROUTERS) {
      const client = new RouterOsClient({ url: emulator.router(seed.name).url, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 5_000, tls: { ca: emulator.ca } });
      const recording: Pick<RouterOsClient, 'list' | 'getSingleton' | 'run'> = {
        list: (menu, options) => {
          reads.push({ menu, proplist: options?.proplist });
          return client.list(menu, options);
        },
        getSingleton: (menu, options) => {
          reads.push({ menu, proplist: options?.proplist });
          return client.getSingleton(menu, options);
        },
        run: (...args) => client.run(...args),
      };
      const router = testRouter({
        name: seed.name,
        collectors: Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, true])),
        ping: [{ target: '10.0.0.1', count: 1, interval: '10ms' }],
        bandwidth_test: [{ target: '10.0.0.1', duration: '1s' }],
      });
      try {
        for (const job of jobsFor(router)) {
          collectorsRun.add(job.collector);
          await job
            .run({ router, client: recording, routerLabel: routerLabel(seed.name), now: Date.now, signal: new AbortController().signal, memory: new Map() })
            .catch(() => undefined);
        }
      } finally {
        await client.close();
      }
    }
    expect([...collectorsRun].sort()).toEqual([...COLLECTOR_NAMES].sort());
    expect(reads.length).toBeGreaterThan(10);
    for (const read of reads) {
      if (READ_WHOLE.has(read.menu)) continue;
      expect({ menu: read.menu, proplist: read.proplist }).toEqual({ menu: read.menu, proplist: expect.any(Array) as unknown });
      for (const field of read.proplist ?? []) expect(field).not.toMatch(SECRET_FIELDS);
    }
    // The whole-menu list is exact: a menu on it that nothing reads any more goes.
    for (const menu of READ_WHOLE) expect(reads.some((read) => read.menu === menu)).toBe(true);
  });
});
