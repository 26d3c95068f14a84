/**
 * The set-up audit end to end against the emulator over HTTPS, with the production client and a read-only user: the
 * interface lists and their members are read, so an anti-spoofing drop over defconf's LAN list does not fail the
 * forward check; on a router that lacks the member menu (an optional read that fails) the lists are judged by their
 * names, as before, and the job says which part it left out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { RouterSeed } from '../../src/emulator/types.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { wireguardSetupCollector } from '../../src/collectors/wireguard-setup.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';

const PASSWORD = 'read only, for the set-up audit test';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
let emulator: Emulator;
const clients: RouterOsClient[] = [];

/** wg0 routes 192.168.50.0/24; the LAN is `bridge` (192.168.88.1/24), in defconf's LAN list; ether1 is the WAN. */
function router(name: string, extra: Partial<RouterSeed> = {}): RouterSeed {
  return {
    name,
    version: '7.19.4',
    links: [{ name: 'ether1' }, { name: 'ether2', bridge: 'bridge' }, { name: 'bridge', type: 'bridge' }],
    interfaces: [{ name: 'wg0', listenPort: 13231 }],
    peers: [{ interface: 'wg0', allowedAddress: ['10.0.0.2/32', '192.168.50.0/24'], endpointAddress: '198.51.100.7', endpointPort: 13231 }],
    addresses: [
      { address: '203.0.113.2/30', interface: 'ether1' },
      { address: '192.168.88.1/24', interface: 'bridge' },
      { address: '10.0.0.1/24', interface: 'wg0' },
    ],
    routes: [
      { dstAddress: '0.0.0.0/0', gateway: '203.0.113.1' },
      { dstAddress: '192.168.50.0/24', gateway: 'wg0' },
    ],
    firewall: [
      { chain: 'input', action: 'accept', protocol: 'udp', dstPort: '13231' },
      { chain: 'input', action: 'drop', inInterfaceList: '!LAN' },
      { chain: 'forward', action: 'accept', inInterface: 'wg0' },
      { chain: 'forward', action: 'drop', inInterfaceList: 'LAN', srcAddress: '!192.168.88.0/24', comment: 'anti-spoofing' },
      { chain: 'forward', action: 'accept', srcAddress: '192.168.88.0/24', dstAddress: '192.168.50.0/24' },
      { chain: 'forward', action: 'drop' },
    ],
    ...extra,
  };
}

beforeAll(async () => {
  emulator = await startEmulator({
    routers: [
      router('lists'),
      router('no-members', { missingMenus: ['interface/list/member'] }),
      // A tunnel named outside ASCII, with no address: its fix names it as the UTF-8 bytes the router sends.
      router('umlaut', {
        interfaces: [{ name: 'wg-büro', listenPort: 13231 }],
        peers: [{ interface: 'wg-büro', allowedAddress: ['10.0.0.2/32'], endpointAddress: '198.51.100.7', endpointPort: 13231 }],
        addresses: [
          { address: '203.0.113.2/30', interface: 'ether1' },
          { address: '192.168.88.1/24', interface: 'bridge' },
        ],
        routes: [{ dstAddress: '0.0.0.0/0', gateway: '203.0.113.1' }],
      }),
    ],
    now: () => NOW,
    users: [{ name: 'monitor', password: PASSWORD, policies: ['read', 'api', 'rest-api'] }],
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await emulator.close();
});

async function audit(name: string, tunnel = 'wg0') {
  const client = new RouterOsClient({ url: emulator.router(name).url, username: 'monitor', password: new Secret(PASSWORD), timeoutMs: 5_000, tls: { ca: emulator.ca } });
  clients.push(client);
  const config = testRouter({ collectors: { wireguard_setup: true } });
  const [job] = wireguardSetupCollector.jobs(config);
  if (job === undefined) throw new Error('no job');
  const result = await job.run({ router: config, client, routerLabel: routerLabel(name), now: () => NOW, signal: new AbortController().signal, memory: new Map() });
  expect(result.problems).toEqual([]);
  const checks = result.data.interfaces.find((setup) => setup.interface === tunnel)?.checks ?? [];
  return { checks: Object.fromEntries(checks.map((check) => [check.check, check])), optionalReads: result.optionalReads };
}

describe('wireguard_setup against the emulator (HTTPS)', () => {
  it("reads defconf's lists and members: the anti-spoofing drop over LAN spares bridge's network, and every check passes", async () => {
    const { checks, optionalReads } = await audit('lists');
    expect(Object.values(checks).filter((check) => !check.ok)).toEqual([]);
    expect(optionalReads).toEqual([{ what: 'the interface lists (interface/list)' }, { what: "the interface lists' members (interface/list/member)" }]);
  });

  it("names a tunnel called `wg-büro` in its fix by the reply's own bytes (C3 BC), read over the wire", async () => {
    const { checks } = await audit('umlaut', 'wg-büro');
    expect(checks['address']?.ok).toBe(false);
    expect(checks['address']?.fix).toBe('/ip address add address=<tunnel-address>/<prefix-length> interface="wg-b\\C3\\BCro" comment="WireGuard wg-b\\C3\\BCro"');
  });

  it('without the member menu, judges lists by their names as before (the drop may meet the LAN), and says what it left out', async () => {
    const { checks, optionalReads } = await audit('no-members');
    expect(checks['firewall_forward']?.ok).toBe(false);
    expect(checks['firewall_forward']?.detail).toContain('to 192.168.50.0/24');
    expect(checks['firewall_input']?.ok).toBe(true);
    expect(optionalReads?.[1]).toMatchObject({ what: "the interface lists' members (interface/list/member)", failure: { cause: 'ROS_ERR_UNSUPPORTED' } });
  });
});
