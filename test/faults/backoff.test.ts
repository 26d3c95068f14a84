/**
 * Backoff for routers that keep failing: the policy step by step, then end to end on real 1 s schedules —
 * a wrong password is tried once and then left alone (the router logs every login), other failures back off
 * after three, both visible as routeros_collector_backoff_seconds, and both recover once the backoff is over.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { ErrorReason } from '../../src/routeros/errors.js';
import { Backoff } from '../../src/scheduler/backoff.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { testConfig } from '../helpers/config.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { parseExposition } from '../property/exposition-parser.js';

describe('backoff policy', () => {
  const sequence = (reason: ErrorReason, failures: number): number[] => {
    const backoff = new Backoff();
    return Array.from({ length: failures }, () => backoff.failed(reason, 0));
  };

  it('authentication: from the first failure, doubling from 30 s up to 10 minutes', () => {
    expect(sequence('auth', 8)).toEqual([30, 60, 120, 240, 480, 600, 600, 600]);
  });

  it('anything else: after three failures, doubling from 30 s up to 2 minutes', () => {
    for (const reason of ['connect', 'timeout', 'tls', 'http_5xx', 'parse', 'unsupported', 'redirect'] as const) {
      expect(sequence(reason, 7), reason).toEqual([0, 0, 30, 60, 120, 120, 120]);
    }
  });

  it('counts a streak per class, each ended only by a success: outages and refused logins do not shorten or lengthen each other', () => {
    const backoff = new Backoff();
    // Each failure comes after the backoff before it has ended, as runs are skipped until then.
    let now = 0;
    const failed = (reason: ErrorReason): number => backoff.failed(reason, (now += 1_000_000));
    expect(Array.from({ length: 8 }, () => failed('timeout'))).toEqual([0, 0, 30, 60, 120, 120, 120, 120]);
    // It was 600: the eight timeouts counted into the login's streak (found by review).
    expect([failed('auth'), failed('auth')]).toEqual([30, 60]);
    // A router that drops the exporter for a while after each refused login: the login's backoff still doubles
    // (a first fix reset it at every timeout: 60 logins an hour, found by review of that fix).
    expect([failed('timeout'), failed('auth'), failed('timeout'), failed('auth'), failed('auth')]).toEqual([120, 120, 120, 240, 480]);
    backoff.succeeded();
    expect([failed('auth'), failed('connect')]).toEqual([30, 0]);
  });

  it('a failure of the other class below its threshold does not end a backoff in force, and its figure says so', () => {
    const backoff = new Backoff();
    expect(backoff.failed('auth', 0)).toBe(30);
    expect(backoff.failed('auth', 30_000)).toBe(60);
    // A run let through the backoff (a reload's) times out 10 s later: the login's backoff stands, 80 s more.
    expect(backoff.letThrough(40_000)).toBe(true);
    expect(backoff.failed('timeout', 40_000)).toBe(50);
    expect(backoff.active(89_999)).toBe(true);
    expect(backoff.active(90_000)).toBe(false);
  });

  it('lets one run through a backoff in force, not one per reload', () => {
    const backoff = new Backoff();
    expect(backoff.letThrough(0)).toBe(true);
    backoff.failed('auth', 0);
    expect(backoff.letThrough(1_000)).toBe(true);
    expect(backoff.letThrough(2_000)).toBe(false);
    expect(backoff.letThrough(29_000)).toBe(false);
    // The run let through fails: that extends the backoff, and lets no other through.
    expect(backoff.failed('auth', 3_000)).toBe(60);
    expect(backoff.letThrough(4_000)).toBe(false);
    // Over, and a scheduled run fails again: a new backoff, which lets one through.
    expect(backoff.letThrough(63_000)).toBe(true);
    expect(backoff.failed('auth', 63_000)).toBe(120);
    expect(backoff.letThrough(64_000)).toBe(true);
    expect(backoff.letThrough(65_000)).toBe(false);
  });

  it('skips runs until the backoff is over; a success starts again from nothing', () => {
    const backoff = new Backoff();
    expect(backoff.failed('auth', 1_000)).toBe(30);
    expect(backoff.active(30_999)).toBe(true);
    expect(backoff.remainingSeconds(11_000)).toBe(20);
    expect(backoff.active(31_000)).toBe(false);
    backoff.succeeded();
    expect(backoff.active(1_000)).toBe(false);
    expect(backoff.failed('timeout', 0)).toBe(0);
  });
});

describe('backoff end to end, 1 s schedules', () => {
  let emulator: Emulator;
  let app: App;
  let server: Server;
  let base: string;
  let offset = 0;
  const logs = captureLogs();

  const scrape = async () => parseExposition(await (await fetch(`${base}/metrics`)).text());
  const value = async (key: string): Promise<number | undefined> => (await scrape()).byKey.get(key);

  beforeAll(async () => {
    emulator = await startEmulator({ routers: ['locked', 'flaky', 'steady'].map((name) => ({ name, interfaces: [{ name: 'wg0' }] })) });
    const caFile = writeCa(emulator);
    const config = testConfig({
      listen: '127.0.0.1:0',
      defaults: {
        username: 'admin',
        password: '',
        timeout: '900ms',
        tls: { ca_file: caFile },
        schedules: { system: '* * * * * *', wireguard: '* * * * * *' },
        // The two collectors the requests below are counted for, whatever else the catalog holds.
        collectors: Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system' || name === 'wireguard'])),
      },
      routers: ['locked', 'flaky', 'steady'].map((name) => ({ name, url: emulator.router(name).url })),
    });
    emulator.router('locked').setFaults({ status: { '/': 401 } });
    emulator.router('flaky').setFaults({ status: { '/': 503 } });
    // The backoff reads this clock; the schedules run on real time.
    app = createApp(config, { logger: logs.logger, jitter: false, now: () => Date.now() + offset, elapsed: () => performance.now() + offset });
    server = await startServer(app, config.listen);
    base = serverUrl(server);
    app.start();
  });

  afterAll(async () => {
    await app?.stop();
    if (server !== undefined) await closeServer(server, 1000);
    await emulator?.close();
  });

  it('backs off other failures after the third, visibly', async () => {
    await expect.poll(() => value('routeros_collector_backoff_seconds{router="flaky",collector="system"}'), { timeout: 10_000 }).toBe(30);
    const metrics = await scrape();
    expect(metrics.byKey.get('routeros_collector_errors_total{router="flaky",collector="system",reason="http_5xx"}')).toBe(3);
    expect(metrics.byKey.get('routeros_collector_backoff_seconds{router="steady",collector="system"}')).toBe(0);
  });

  it('tries a wrong password once per collector, then leaves the router alone while others keep running', async () => {
    const requests = emulator.router('locked').stats.requests;
    expect(requests).toBe(2);
    const steady = emulator.router('steady').stats.requests;
    await expect.poll(() => emulator.router('steady').stats.requests, { timeout: 10_000 }).toBeGreaterThanOrEqual(steady + 6);
    expect(emulator.router('locked').stats.requests).toBe(requests);
    const metrics = await scrape();
    expect(metrics.byKey.get('routeros_collector_errors_total{router="locked",collector="system",reason="auth"}')).toBe(1);
    expect(metrics.byKey.get('routeros_collector_backoff_seconds{router="locked",collector="system"}')).toBe(30);
    expect(metrics.byKey.get('routeros_collector_backoff_seconds{router="locked",collector="wireguard"}')).toBe(30);
    const lines = logs.lines().filter((line) => line['router'] === 'locked' && String(line['msg']).startsWith('collector failed'));
    expect(lines.map((line) => [line['collector'], line['reason'], line['backoff_seconds']]).sort()).toEqual([
      ['system', 'auth', 30],
      ['wireguard', 'auth', 30],
    ]);
  });

  it('retries once the backoff is over, and recovers', async () => {
    emulator.router('locked').clearFaults();
    emulator.router('flaky').clearFaults();
    offset += 31_000;
    for (const router of ['locked', 'flaky']) {
      await expect.poll(() => value(`routeros_up{router="${router}"}`), { timeout: 10_000 }).toBe(1);
      await expect.poll(() => value(`routeros_collector_backoff_seconds{router="${router}",collector="system"}`)).toBe(0);
    }
    const recovered = logs.lines().filter((line) => line['msg'] === 'collector recovered').map((line) => `${String(line['router'])}/${String(line['collector'])}`);
    expect(recovered).toEqual(expect.arrayContaining(['locked/system', 'flaky/system']));
  });
});
