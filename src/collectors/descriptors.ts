/**
 * The static half of the collector catalog: every collector's contract (descriptor and families), in catalog
 * order. Config derives its name list, defaults, schedule checks and key suggestions from this list and metrics
 * its family list; neither imports collector code. The runtime half (job factories, run deadlines) is catalog.ts.
 */
import type { CollectorDescriptor } from './contract.js';
import { SYSTEM } from './system.contract.js';
import { INTERFACE } from './interface.contract.js';
import { WIREGUARD } from './wireguard.contract.js';
import { WIREGUARD_SETUP } from './wireguard-setup.contract.js';
import { PING } from './ping.contract.js';
import { BANDWIDTH_TEST } from './bandwidth-test.contract.js';
import { SYSTEM_HEALTH } from './system-health.contract.js';
import { FIRMWARE } from './firmware.contract.js';

export type { CollectorDescriptor, HealthPart } from './contract.js';

export const COLLECTOR_DESCRIPTORS = [SYSTEM, INTERFACE, WIREGUARD, WIREGUARD_SETUP, PING, BANDWIDTH_TEST, SYSTEM_HEALTH, FIRMWARE] as const;

export type CollectorName = (typeof COLLECTOR_DESCRIPTORS)[number]['name'];

export const COLLECTOR_NAMES: readonly CollectorName[] = COLLECTOR_DESCRIPTORS.map((descriptor) => descriptor.name);

/** `{ name: f(descriptor) }` for every collector, e.g. the default schedules. */
export function byCollector<T>(pick: (descriptor: CollectorDescriptor) => T): Record<CollectorName, T> {
  // Complete by construction: one key per descriptor of the list CollectorName is drawn from.
  return Object.fromEntries(COLLECTOR_DESCRIPTORS.map((descriptor) => [descriptor.name, pick(descriptor)])) as Record<CollectorName, T>;
}
