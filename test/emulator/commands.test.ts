/** POST commands: ping, bandwidth-test, password, and the command cap (spec §4.3, §8; real-formats §4, §5). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { asRec, asRows, Client, seconds } from './helpers.js';
import type { Rec } from './helpers.js';

let emu: Emulator;
let client: Client;
const R = 'cmd';
const CAP_MS = 300;
const SESSION_CLOSED = { detail: 'Session closed', error: 400, message: 'Bad Request' };

const seed = {
  users: [{ name: 'admin', password: '' }, { name: 'ops', password: 'old-secret' }],
  routers: [
    {
      name: R,
      interfaces: [{ name: 'wg0' }],
      // A live peer routing the subnet: pings forced through wg0 need one (cryptokey routing).
      peers: [{ interface: 'wg0', allowedAddress: ['10.0.0.0/24'] }],
      addresses: [{ address: '10.0.0.1/24', interface: 'wg0' }],
      ping: {
        '10.0.0.2': { kind: 'reachable', rttMs: 12.345, ttl: 63 },
        '10.0.0.3': { kind: 'lossy', rttMs: 40, loss: 0.5 },
        '10.0.0.4': { kind: 'host-unreachable', from: '10.0.0.254' },
        'gw.example': { kind: 'reachable', rttMs: 0.4 },
      },
      bandwidthServers: {
        '10.0.0.2': { kind: 'ok', rxBps: 50_000_000, txBps: 20_000_000, lostPerSecond: 5 },
        '10.0.0.5': { kind: 'ok', rxBps: 1_000_000, txBps: 1_000_000, user: 'bt', password: 'pw' },
        '10.0.0.6': { kind: 'fail', status: 'remote is busy' },
      },
    },
  ],
} satisfies EmulatorOptions;

beforeAll(async () => {
  emu = await startEmulator({ ...seed, commandTimeoutMs: CAP_MS });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('ping', () => {
  it('returns one row per probe with cumulative stats, after about count × interval', async () => {
    const started = performance.now();
    const a = await client.post(R, '/rest/ping', { address: '10.0.0.2', count: 4, interval: '50ms' });
    const took = performance.now() - started;
    expect(a.status).toBe(200);
    expect(took).toBeGreaterThanOrEqual(190);
    const rows = asRows(a.json);
    expect(rows.map((r) => r['seq'])).toEqual(['0', '1', '2', '3']);
    rows.forEach((r, i) => {
      expect(Object.keys(r).sort()).toEqual(['avg-rtt', 'host', 'max-rtt', 'min-rtt', 'packet-loss', 'received', 'sent', 'seq', 'size', 'time', 'ttl']);
      expect(r).toMatchObject({ host: '10.0.0.2', sent: String(i + 1), received: String(i + 1), 'packet-loss': '0', size: '56', ttl: '63' });
      expect(r['time']).toMatch(/^\d+ms\d+us$/);
      expect(seconds(r['time'] ?? '')).toBeGreaterThan(0.010);
      expect(seconds(r['time'] ?? '')).toBeLessThan(0.015);
    });
    const last = rows[3] as Rec;
    const times = rows.map((r) => seconds(r['time'] ?? ''));
    expect(seconds(last['min-rtt'] ?? '')).toBeCloseTo(Math.min(...times), 6);
    expect(seconds(last['max-rtt'] ?? '')).toBeCloseTo(Math.max(...times), 6);
    // Truncated to the microsecond, as RouterOS prints it (the manual's capture: 453us and 382us give 417us).
    const micros = (text: string): number => Math.round(seconds(text) * 1e6);
    expect(micros(last['avg-rtt'] ?? '')).toBe(Math.floor(rows.reduce((sum, r) => sum + micros(r['time'] ?? ''), 0) / 4));
  });

  it('/tool/ping is the same command; count may be a string; size and interface are honoured', async () => {
    const rows = asRows((await client.post(R, '/rest/tool/ping', { address: '10.0.0.2', count: '2', interval: 0.01, size: 1400, interface: 'wg0', 'src-address': '10.0.0.1' })).json);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.['size']).toBe('1400');
  });

  it('lost probes are timeout rows without time/ttl/size; rtt stats absent until a reply', async () => {
    const rows = asRows((await client.post(R, '/rest/ping', { address: '10.9.9.9', count: 2, interval: '10ms' })).json);
    expect(rows[0]).toEqual({ host: '10.9.9.9', 'packet-loss': '100', received: '0', sent: '1', seq: '0', status: 'timeout' });
    expect(rows[1]).toEqual({ host: '10.9.9.9', 'packet-loss': '100', received: '0', sent: '2', seq: '1', status: 'timeout' });
  });

  it('a lossy target loses its share of probes, and timeouts after a reply keep the rtt stats', async () => {
    const rows = asRows((await client.post(R, '/rest/ping', { address: '10.0.0.3', count: 6, interval: '10ms' })).json);
    const lost = rows.filter((r) => r['status'] === 'timeout');
    expect(lost).toHaveLength(3);
    expect(rows[5]?.['packet-loss']).toBe('50');
    const timeoutAfterReply = rows.find((r, i) => r['status'] === 'timeout' && rows.slice(0, i).some((p) => p['time'] !== undefined));
    expect(timeoutAfterReply).toHaveProperty('avg-rtt');
    expect(timeoutAfterReply).not.toHaveProperty('time');
  });

  it('host unreachable rows name the router that answered', async () => {
    const rows = asRows((await client.post(R, '/rest/ping', { address: '10.0.0.4', count: 1, interval: '10ms' })).json);
    expect(rows[0]).toMatchObject({ host: '10.0.0.254', status: 'host unreachable', received: '0', sent: '1', 'packet-loss': '100' });
  });

  it('pinging a name resolves configured targets and refuses unknown ones', async () => {
    expect(asRows((await client.post(R, '/rest/ping', { address: 'gw.example', count: 1, interval: '10ms' })).json)[0]).toHaveProperty('time');
    const a = await client.post(R, '/rest/ping', { address: 'nowhere.invalid', count: 1 });
    expect(a.status).toBe(400);
    expect(asRec(a.json)['detail']).toMatch(/could not get answer from dns server/);
  });

  it('without count it runs until the command cap and fails with Session closed', async () => {
    const started = performance.now();
    const a = await client.post(R, '/rest/ping', { address: '10.0.0.2' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(CAP_MS - 20);
    expect(a.status).toBe(400);
    expect(a.json).toEqual(SESSION_CLOSED);
    expect(a.headers.get('connection')).toBe('close');
  });

  it('a count × interval longer than the cap is cut too', async () => {
    expect((await client.post(R, '/rest/ping', { address: '10.0.0.2', count: 100, interval: '10ms' })).json).toEqual(SESSION_CLOSED);
  });

  it('refuses unknown parameters, bad intervals and unknown interfaces', async () => {
    expect((await client.post(R, '/rest/ping', { address: '10.0.0.2', count: 1, timeout: '1s' })).json).toEqual({ detail: 'unknown parameter timeout', error: 400, message: 'Bad Request' });
    expect((await client.post(R, '/rest/ping', { address: '10.0.0.2', count: 1, interval: 'soon' })).status).toBe(400);
    expect((await client.post(R, '/rest/ping', { address: '10.0.0.2', count: 1, interface: 'nope' })).status).toBe(400);
  });
});

describe('bandwidth-test', () => {
  it('answers after the duration with .section rows: connecting, running…, done testing', async () => {
    // Two seconds of test need a router whose cap is longer than the 300 ms used elsewhere here.
    const long = await startEmulator(seed);
    const longClient = new Client(long);
    const started = performance.now();
    const a = await longClient.post(R, '/rest/tool/bandwidth-test', { address: '10.0.0.2', duration: '2s', direction: 'both' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1990);
    await longClient.close();
    await long.close();
    expect(a.status).toBe(200);
    const rows = asRows(a.json);
    expect(rows.map((r) => r['.section'])).toEqual(['0', '1', '2']);
    expect(rows.map((r) => r['status'])).toEqual(['connecting', 'running', 'done testing']);
    expect(rows[0]).not.toHaveProperty('duration');
    expect(rows.slice(1).map((r) => r['duration'])).toEqual(['1s', '2s']);
    for (const r of rows.slice(1)) {
      for (const key of ['rx-current', 'rx-10-second-average', 'rx-total-average', 'tx-current', 'tx-total-average', 'lost-packets']) {
        expect(r[key], key).toMatch(/^\d+$/);
      }
      expect(Number(r['rx-current'])).toBeGreaterThan(40_000_000);
      expect(Number(r['rx-current'])).toBeLessThan(60_000_000);
      expect(Number(r['tx-current'])).toBeLessThan(25_000_000);
      expect(r).toMatchObject({ direction: 'both', 'connection-count': '20', 'random-data': 'false', 'rx-size': '1500' });
    }
    // Lost packets per section, as the manual's capture has them (0, 0, 581175, 9014), not a running total: each
    // section is about the server's loss per second, the second not the first and the second added up.
    const lost = rows.slice(1).map((r) => Number(r['lost-packets']));
    const perSecond = lost[0] ?? 0;
    expect(perSecond).toBeGreaterThan(0);
    expect(lost[1]).toBeLessThan(perSecond * 1.5);
  }, 10_000);

  it('receive-only tests have no tx-* keys; transmit-only no rx-* keys; tcp has no lost-packets', async () => {
    const [rxAnswer, txAnswer] = await Promise.all([
      client.post(R, '/rest/tool/bandwidth-test', { address: '10.0.0.2', duration: '150ms' }),
      client.post(R, '/rest/tool/bandwidth-test', { address: '10.0.0.2', duration: '150ms', direction: 'transmit', protocol: 'tcp' }),
    ]);
    const rx = asRows(rxAnswer.json);
    expect(rx.at(-1)).toHaveProperty('rx-total-average');
    expect(rx.at(-1)).not.toHaveProperty('tx-total-average');
    expect(rx.at(-1)?.['status']).toBe('done testing');
    const tx = asRows(txAnswer.json);
    expect(tx.at(-1)).toHaveProperty('tx-total-average');
    expect(tx.at(-1)).not.toHaveProperty('rx-total-average');
    expect(tx.at(-1)).not.toHaveProperty('lost-packets');
  });

  it('failures are a 200 with the final status', async () => {
    const test = (body: Record<string, string>): Promise<string | undefined> =>
      client.post(R, '/rest/tool/bandwidth-test', { duration: '150ms', ...body }).then((a) => {
        expect(a.status).toBe(200);
        return asRows(a.json).at(-1)?.['status'];
      });
    const statuses = await Promise.all([
      test({ address: '10.0.0.6' }),
      test({ address: '10.0.0.99' }),
      test({ address: '10.0.0.5', user: 'bt', password: 'wrong' }),
      test({ address: '10.0.0.5', user: 'bt', password: 'pw' }),
    ]);
    expect(statuses).toEqual(['remote is busy', 'can not connect', 'authentication failed', 'done testing']);
  });

  it('without duration it runs until the cap: Session closed', async () => {
    expect((await client.post(R, '/rest/tool/bandwidth-test', { address: '10.0.0.2' })).json).toEqual(SESSION_CLOSED);
  });
});

describe('password', () => {
  it('changes the active user password; the old one stops working at once', async () => {
    const ops = client.as('ops', 'old-secret');
    try {
      const mismatch = await ops.post(R, '/rest/password', { 'old-password': 'old-secret', 'new-password': 'a', 'confirm-new-password': 'b' });
      expect(mismatch.status).toBe(400);
      const wrongOld = await ops.post(R, '/rest/password', { 'old-password': 'nope', 'new-password': 'n3w', 'confirm-new-password': 'n3w' });
      expect(wrongOld.status).toBe(400);
      const ok = await ops.post(R, '/rest/password', { 'old-password': 'old-secret', 'new-password': 'n3w', 'confirm-new-password': 'n3w' });
      expect(ok.status).toBe(200);
      expect(ok.json).toEqual([]);
      expect(emu.router(R).password('ops')).toBe('n3w');
      expect((await ops.get(R, '/rest/system/identity')).status).toBe(401);
      const fresh = client.as('ops', 'n3w');
      expect((await fresh.get(R, '/rest/system/identity')).status).toBe(200);
      await fresh.close();
      expect(emu.router(R).password('admin')).toBe('');
    } finally {
      await ops.close();
    }
  });
});
