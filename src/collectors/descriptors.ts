/**
 * The static half of the collector catalog: one descriptor per collector with what config needs to know of it
 * (its name, default on/off, default schedule, how its jobs are planned) and what /health needs (the parts of a
 * router its runs can change). Config derives its name list, defaults, schedule checks and key suggestions from
 * this list, so this file imports nothing: config must not reach collector code, which imports config back.
 * The runtime half (families, job factory, run deadline) is in catalog.ts, keyed by these names.
 */

/** The parts of /health a run can change (health/watch.ts re-evaluates only those after a run). */
export type HealthPart = 'wireguard' | 'setup' | 'pings';

export interface CollectorDescriptor {
  /** The key under `collectors:` and `schedules:` in the config, and the `collector` label. */
  readonly name: string;
  readonly description: string;
  readonly defaultEnabled: boolean;
  /** Six-field cron expression used when neither the router nor `defaults` sets `schedules.<name>`. */
  readonly defaultSchedule: string;
  /**
   * `router`: one job per router on `schedules.<name>` (config checks it against the router's timeout);
   * `targets`: one job per configured target, each with its own schedule and run time (config checks those).
   */
  readonly jobsPer: 'router' | 'targets';
  /** The /health parts a run of this collector can change. */
  readonly healthParts: readonly HealthPart[];
}

export const COLLECTOR_DESCRIPTORS = [
  {
    name: 'system',
    description: 'CPU, memory, disk, uptime and identity from system/resource',
    defaultEnabled: true,
    defaultSchedule: '*/15 * * * * *',
    jobsPer: 'router',
    healthParts: [],
  },
  {
    name: 'wireguard',
    description: 'WireGuard interfaces and peers: state, traffic counters, handshakes and peer health',
    defaultEnabled: true,
    defaultSchedule: '*/15 * * * * *',
    jobsPer: 'router',
    healthParts: ['wireguard'],
  },
  {
    name: 'wireguard_setup',
    description: 'Tunnel set-up audit: IP address, routes and firewall rules each WireGuard interface needs (read-only)',
    // Off by default: it needs read access to the firewall and routes, which some users do not grant.
    defaultEnabled: false,
    // It reads addresses, routes and firewall rules: heavier, and they rarely change.
    defaultSchedule: '0 */5 * * * *',
    jobsPer: 'router',
    // Set-up checks are skipped on disabled interfaces, which only the wireguard data tells.
    healthParts: ['wireguard', 'setup'],
  },
  {
    name: 'ping',
    description: 'Bounded pings run on the router (POST /ping) to configured targets',
    // On, but it only runs for routers with targets configured.
    defaultEnabled: true,
    defaultSchedule: '*/30 * * * * *',
    jobsPer: 'targets',
    healthParts: ['pings'],
  },
  {
    name: 'bandwidth_test',
    description: 'Bandwidth tests run on the router (POST /tool/bandwidth-test) to configured btest servers',
    defaultEnabled: true,
    defaultSchedule: '0 0 3 * * *',
    jobsPer: 'targets',
    healthParts: [],
  },
] as const satisfies readonly CollectorDescriptor[];

export type CollectorName = (typeof COLLECTOR_DESCRIPTORS)[number]['name'];

export const COLLECTOR_NAMES: readonly CollectorName[] = COLLECTOR_DESCRIPTORS.map((descriptor) => descriptor.name);

/** The descriptor of each collector by name. */
export const DESCRIPTOR: Readonly<Record<CollectorName, CollectorDescriptor>> = byCollector((descriptor) => descriptor);

/** `{ name: f(descriptor) }` for every collector, e.g. the default schedules. */
export function byCollector<T>(pick: (descriptor: CollectorDescriptor) => T): Record<CollectorName, T> {
  // Complete by construction: one key per descriptor of the list CollectorName is drawn from.
  return Object.fromEntries(COLLECTOR_DESCRIPTORS.map((descriptor) => [descriptor.name, pick(descriptor)])) as Record<CollectorName, T>;
}
