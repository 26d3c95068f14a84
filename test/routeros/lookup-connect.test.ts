/**
 * A router reached by host name over real HTTPS, its name looked up through the exporter's lookup queue: while
 * the resolver does not answer, each cycle's requests fail at their own timeout and no lookups pile up; once it
 * answers, the next request goes through. Before the queue, each request's connect handed libuv one more lookup.
 */
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import type { RouterOsError } from '../../src/routeros/errors.js';
import { HostLookups } from '../../src/routeros/lookup.js';
import { Secret } from '../../src/util/secret.js';

type Answer = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const PASSWORD = 'lookup-connect-secret';
let emulator: Emulator;
let client: RouterOsClient;
const asked: { hostname: string; answer: Answer; all: boolean }[] = [];
let lookups: HostLookups;
let ca: string;

beforeAll(async () => {
  const tls = await selfSignedTls(['hq.routers.test']);
  ca = tls.cert;
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], tls, routers: [{ name: 'hq' }] });
  // A resolver that answers only when the test says so, as a silent DNS server does until it comes back.
  lookups = new HostLookups({ resolve: (hostname, options, answer) => asked.push({ hostname, answer, all: options.all === true }) });
  const port = new URL(emulator.router('hq').url).port;
  client = new RouterOsClient({
    url: `https://hq.routers.test:${port}`,
    username: 'monitor',
    password: new Secret(PASSWORD),
    timeoutMs: 400,
    tls: { ca: tls.cert },
    lookups,
  });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('a router that stalls on a connection it has, while another connect to its name waits for DNS', () => {
  it('fails as a timeout of its own; only the client whose connect waits for its lookup blames the name', async () => {
    const port = new URL(emulator.router('hq').url).port;
    let answered = 0;
    // The first lookup answers, every later one hangs.
    const shared = new HostLookups({
      resolve: (_hostname, options, answer) => {
        if (answered++ === 0) answer(null, options.all === true ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4);
      },
    });
    const tls = { ca };
    const make = (): RouterOsClient =>
      new RouterOsClient({ url: `https://hq.routers.test:${port}`, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 400, tls, lookups: shared });
    const connected = make();
    const waiting = make();
    try {
      await expect(connected.getSingleton('system/resource')).resolves.toBeDefined();
      emulator.router('hq').setFaults({ path: 'system/resource', hang: true });
      const [stalled, unresolved] = await Promise.allSettled([connected.getSingleton('system/resource'), waiting.getSingleton('system/resource')]);
      expect((stalled as PromiseRejectedResult).reason).toMatchObject({ code: 'ROS_ERR_TIMEOUT' });
      expect((unresolved as PromiseRejectedResult).reason).toMatchObject({ code: 'ROS_ERR_DNS' });
    } finally {
      emulator.router('hq').setFaults([]);
      await Promise.all([connected.close(), waiting.close()]);
    }
  });
});

describe('a router reached by host name while its resolver does not answer', () => {
  it('fails each cycle at its timeout with one lookup in all, and reads once the resolver answers', async () => {
    for (let cycle = 0; cycle < 4; cycle++) {
      const results = await Promise.allSettled([client.list('system/resource'), client.run('ping', { address: '10.0.0.1', count: 1 })]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        // Told as what it is: the name was not resolved in time, not a router that did not answer.
        expect((result as PromiseRejectedResult).reason as RouterOsError).toMatchObject({
          code: 'ROS_ERR_DNS',
          reason: 'connect',
          message: expect.stringContaining("host name was not resolved within the timeout") as string,
        });
      }
    }
    // Eight connects over four cycles, one lookup: the name's, still running.
    expect(asked.map((a) => a.hostname)).toEqual(['hq.routers.test']);
    expect(lookups.counts).toEqual({ waiting: 0, running: 1 });
    const [hung] = asked;
    hung?.answer(null, hung.all ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4);
    expect(lookups.counts).toEqual({ waiting: 0, running: 0 });
    // The resolver is back: the next read looks the name up again and goes through.
    const read = client.getSingleton('system/resource');
    await expect.poll(() => asked.length).toBe(2);
    const fresh = asked[1];
    fresh?.answer(null, fresh.all ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4);
    await expect(read).resolves.toMatchObject({ 'board-name': expect.any(String) as string });
  });
});
