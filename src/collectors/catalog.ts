/**
 * The collector catalog: one entry per collector, keyed by name. Each entry is the collector's descriptor
 * (descriptors.ts: name, description, default on/off and schedule, what /health it feeds) spread into its
 * runtime half (its job factory, each job with its run deadline). Config, the scheduler and /health derive
 * names, defaults, schedules, deadlines, job ids and the type of each collector's data from here.
 */
import type { RouterConfig } from '../config/types.js';
import type { JobSnapshot } from '../metrics/store.js';
import { COLLECTOR_NAMES, type CollectorName } from './descriptors.js';
import type { Collector, JobDefinition } from './types.js';
import { systemCollector } from './system.js';
import { interfaceCollector } from './interface.js';
import { wireguardCollector } from './wireguard.js';
import { wireguardSetupCollector } from './wireguard-setup.js';
import { pingCollector } from './ping.js';
import { bandwidthTestCollector } from './bandwidth-test.js';
import { systemHealthCollector } from './system-health.js';
import { firmwareCollector } from './firmware.js';

/** A Record over every name: the compiler refuses a descriptor without its collector here. */
export const CATALOG = {
  system: systemCollector,
  interface: interfaceCollector,
  wireguard: wireguardCollector,
  wireguard_setup: wireguardSetupCollector,
  ping: pingCollector,
  bandwidth_test: bandwidthTestCollector,
  health: systemHealthCollector,
  firmware: firmwareCollector,
} as const satisfies { readonly [Name in CollectorName]: Collector<unknown, Name> };

/** What each collector's runs leave in the store for /health, by collector name. */
export type CollectorData = { [Name in CollectorName]: (typeof CATALOG)[Name] extends Collector<infer Data, Name> ? Data : never };

/** The collectors in catalog order. */
export function collectors(): Collector[] {
  return COLLECTOR_NAMES.map((name) => CATALOG[name]);
}

/** Every job a router runs, from the collectors its config enables. */
export function jobsFor(router: RouterConfig): JobDefinition[] {
  return collectors()
    .filter((collector) => router.collectors[collector.name])
    .flatMap((collector) => collector.jobs(router));
}

/** The jobs of one collector for a router, typed by its data (the job ids /health looks its snapshots up by). */
export function jobsOf<Name extends CollectorName>(name: Name, router: RouterConfig): JobDefinition<CollectorData[Name]>[] {
  return (CATALOG[name] as Collector<CollectorData[Name]>).jobs(router);
}

/**
 * A snapshot's data as its collector's type. The one cast: the store keeps what the job of `snapshot.collector`
 * returned, and a successful run always returns its data; anything else is undefined.
 */
export function dataOf<Name extends CollectorName>(snapshot: JobSnapshot | undefined, name: Name): CollectorData[Name] | undefined {
  if (snapshot === undefined || snapshot.collector !== name || !snapshot.ok) return undefined;
  return snapshot.data as CollectorData[Name];
}
