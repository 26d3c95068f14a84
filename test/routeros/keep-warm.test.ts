/**
 * Keeping a router's read connection open across cycles (src/routeros/keep-warm.ts): the policy as properties
 * over random keep-alives and cycles, the burst timing with a hand-driven clock, and the whole thing over real
 * HTTPS against the emulator, which counts connections and requests.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startEmulator, type EmulatedRouter, type Faults } from '../../src/emulator/index.js';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { KEEP_WARM_MARGIN_MS, KeepWarm, keepAliveHintMs, keepWarmDelayMs } from '../../src/routeros/keep-warm.js';
import { Secret } from '../../src/util/secret.js';

describe('keepAliveHintMs', () => {
  it('reads timeout=N exactly as undici does, which decides when the idle connection goes', () => {
    expect(keepAliveHintMs('timeout=30')).toBe(30_000);
    expect(keepAliveHintMs('max=100, timeout=5')).toBe(5_000);
    expect(keepAliveHintMs(undefined)).toBeUndefined();
    expect(keepAliveHintMs('max=5')).toBeUndefined();
    // undici: /timeout=(\d+)/ on the values run together, case-sensitive.
    expect(keepAliveHintMs('x-timeout=5')).toBe(5_000);
    expect(keepAliveHintMs('timeout=5.5')).toBe(5_000);
    expect(keepAliveHintMs(['max=3', 'timeout=5'])).toBe(5_000);
    expect(keepAliveHintMs(['Timeout=7, max=3'])).toBeUndefined();
  });

  it('property: agrees with undici on any header text', () => {
    const undiciReads = (text: string): number | undefined => {
      const m = /timeout=(\d+)/.exec(text);
      return m === null ? undefined : parseInt(m[1] ?? '', 10) * 1000;
    };
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('timeout=5', 'x-timeout=9', 'timeout=5.5', 'Timeout=3', 'max=2', `timeout=${'9'.repeat(400)}`)), { minLength: 1, maxLength: 3 }), (values) => {
        expect(keepAliveHintMs(values)).toBe(undiciReads(values.join('')));
      }),
    );
  });

  it('any header text gives a non-negative hint (Infinity for digits past a double, as undici) or none, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('timeout=', 'timeout=99999999999', ' timeout=0')), (text) => {
        const hint = keepAliveHintMs(text);
        expect(hint === undefined || hint >= 0).toBe(true);
        expect(Number.isNaN(hint)).toBe(false);
      }),
    );
  });
});

describe('keepWarmDelayMs', () => {
  const ms = fc.integer({ min: 1, max: 600_000 });

  it('a keep-warm read goes before the connection expires and carries it to the next cycle, with a margin on both', () => {
    fc.assert(
      fc.property(ms, ms, (expires, idle) => {
        const delay = keepWarmDelayMs(expires, idle);
        if (delay === undefined) return;
        const margin = Math.min(KEEP_WARM_MARGIN_MS, expires / 4);
        expect(delay).toBeGreaterThan(0);
        expect(delay + margin).toBeLessThanOrEqual(expires);
        // Needed: without it the next cycle could come after the connection closed.
        expect(idle + margin).toBeGreaterThan(expires);
        // Enough: after it the connection stays open past the next cycle, late by the margin.
        expect(idle + margin).toBeLessThanOrEqual(delay + expires);
      }),
    );
  });

  it('whenever the next cycle would find the connection closed and one read can bridge the gap, it is sent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4_000, max: 600_000 }), fc.double({ min: 1.001, max: 1.9, noNaN: true }), (expires, ratio) => {
        // expires ≥ 4 s: the margin is a whole 25 % or 2 s, so every idle up to 1.9 × expires - 2 s is bridgeable.
        const idle = Math.min(expires * ratio, 2 * expires - 2 * Math.min(KEEP_WARM_MARGIN_MS, expires / 4));
        if (idle <= expires) return;
        expect(keepWarmDelayMs(expires, idle)).toBeDefined();
      }),
    );
  });

  it('sends nothing without a prediction or a connection to keep', () => {
    expect(keepWarmDelayMs(29_000, undefined)).toBeUndefined();
    expect(keepWarmDelayMs(0, 30_000)).toBeUndefined();
    expect(keepWarmDelayMs(-1_000, 30_000)).toBeUndefined();
    expect(keepWarmDelayMs(Number.NaN, 30_000)).toBeUndefined();
    // Read every 5 minutes, kept 29 s: ten reads would be needed; the reconnect resumes instead.
    expect(keepWarmDelayMs(29_000, 300_000)).toBeUndefined();
    // Read every 20 s, kept 29 s: the connection is there anyway.
    expect(keepWarmDelayMs(29_000, 20_000)).toBeUndefined();
    expect(keepWarmDelayMs(29_000, 30_000)).toBe(27_000);
  });
});

describe('KeepWarm timing', () => {
  // Fake timers move Date too: the clock and the timers are one.
  let base = 0;
  const clock = (): number => Date.now() - base;
  beforeEach(() => {
    vi.useFakeTimers();
    base = Date.now();
  });
  afterEach(() => vi.useRealTimers());

  /**
   * Cycles every `everyMs` of `reads` reads, each 50 ms long and `apartMs` after the previous one's end (a job
   * waiting for a run slot); when the keep-warm reads were sent.
   */
  function cycles(everyMs: number, expiresMs: number, count: number, reads = 2, apartMs = 0): number[] {
    const start = clock();
    const since = (): number => clock() - start;
    const sent: number[] = [];
    const warm = new KeepWarm(() => sent.push(since()), clock);
    for (let cycle = 0; cycle < count; cycle++) {
      vi.advanceTimersByTime(cycle * everyMs - since());
      for (let read = 0; read < reads; read++) {
        if (read > 0) vi.advanceTimersByTime(apartMs);
        warm.readStarted();
        vi.advanceTimersByTime(50);
        // Back to back, only the last read leaves the connection idle.
        warm.readEnded(read === reads - 1 || apartMs > 0 ? expiresMs : undefined);
      }
    }
    vi.advanceTimersByTime(everyMs);
    warm.cancel();
    return sent;
  }

  it('a 30 s schedule against a 30 s keep-alive: one keep-warm read per cycle from the second, 2 s before expiry', () => {
    // The first cycle has no gap to predict from; cycles 2-4 each plan one, 27 s after their last reply.
    expect(cycles(30_000, 29_000, 4)).toEqual([30_100 + 27_000, 60_100 + 27_000, 90_100 + 27_000]);
  });

  it("a cycle's jobs spread over seconds (waiting for run slots): still one keep-warm read per cycle, after the last", () => {
    // Reads at +0, +1.05 s and +2.1 s of each cycle: the short idle periods do not hide the long one (27.85 s,
    // within the 2 s margin of a 29 s life): kept warm, 27 s after the cycle's last reply.
    expect(cycles(30_000, 29_000, 3, 3, 1_000)).toEqual([30_000 + 2_150 + 27_000, 60_000 + 2_150 + 27_000]);
    // Reads 3.5 s apart: the long idle is ~22.9 s of a 29 s life; nothing is needed.
    expect(cycles(30_000, 29_000, 3, 3, 3_500)).toEqual([]);
  });

  it('schedules shorter than the keep-alive, or too long for one read to bridge, send nothing', () => {
    expect(cycles(15_000, 29_000, 5)).toEqual([]);
    expect(cycles(300_000, 29_000, 3)).toEqual([]);
  });

  it('a cancelled plan sends nothing, and a keep-warm read alone never plans another', () => {
    const sent: number[] = [];
    const warm = new KeepWarm(() => sent.push(clock()), clock);
    for (const start of [0, 30_000]) {
      vi.advanceTimersByTime(start - clock());
      warm.readStarted();
      warm.readEnded(29_000);
    }
    warm.cancel();
    vi.advanceTimersByTime(60_000 - clock());
    expect(sent).toEqual([]);
    // Planned again by a real read's end: sent once, and nothing more without another real read.
    warm.readStarted();
    warm.readEnded(29_000);
    vi.advanceTimersByTime(300_000);
    expect(sent).toEqual([60_000 + 27_000]);
  });
});

/**
 * One emulated router announcing `Keep-Alive: timeout=<keepAliveSeconds>` and a client of it, for `test`; both are
 * closed after it.
 */
async function withRouter(keepAliveSeconds: number, timeoutMs: number, test: (router: EmulatedRouter, client: RouterOsClient) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ keepAliveSeconds, routers: [{ name: 'r' }] });
  const router = emulator.routers[0];
  if (router === undefined) throw new Error('no router');
  const client = new RouterOsClient({ url: router.url, username: 'admin', password: new Secret(''), timeoutMs, tls: { ca: emulator.ca, serverName: 'localhost' } });
  try {
    await test(router, client);
  } finally {
    await client.close();
    await emulator.close();
  }
}

/**
 * Runs `cycle` `cycles` times, each starting `everyMs` after the one before (the schedule itself, not a wait for
 * something to happen), and returns the router's connections counted after each.
 */
async function connectionsOverCycles(router: EmulatedRouter, cycles: number, everyMs: number, cycle: () => Promise<unknown>): Promise<number[]> {
  const connections: number[] = [];
  const started = performance.now();
  for (let index = 0; index < cycles; index++) {
    await sleep(Math.max(0, started + index * everyMs - performance.now()));
    await cycle();
    connections.push(router.stats.connections);
  }
  return connections;
}

// Concurrent: each test runs its own router on its own clock of real seconds, mostly waiting for its next cycle.
describe.concurrent('keep-warm in real time', () => {
  describe('keep-warm over real HTTPS', () => {
    it('a router that closes idle connections sooner than the next cycle keeps one connection from the second cycle on', async () => {
      // timeout=5 → the client drops the connection 4 s after a reply; cycles 4.5 s apart would reconnect each time.
      // The keep-warm read goes 3 s after a cycle's last reply, a whole second before that.
      await withRouter(5, 2_000, async (router, client) => {
        const requests: number[] = [];
        const connections = await connectionsOverCycles(router, 3, 4_500, async () => {
          await client.getSingleton('system/resource');
          await client.list('interface/wireguard');
          requests.push(router.stats.requests);
        });
        // Cycle 2 reconnects (nothing to predict from yet); from then on one keep-warm read per gap keeps it.
        expect(connections).toEqual([1, 2, 2]);
        expect(requests).toEqual([2, 4, 7]);
      });
    });
  });

  describe('keep-warm read that finds its connection closed underneath', () => {
    it('is not sent again on a new connection: the next real read reconnects, once', async () => {
      // timeout=5, two cycles 4.5 s apart: after the second a keep-warm read is planned 3 s after its read. The
      // router then closes kept connections as a request arrives (closeKept): the keep-warm read is dropped. Sent
      // again, it opened a connection only to keep it, and the next real read, on that kept connection, was dropped
      // too and sent again: 4 connections and 6 requests in all instead of 3 and 4.
      await withRouter(5, 2_000, async (router, client) => {
        const connections = await connectionsOverCycles(router, 2, 4_500, () => client.getSingleton('system/resource'));
        expect(connections).toEqual([1, 2]);
        expect(router.stats.requests).toBe(2);
        router.setFaults({ closeKept: true });
        // The keep-warm read arrives and is dropped; nothing follows it (sent again, the count would pass 3).
        await expect.poll(() => router.stats.requests, { timeout: 6_000, interval: 20 }).toBe(3);
        await client.getSingleton('system/resource');
        // The next real read: the dropped connection is gone, so one new connection, one request.
        expect({ connections: router.stats.connections, requests: router.stats.requests }).toEqual({ connections: 3, requests: 4 });
      });
    });
  });

  describe("keep-warm over a router's command connections", () => {
    it('a router that pings two targets each cycle keeps its read and both command connections from the second cycle on', async () => {
      // timeout=5 → the client drops an idle connection 4 s after a reply; cycles 4.5 s apart. Each cycle a read and
      // two pings fire together, as the scheduler starts a router's jobs at a tick: one read connection and two
      // command connections, each kept by a keep-warm read of its own (before, only the read one was: each ping
      // reconnected every cycle, a TLS resumption and a login line in the router's log).
      await withRouter(5, 2_000, async (router, client) => {
        const ping = (): Promise<unknown> => client.run('ping', { address: '192.0.2.1', count: '1', interval: '10ms' });
        const connections = await connectionsOverCycles(router, 4, 4_500, () => Promise.all([client.getSingleton('system/resource'), ping(), ping()]));
        // Cycle 2 reconnects all three (nothing to predict from yet); from then on each is kept.
        expect(connections).toEqual([3, 6, 6, 6]);
      });
    });
  });

  describe('keep-warm against a router whose replies close the connection', () => {
    it('plans no keep-warm read: undici closes the connection whatever the Keep-Alive hint says (found by review)', async () => {
      const tls = await selfSignedTls(['localhost']);
      let requests = 0;
      let connections = 0;
      const server = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
        requests++;
        res.writeHead(200, { 'content-type': 'application/json', connection: 'close', 'keep-alive': 'timeout=3' });
        res.end(req.url?.startsWith('/rest/system/identity') === true ? '{"name":"r"}' : '{"version":"7.16","uptime":"1m"}');
      });
      server.on('secureConnection', () => connections++);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const client = new RouterOsClient({ url: `https://localhost:${port}`, username: 'admin', password: new Secret(''), timeoutMs: 2_000, tls: { ca: tls.cert } });
      try {
        const started = performance.now();
        // Reads 2.5 s apart: longer than the 2 s the hint would keep a connection, so a keep-warm read (1.5 s after
        // each) would have been planned from the second gap on, each on a connection of its own.
        for (let cycle = 0; cycle < 4; cycle++) {
          await sleep(Math.max(0, started + cycle * 2_500 - performance.now()));
          await client.getSingleton('system/resource');
        }
        await sleep(1_000);
        expect(requests).toBe(4);
        expect(connections).toBe(4);
      } finally {
        await client.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe("keep-warm: idle periods are the connection's", () => {
    it('a read queued behind a slow one is not counted as idle: the long gap still gets its keep-warm read', async () => {
      // timeout=3: the client drops the connection 2 s after a reply; a gap up to 3 s can be bridged. Each cycle
      // a slow read (1.5 s) and a read asked for 1.2 s into it, which waits its turn; cycles 4 s apart leave the
      // connection idle 2.5 s. Counting the queued read's wait as idle (3.7 s, past what one read bridges) would
      // cancel the keep-warm read and reconnect every cycle.
      await withRouter(3, 3_000, async (router, client) => {
        router.setFaults({ path: 'system/resource', latencyMs: 1_500 });
        const connections = await connectionsOverCycles(router, 3, 4_000, async () => {
          const slow = client.getSingleton('system/resource');
          await sleep(1_200);
          await Promise.all([slow, client.list('interface/wireguard')]);
        });
        // Cycle 2 reconnects (nothing learnt yet); the keep-warm read then keeps the connection for cycle 3.
        expect(connections).toEqual([1, 2, 2]);
      });
    });
  });

  describe('keep-warm against a router that answers it badly', () => {
    // Every way the emulator can spoil a reply, on the keep-warm read's menu only.
    const FAULTS: [string, Faults][] = [
      ['hangs', { hang: true }],
      ['answers 500', { status: { 'system/identity': 500 } }],
      ['answers 401', { status: { 'system/identity': 401 } }],
      ['broken JSON', { brokenJson: true }],
      ['cut short', { truncated: true }],
      ['a WebFig page', { html: true }],
      ['too large', { oversizedBytes: 64 * 1024 }],
      ['echoes the Authorization header', { echoAuthorization: true }],
      ['drips its body', { slowBodyMs: 10_000 }],
    ];

    it('its failure stays silent and bounded: the next cycle reads as before, on time, for every fault', async () => {
      const emulator = await startEmulator({ keepAliveSeconds: 5, routers: FAULTS.map(([name]) => ({ name: name.replaceAll(' ', '-') })) });
      const clients = emulator.routers.map((router, index) => {
        router.setFaults({ path: 'system/identity', ...(FAULTS[index]?.[1] ?? {}) });
        // A timeout well past the connection's life: a keep-warm read allowed all of it would hold the next cycle
        // for 12 s, far from the bound below on a loaded machine too (4 s against 1.5 s was one busy moment away).
        return new RouterOsClient({ url: router.url, username: 'admin', password: new Secret(''), timeoutMs: 12_000, tls: { ca: emulator.ca, serverName: 'localhost' }, maxResponseBytes: 16 * 1024 });
      });
      try {
        const started = performance.now();
        for (let cycle = 0; cycle < 3; cycle++) {
          await sleep(Math.max(0, started + cycle * 4_500 - performance.now()));
          const results = await Promise.allSettled(clients.map(async (client) => {
            const begun = performance.now();
            await client.getSingleton('system/resource');
            return performance.now() - begun;
          }));
          results.forEach((result, index) => {
            expect(result.status, `${FAULTS[index]?.[0] ?? ''}, cycle ${cycle + 1}: ${JSON.stringify(result)}`).toBe('fulfilled');
            // Never held for a whole timeout by a keep-warm read that hangs or drips: it waits at most the
            // connection's remaining second.
            if (result.status === 'fulfilled') expect(result.value).toBeLessThan(4_000);
          });
        }
        // The keep-warm read was made (the faults were met), once per gap from the second cycle on.
        for (const router of emulator.routers) expect(router.stats.requests).toBe(4);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await emulator.close();
      }
    });
  });
});
