/**
 * Data-plane probes end to end against the emulator with the production client: the POST /ping body (interface=,
 * src-address=, count, interval), rtt and loss per peer, the verdict (allowed-address mismatch `blocked`,
 * partial loss `up` and noted), which peers each setting probes, and at most one probe per peer per interval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { Secret } from '../../src/util/secret.js';
import { wireguardCollector, type WireguardData, type WireguardPeer } from '../../src/collectors/wireguard.js';
import { PROBE_CONCURRENCY, planProbes, probeKey, runProbes } from '../../src/collectors/wireguard-probe.js';
import { FieldReader } from '../../src/analysis/decoding.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { JobContext } from '../../src/collectors/types.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from './sample-text.js';

const PASSWORD = 'read and test, for the probe test';
const now = Date.UTC(2026, 0, 15, 12, 0, 0);
let emulator: Emulator;
let client: RouterOsClient;

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => now,
    users: [{ name: 'monitor', password: PASSWORD, policies: ['read', 'api', 'rest-api', 'test'] }],
    routers: [
      {
        name: 'hq',
        version: '7.19.4',
        interfaces: [{ name: 'wg-sites', listenPort: 13231 }, { name: 'wg-road', listenPort: 13232 }],
        addresses: [{ address: '10.9.0.1/24', interface: 'wg-sites' }, { address: '10.8.0.1/24', interface: 'wg-road' }],
        peers: [
          { interface: 'wg-sites', name: 'good', allowedAddress: ['10.9.0.2/32', '192.168.2.0/24'], endpointAddress: '198.51.100.2', endpointPort: 13231, persistentKeepalive: 25 },
          // The far end's tunnel address is 10.9.0.30; this side allows 10.9.0.3: handshakes, but nothing passes.
          { interface: 'wg-sites', name: 'mismatch', allowedAddress: ['10.9.0.3/32'], endpointAddress: '198.51.100.3', endpointPort: 13231, persistentKeepalive: 25 },
          { interface: 'wg-sites', name: 'subnet-only', allowedAddress: ['192.168.4.0/24'], endpointAddress: '198.51.100.4', endpointPort: 13231, persistentKeepalive: 25 },
          // A congested link: one ping in three lost.
          { interface: 'wg-sites', name: 'lossy', allowedAddress: ['10.9.0.5/32'], endpointAddress: '198.51.100.5', endpointPort: 13231, persistentKeepalive: 25 },
          { interface: 'wg-road', name: 'laptop', allowedAddress: ['10.8.0.5/32'], responder: true },
        ],
        ping: {
          '10.9.0.2': { kind: 'reachable', rttMs: 8, jitterMs: 0.5 },
          '10.9.0.30': { kind: 'reachable', rttMs: 8 },
          '10.9.0.5': { kind: 'lossy', rttMs: 20, loss: 1 / 3, jitterMs: 1 },
          '10.8.0.5': { kind: 'reachable', rttMs: 30, jitterMs: 1 },
        },
      },
    ],
  });
  client = new RouterOsClient({ url: emulator.router('hq').url, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 5_000, tls: { ca: emulator.ca } });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

interface Recorded {
  lists: string[];
  pings: Record<string, unknown>[];
}

/** The production client, with what the job asked of it recorded on the way through. */
function recording(): { spy: JobContext['client']; seen: Recorded } {
  const seen: Recorded = { lists: [], pings: [] };
  const spy: JobContext['client'] = {
    list: (path, options) => (seen.lists.push(path), client.list(path, options)),
    getSingleton: client.getSingleton.bind(client),
    run: (command, parameters, options) => {
      if (command === 'ping') seen.pings.push({ ...parameters });
      return client.run(command, parameters, options);
    },
  };
  return { spy, seen };
}

async function collect(health: Record<string, unknown>, memory = new Map<string, number>(), at = now): Promise<{ text: string; probes: Record<string, unknown>; peers: WireguardPeer[]; seen: Recorded; decodeErrors: number }> {
  const router = testRouter({ url: emulator.router('hq').url }, { health });
  const [job] = wireguardCollector.jobs(router);
  if (job === undefined) throw new Error('no job');
  const { spy, seen } = recording();
  const result = await job.run({ router, client: spy, routerLabel: routerLabel('hq'), now: () => at, signal: new AbortController().signal, memory });
  const data = result.data as WireguardData;
  return { text: sampleText(result.samples), probes: Object.fromEntries([...data.peers].map((peer) => [peer.name, peer.probe])), peers: [...data.peers], seen, decodeErrors: result.decodeErrors };
}

const value = (text: string, family: string, name: string): number | undefined => {
  const match = new RegExp(`^${family}\\{[^}]*name="${name}"[^}]*\\} (\\S+)$`, 'm').exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

describe('data-plane probes against the emulator', () => {
  it('an address list that cannot be read leaves the peers to their handshakes, each probe an error, not the run failed (found by a hostile tester)', async () => {
    const router = testRouter({ url: emulator.router('hq').url }, { health: { probe_tunnels: true, probe_count: 3 } });
    const [job] = wireguardCollector.jobs(router);
    if (job === undefined) throw new Error('no job');
    const { spy, seen } = recording();
    const failing: JobContext['client'] = {
      ...spy,
      list: (path, options) => (path === 'ip/address' ? Promise.reject(new RouterOsError('ROS_ERR_HTTP_5XX', 'GET /rest/ip/address: HTTP 500', { status: 500 })) : spy.list(path, options)),
    };
    const result = await job.run({ router, client: failing, routerLabel: routerLabel('hq'), now: () => now, signal: new AbortController().signal, memory: new Map() });
    const peers = [...(result.data as WireguardData).peers];
    expect(seen.pings).toEqual([]);
    expect(Object.fromEntries(peers.map((peer) => [peer.name, peer.probe]))).toEqual({ good: 'error', mismatch: 'error', 'subnet-only': 'no_tunnel_address', lossy: 'error', laptop: 'off' });
    // Judged by their handshakes, as without probes: the keepalive peers are up.
    expect(value(sampleText(result.samples), 'routeros_wireguard_peer_healthy', 'good')).toBe(1);
    // Left out, and said why (the job logs it: scheduler/runner.ts).
    expect(result.optionalReads).toEqual([
      { what: "the tunnel probes' source addresses (ip/address)", failure: { cause: 'ROS_ERR_HTTP_5XX', message: 'GET /rest/ip/address: HTTP 500' } },
    ]);
  });

  it('a stop while the address list is read is a stop, not a run without probes', async () => {
    const router = testRouter({ url: emulator.router('hq').url }, { health: { probe_tunnels: true } });
    const [job] = wireguardCollector.jobs(router);
    if (job === undefined) throw new Error('no job');
    const { spy } = recording();
    const stop = new AbortController();
    const stopping: JobContext['client'] = {
      ...spy,
      list: (path, options) => {
        if (path !== 'ip/address') return spy.list(path, options);
        stop.abort(new Error('stopped'));
        return Promise.reject(new RouterOsError('ROS_ERR_ABORTED', 'GET /rest/ip/address: aborted'));
      },
    };
    await expect(job.run({ router, client: stopping, routerLabel: routerLabel('hq'), now: () => now, signal: stop.signal, memory: new Map() })).rejects.toThrow('aborted');
  });

  it('handshake times are reckoned from when the peers were read, not from after the probes', async () => {
    const timestamp = async (health: Record<string, unknown>): Promise<number | undefined> => {
      const router = testRouter({ url: emulator.router('hq').url }, { health });
      const [job] = wireguardCollector.jobs(router);
      if (job === undefined) throw new Error('no job');
      // The exporter's clock moves on 10 s with every ping, as on a slow router; the router's stays.
      let clock = now;
      const { spy } = recording();
      const slow: JobContext['client'] = { ...spy, run: (command, parameters, options) => ((clock += 10_000), spy.run(command, parameters, options)) };
      const result = await job.run({ router, client: slow, routerLabel: routerLabel('hq'), now: () => clock, signal: new AbortController().signal, memory: new Map() });
      return value(sampleText(result.samples), 'routeros_wireguard_peer_latest_handshake_timestamp_seconds', 'good');
    };
    const unprobed = await timestamp({ probe_tunnels: false });
    expect(unprobed).toBeGreaterThan(now / 1000 - 300);
    // It was 30 s late: three probes' time.
    expect(await timestamp({ probe_tunnels: true })).toBe(unprobed);
  });

  it('probe_tunnels: true, probe_count 3: the body names interface, src-address, count; rtt and loss per peer; verdicts', async () => {
    const { text, probes, peers, seen, decodeErrors } = await collect({ probe_tunnels: true, probe_count: 3 });
    expect(decodeErrors).toBe(0);
    expect(seen.lists).toEqual(['interface/wireguard', 'interface/wireguard/peers', 'ip/address']);
    // Three pings all lost are evidence enough: each peer probed once.
    expect(seen.pings).toHaveLength(3);
    expect(seen.pings).toContainEqual({ address: '10.9.0.2', interface: 'wg-sites', 'src-address': '10.9.0.1', count: '3', interval: '200ms' });
    expect(seen.pings).toContainEqual({ address: '10.9.0.3', interface: 'wg-sites', 'src-address': '10.9.0.1', count: '3', interval: '200ms' });
    expect(seen.pings).toContainEqual({ address: '10.9.0.5', interface: 'wg-sites', 'src-address': '10.9.0.1', count: '3', interval: '200ms' });
    // The road warrior is not expected up, so true does not probe it.
    expect(probes).toEqual({ good: 'ok', mismatch: 'failed', 'subnet-only': 'no_tunnel_address', lossy: 'partial', laptop: 'off' });

    expect(value(text, 'routeros_wireguard_peer_probe_success', 'good')).toBe(1);
    expect(value(text, 'routeros_wireguard_peer_probe_loss_ratio', 'good')).toBe(0);
    const goodRtt = value(text, 'routeros_wireguard_peer_probe_rtt_seconds', 'good') ?? NaN;
    expect(goodRtt).toBeGreaterThanOrEqual(0.0075);
    expect(goodRtt).toBeLessThanOrEqual(0.0085);

    expect(value(text, 'routeros_wireguard_peer_probe_success', 'mismatch')).toBe(0);
    expect(value(text, 'routeros_wireguard_peer_probe_loss_ratio', 'mismatch')).toBe(1);
    expect(value(text, 'routeros_wireguard_peer_probe_rtt_seconds', 'mismatch')).toBeUndefined();
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="mismatch",state="blocked"\} 1/);
    expect(value(text, 'routeros_wireguard_peer_healthy', 'mismatch')).toBe(0);

    // One of three lost: up, healthy, loss exactly a third, rtt the answered pings' average.
    expect(value(text, 'routeros_wireguard_peer_probe_success', 'lossy')).toBe(1);
    expect(value(text, 'routeros_wireguard_peer_probe_loss_ratio', 'lossy')).toBeCloseTo(1 / 3, 9);
    const lossyRtt = value(text, 'routeros_wireguard_peer_probe_rtt_seconds', 'lossy') ?? NaN;
    expect(lossyRtt).toBeGreaterThanOrEqual(0.019);
    expect(lossyRtt).toBeLessThanOrEqual(0.021);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="lossy",state="up"\} 1/);
    expect(value(text, 'routeros_wireguard_peer_healthy', 'lossy')).toBe(1);
    expect(peers.find((peer) => peer.name === 'lossy')).toMatchObject({ probe: 'partial', probeLossRatio: 1 / 3 });
    // Kept peers, probed or not, have one shape: the same keys in the same order (a key added to some afterwards
    // moves every peer's fields to a second, out-of-object array: ~3–4 MB at 100 × 1,000).
    expect(new Set(peers.map((peer) => Object.keys(peer).join()))).toHaveLength(1);

    // No series for peers not probed; the router says how many selected peers went unprobed, and why.
    expect(text).not.toMatch(/probe_(success|rtt_seconds|loss_ratio)\{[^}]*name="(laptop|subnet-only)"/);
    expect(text).toMatch(/routeros_wireguard_probe_skipped_peers\{router="hq",interface="wg-sites",reason="no_tunnel_address"\} 1/);
    expect(text).toMatch(/routeros_wireguard_probe_skipped_peers\{router="hq",interface="wg-sites",reason="over_cap"\} 0/);
    // wg-road's only peer is not selected: no series for it.
    expect(text).not.toMatch(/probe_skipped_peers\{[^}]*interface="wg-road"/);
  });

  it('by default (auto, nothing declared always-on) reads no addresses, pings nothing and writes no probe series', async () => {
    const { text, probes, seen } = await collect({});
    expect(seen.lists).toEqual(['interface/wireguard', 'interface/wireguard/peers']);
    expect(seen.pings).toEqual([]);
    expect(text).not.toMatch(/probe/);
    expect(new Set(Object.values(probes))).toEqual(new Set(['off']));
  });

  it('auto probes peers declared expect: always, not peers only inferred always-on by their keepalive', async () => {
    const { probes, seen } = await collect({ expect: { good: 'always', mismatch: 'auto' } });
    expect(seen.pings).toEqual([{ address: '10.9.0.2', interface: 'wg-sites', 'src-address': '10.9.0.1', count: '1' }]);
    expect(probes).toEqual({ good: 'ok', mismatch: 'off', 'subnet-only': 'off', lossy: 'off', laptop: 'off' });
  });

  it('health.probe: an interface on probes its peers (road warriors too), a peer off wins over it, probe_tunnels false probes nothing else', async () => {
    const { probes, seen, text } = await collect({ probe_tunnels: false, probe: { 'wg-road': 'on', 'wg-sites': 'on', mismatch: 'off', 'subnet-only': 'off', lossy: 'off' } });
    expect(seen.pings.map((ping) => ping['address']).sort()).toEqual(['10.8.0.5', '10.9.0.2']);
    expect(probes).toEqual({ good: 'ok', mismatch: 'off', 'subnet-only': 'off', lossy: 'off', laptop: 'ok' });
    const rtt = value(text, 'routeros_wireguard_peer_probe_rtt_seconds', 'laptop') ?? NaN;
    expect(rtt).toBeGreaterThanOrEqual(0.029);
    expect(rtt).toBeLessThanOrEqual(0.031);
  });

  it('never probes a peer twice within an interval: an extra run keeps the last result; the next interval probes again', async () => {
    const memory = new Map<string, number>();
    const health = { probe_tunnels: true, probe_count: 3 };
    const first = await collect(health, memory, now);
    expect(first.seen.pings).toHaveLength(3);
    // 5 s later (a reload's or a start's extra run; the schedule is every 15 s): no ping, same verdicts and series.
    const extra = await collect(health, memory, now + 5_000);
    expect(extra.seen.pings).toEqual([]);
    expect(extra.probes).toEqual(first.probes);
    expect(extra.text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="mismatch",state="blocked"\} 1/);
    expect(value(extra.text, 'routeros_wireguard_peer_probe_loss_ratio', 'lossy')).toBeCloseTo(1 / 3, 9);
    expect(value(extra.text, 'routeros_wireguard_peer_probe_rtt_seconds', 'good')).toBe(value(first.text, 'routeros_wireguard_peer_probe_rtt_seconds', 'good'));
    const next = await collect(health, memory, now + 15_000);
    expect(next.seen.pings).toHaveLength(3);
    // Turning probes off forgets what they remembered.
    await collect({ probe_tunnels: false }, memory, now + 30_000);
    expect([...memory.keys()].filter((key) => key.startsWith('probe'))).toEqual([]);
  });
});

describe('the per-router cap', () => {
  it(`never runs more than ${PROBE_CONCURRENCY} probes at once, with count 3, each peer once`, async () => {
    const health = testRouter({}, { health: { probe_tunnels: true, probe_count: 3 } }).health;
    const peers = Array.from({ length: 10 }, (_, i) => ({ interface: 'wg0', 'public-key': `k${i}`, 'allowed-address': `10.0.0.${i + 2}/32`, 'persistent-keepalive': '25s', disabled: 'false' }));
    const { targets } = planProbes([{ name: 'wg0', disabled: 'false' }], peers, [{ address: '10.0.0.1/24', interface: 'wg0', disabled: 'false' }], health);
    let inFlight = 0;
    let most = 0;
    const bodies: Record<string, unknown>[] = [];
    const release: (() => void)[] = [];
    const run = async (_command: string, parameters: Readonly<Record<string, unknown>>): Promise<unknown> => {
      bodies.push({ ...parameters });
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => release.push(resolve));
      inFlight--;
      return [{ sent: '3', received: '3', 'avg-rtt': '5ms' }];
    };
    const done = runProbes(run, targets, { count: health.probeCount ?? 1, timeoutMs: 5_000, read: new FieldReader('probe') }, new AbortController().signal);
    while (release.length > 0 || inFlight > 0) {
      await Promise.resolve();
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await done;
    expect(results.size).toBe(10);
    expect(most).toBe(PROBE_CONCURRENCY);
    expect(bodies.map((body) => body['count'])).toEqual(Array.from({ length: 10 }, () => '3'));
    expect(new Set(bodies.map((body) => body['address'])).size).toBe(10);
    expect(results.get(probeKey('wg0', 'k0'))).toEqual({ outcome: 'ok', lossRatio: 0, rttSeconds: 0.005 });
  });
});
