/**
 * The router the set-up audit's local-side tests judge: wg0 routes a branch's 192.168.20.0/24, the LAN is on bridge
 * and ether2, the WAN on ether1; a test gives the filter rules (and, where it needs, other routes).
 */
import type { SetupRecords } from '../../src/analysis/setup-audit.js';
import type { RouterRecord } from '../../src/routeros/records.js';

/** wg0 routes 192.168.20.0/24; bridge has 192.168.88.1/24, ether2 192.168.99.1/24, ether1 the WAN's address. */
export const ADDRESSES: RouterRecord[] = [
  { '.id': '*1', address: '10.99.0.1/24', interface: 'wg0', disabled: 'false' },
  { '.id': '*2', address: '192.168.88.1/24', interface: 'bridge', disabled: 'false' },
  { '.id': '*3', address: '192.168.99.1/24', interface: 'ether2', disabled: 'false' },
  { '.id': '*4', address: '203.0.113.2/30', interface: 'ether1', disabled: 'false' },
];
export const ROUTES: RouterRecord[] = [
  { '.id': '*5', 'dst-address': '192.168.20.0/24', gateway: 'wg0', disabled: 'false' },
  { '.id': '*6', 'dst-address': '0.0.0.0/0', gateway: '203.0.113.1', disabled: 'false' },
];

export function setup(filter: Record<string, string>[], routes: RouterRecord[] = ROUTES): SetupRecords {
  return {
    interfaces: [{ '.id': '*9', name: 'wg0', 'listen-port': '13231', disabled: 'false' }],
    peers: [{ '.id': '*1', interface: 'wg0', 'allowed-address': '10.99.0.2/32,192.168.20.0/24', disabled: 'false', name: 'branch' }],
    addresses: ADDRESSES,
    routes,
    filter: filter.map((rule, index) => ({ '.id': `*${index + 1}`, disabled: 'false', ...rule })),
  };
}
