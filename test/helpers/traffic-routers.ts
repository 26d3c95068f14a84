/**
 * Emulated routers whose WireGuard peers need check's later looks (src/cli/check.ts), shared by the check tests:
 * each a site link that sends handshake initiations, dead or answered by a far end that keeps trying too.
 */
import type { RouterSeed } from '../../src/emulator/index.js';

/** A site link with an endpoint and no keepalive: what this side sends depends on traffic alone. */
const SITE_LINK = { interface: 'wg-sites', allowedAddress: ['10.10.0.9/32'], endpointAddress: '198.51.100.99', endpointPort: 13231, persistentKeepalive: 0 };

/**
 * A healthy site link idle an hour that this side wakes `afterSeconds` after the emulator's start (a handshake
 * initiation), `lostResponses` of its responses lost (each a retry 5 s later): the router `name`.
 */
export function wokenSiteRouter(name: string, afterSeconds: number, lostResponses: number): RouterSeed {
  return {
    name,
    interfaces: [{ name: 'wg-sites' }],
    peers: [{ ...SITE_LINK, name: 'site-woken', life: 'stale', staleForSeconds: 3_600, wake: { afterSeconds, lostResponses } }],
  };
}

export const TRAFFIC_ROUTERS = {
  /** This side keeps sending handshake initiations to a far end that is gone an hour (a second look). */
  hub: { name: 'hub', interfaces: [{ name: 'wg-sites' }], peers: [{ ...SITE_LINK, name: 'site-dead', life: 'stale', staleForSeconds: 3_600 }] },
  /** Both sides keep trying, no handshake ever completes: the far end's initiations make rx grow too (a third look). */
  both: { name: 'both', interfaces: [{ name: 'wg-sites' }], peers: [{ ...SITE_LINK, name: 'site-one-way', life: 'never', idleRxRate: 30 }] },
  /** A dead site link this side keeps trying and, on another interface, a link both sides keep trying. */
  mixed: {
    name: 'mixed',
    interfaces: [{ name: 'wg-sites' }, { name: 'wg-lab' }],
    peers: [
      { ...SITE_LINK, name: 'site-dead', life: 'stale', staleForSeconds: 3_600 },
      { ...SITE_LINK, interface: 'wg-lab', allowedAddress: ['10.11.0.9/32'], name: 'lab-one-way', life: 'never', idleRxRate: 30 },
    ],
  },
} satisfies Record<string, RouterSeed>;
