/**
 * Data-plane probes (health.probe_tunnels) end to end against the emulator with the production client: a ping
 * through the tunnel per always-on peer, folded into the verdict. The allowed-address mismatch (handshake fresh,
 * nothing passes) is `blocked` and unhealthy; a working link is up with probe 1; road warriors are not probed;
 * a peer without a tunnel address says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { wireguardCollector } from '../../src/collectors/wireguard.js';
import { PROBE_CONCURRENCY, planProbes, runProbes } from '../../src/collectors/wireguard-probe.js';
import { routerLabel } from '../../src/metrics/family.js';
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
          { interface: 'wg-road', name: 'laptop', allowedAddress: ['10.8.0.5/32'], responder: true },
        ],
        ping: { '10.9.0.2': { kind: 'reachable', rttMs: 8 }, '10.9.0.30': { kind: 'reachable', rttMs: 8 }, '10.8.0.5': { kind: 'reachable', rttMs: 8 } },
      },
    ],
  });
  client = new RouterOsClient({ url: emulator.router('hq').url, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 5_000, tls: { ca: emulator.ca } });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('data-plane probes', () => {
  it('fold into the verdict: mismatch is blocked and unhealthy, good is up with probe 1, laptop not probed', async () => {
    const router = testRouter({ url: emulator.router('hq').url }, { health: { probe_tunnels: true } });
    const [job] = wireguardCollector.jobs(router);
    if (job === undefined) throw new Error('no job');
    const result = await job.run({ router, client, routerLabel: routerLabel('hq'), now: () => now, signal: new AbortController().signal, memory: new Map() });
    const text = sampleText(result.samples);
    expect(text).toMatch(/routeros_wireguard_peer_probe_success\{[^}]*name="good"\} 1/);
    expect(text).toMatch(/routeros_wireguard_peer_probe_success\{[^}]*name="mismatch"\} 0/);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="mismatch",state="blocked"\} 1/);
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="mismatch"\} 0/);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="good",state="up"\} 1/);
    expect(text).not.toMatch(/probe_success\{[^}]*name="(laptop|subnet-only)"/);
    const data = result.data as { peers: { name: string; probe?: string }[] };
    expect(Object.fromEntries(data.peers.map((peer) => [peer.name, peer.probe]))).toEqual({ good: 'ok', mismatch: 'failed', 'subnet-only': 'no_tunnel_address', laptop: undefined });
  });

  it('off by default: no address list, no ping', async () => {
    const router = testRouter({ url: emulator.router('hq').url });
    const calls: string[] = [];
    const spy = { list: async (...args: Parameters<RouterOsClient['list']>) => (calls.push(args[0]), client.list(...args)), getSingleton: client.getSingleton.bind(client), run: async () => { calls.push('run'); return []; } };
    const [job] = wireguardCollector.jobs(router);
    await job?.run({ router, client: spy, routerLabel: routerLabel('hq'), now: () => now, signal: new AbortController().signal, memory: new Map() });
    expect(calls).toEqual(['interface/wireguard', 'interface/wireguard/peers']);
  });

  it(`never runs more than ${PROBE_CONCURRENCY} probes at once`, async () => {
    const health = testRouter({}, { health: { probe_tunnels: true } }).health;
    const peers = Array.from({ length: 10 }, (_, i) => ({ interface: 'wg0', 'public-key': `k${i}`, 'allowed-address': `10.0.0.${i + 2}/32`, 'persistent-keepalive': '25s', disabled: 'false' }));
    const { targets } = planProbes([{ name: 'wg0', disabled: 'false' }], peers, [{ address: '10.0.0.1/24', interface: 'wg0', disabled: 'false' }], health);
    let inFlight = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const run = async (): Promise<unknown> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => release.push(resolve));
      inFlight--;
      return [{ received: '1' }];
    };
    const done = runProbes(run, targets, new AbortController().signal);
    while (release.length > 0 || inFlight > 0) {
      await Promise.resolve();
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await done;
    expect(results.size).toBe(10);
    expect(most).toBe(PROBE_CONCURRENCY);
  });
});
