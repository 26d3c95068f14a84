/** Small explicit routers for conformance tests: every menu populated, nothing random that matters. */
import type { RouterSeed } from '../../src/emulator/index.js';

export const PEER_KEY_A = 'eLZ/a6pCk1Ivmtn4bA6ifVuCRkbzeFDyK3tNhIDhEFQ=';
export const PEER_KEY_B = 'oVtE3cR+hRVZVxrTpSJ7C9jgXkMdJ/ImU3Zqn7WuxkU=';

export function seedRouter(name: string, version = '7.19.4', extra: Partial<RouterSeed> = {}): RouterSeed {
  const named = Number(version.split('.')[1]) >= 15;
  return {
    name,
    version,
    interfaces: [
      { name: 'wg0', listenPort: 13231 },
      { name: 'wg1', listenPort: 51820, mtu: 1400, comment: 'second' },
    ],
    peers: [
      { interface: 'wg0', publicKey: PEER_KEY_A, ...(named ? { name: 'alpha' } : {}), allowedAddress: ['10.0.0.2/32', '192.168.50.0/24'], endpointAddress: '198.51.100.7', endpointPort: 13231, persistentKeepalive: 25, comment: 'alpha "site"' },
      { interface: 'wg1', publicKey: PEER_KEY_B, ...(named ? { name: 'beta' } : {}), allowedAddress: ['10.1.0.2/32'], life: 'never' },
    ],
    addresses: [
      { address: '192.168.88.1/24', interface: 'ether2' },
      { address: '10.0.0.1/24', interface: 'wg0' },
    ],
    routes: [{ dstAddress: '192.168.50.0/24', gateway: 'wg0' }],
    firewall: [
      { chain: 'input', action: 'accept', protocol: 'udp', dstPort: '13231' },
      { chain: 'input', action: 'drop', inInterfaceList: '!LAN' },
    ],
    ping: { '10.0.0.2': { kind: 'reachable', rttMs: 5 } },
    ...extra,
  };
}
