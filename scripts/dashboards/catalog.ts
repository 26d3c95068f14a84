/**
 * The shipped dashboards by uid and title, and the links between them (each dashboard links to the others).
 */
import { linkTo } from './layout.js';
import type { DashboardLink } from './types.js';

export const FLEET = { uid: 'routeros-fleet', title: 'RouterOS / Fleet overview' } as const;
export const WIREGUARD = { uid: 'routeros-wireguard', title: 'RouterOS / WireGuard tunnels' } as const;
export const CAPACITY = { uid: 'routeros-capacity', title: 'RouterOS / Capacity' } as const;

const ALL = [FLEET, WIREGUARD, CAPACITY];

/** Tags every shipped dashboard carries, so Grafana's dashboard list can filter on them. */
export const COMMON_TAGS = ['routeros', 'mikrotik', 'routeros-exporter'];

export function linksFrom(uid: string): DashboardLink[] {
  return ALL.filter((d) => d.uid !== uid).map((d) => linkTo(d.uid, d.title));
}
