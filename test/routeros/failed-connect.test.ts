/**
 * A router whose connection cannot be made (its certificate names another host): reads that fire together —
 * system and wireguard at the same tick — each fail at once with reason tls, cycle after cycle. On the
 * one-connection read path undici left the second read waiting past its own timeout (found by the fault matrix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import type { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';

const PASSWORD = 'failed-connect-secret';
let emulator: Emulator;
let client: RouterOsClient;

beforeAll(async () => {
  const tls = await selfSignedTls(['router.other.example']);
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], tls, routers: [{ name: 'hq' }] });
  client = new RouterOsClient({
    url: emulator.router('hq').url,
    username: 'monitor',
    password: new Secret(PASSWORD),
    timeoutMs: 3_000,
    tls: { ca: tls.cert },
  });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('reads to a router whose certificate names another host', () => {
  it('fail together with reason tls, every time, well inside the timeout', async () => {
    for (let cycle = 0; cycle < 3; cycle++) {
      const started = performance.now();
      const results = await Promise.allSettled([client.list('system/resource'), client.list('interface/wireguard'), client.list('interface')]);
      expect(performance.now() - started).toBeLessThan(2_000);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason as RouterOsError).toMatchObject({ reason: 'tls' });
      }
    }
  });
});
