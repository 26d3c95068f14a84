/**
 * The scale scenario: N routers × `interfaces` wg interfaces × `peers` peers (spread round-robin),
 * every interface passing the set-up audit, two ping targets each, versions cycling 7.16 … 7.23.
 * Peers are /32 road-warriors; a few per router are never-connected, stale, going stale or disabled.
 * Besides the tunnels, each router has only `lo` (7.18+), a WAN `ether1` with steady traffic and a
 * LAN `ether2`: interface counters are computed on request, so they cost nothing between scrapes.
 */
import type { PeerLife, PeerSeed, RouterSeed, WgInterfaceSeed } from '../types.js';
import { defaultFirewall } from './firewall.js';

export interface ScaleShape {
  routers: number;
  interfaces: number;
  peers: number;
}

export const DEFAULT_SCALE: ScaleShape = { routers: 100, interfaces: 4, peers: 1000 };

const VERSIONS = ['7.16', '7.17', '7.18', '7.19.4', '7.20.5', '7.21', '7.22', '7.23'];

export function scaleRouterName(i: number): string {
  return `scale-${String(i + 1).padStart(3, '0')}`;
}

function life(k: number): PeerLife {
  if (k === 3) return 'going-stale';
  if (k % 97 === 5) return 'stale';
  if (k % 50 === 7) return 'never';
  return 'live';
}

export function scaleScenario(shape: ScaleShape): RouterSeed[] {
  const nIf = Math.max(1, shape.interfaces);
  const routers: RouterSeed[] = [];
  for (let r = 0; r < shape.routers; r++) {
    const interfaces: WgInterfaceSeed[] = [];
    for (let j = 0; j < nIf; j++) interfaces.push({ name: `wg${j}`, listenPort: 13231 + j });
    const peers: PeerSeed[] = [];
    for (let k = 0; k < shape.peers; k++) {
      const j = k % nIf;
      const host = Math.floor(k / nIf);
      peers.push({
        interface: `wg${j}`,
        allowedAddress: [`10.${100 + j}.${Math.floor(host / 250)}.${(host % 250) + 2}/32`],
        life: life(k),
        disabled: k % 40 === 9,
        ...(k % 3 === 0 ? { comment: `peer ${k} of ${scaleRouterName(r)}` } : {}),
      });
    }
    routers.push({
      name: scaleRouterName(r),
      version: VERSIONS[r % VERSIONS.length] ?? '7.19.4',
      ethernet: [],
      links: [
        { name: 'ether1', comment: 'WAN', rxRate: 400_000 + r * 1_000, txRate: 150_000 + r * 500 },
        { name: 'ether2', rxRate: 100_000, txRate: 350_000 },
      ],
      interfaces,
      peers,
      addresses: [
        { address: '192.168.88.1/24', interface: 'ether2' },
        ...interfaces.map((_, j) => ({ address: `10.${100 + j}.0.1/16`, interface: `wg${j}` })),
      ],
      firewall: defaultFirewall({ wgPorts: interfaces.map((i) => i.listenPort ?? 13231), forwardPairs: [] }),
      ping: {
        '10.100.0.2': { kind: 'reachable', rttMs: 8 },
        '10.100.0.3': { kind: 'lossy', rttMs: 25, loss: 0.25 },
      },
    });
  }
  return routers;
}
