/** Collectors registered by name, each with its default on/off state (node_exporter's registerCollector idea). */
import type { CollectorName, RouterConfig } from '../config/types.js';
import type { Collector, JobDefinition } from './types.js';
import { systemCollector } from './system.js';
import { wireguardCollector } from './wireguard.js';
import { wireguardSetupCollector } from './wireguard-setup.js';
import { pingCollector } from './ping.js';
import { bandwidthTestCollector } from './bandwidth-test.js';

const registry = new Map<CollectorName, Collector>();

export function registerCollector(collector: Collector): void {
  if (registry.has(collector.name)) throw new Error(`collector ${collector.name} registered twice`);
  registry.set(collector.name, collector);
}

export function collectors(): Collector[] {
  return [...registry.values()];
}

/** Every job a router runs, from the collectors its config enables. */
export function jobsFor(router: RouterConfig): JobDefinition[] {
  return collectors()
    .filter((collector) => router.collectors[collector.name] ?? collector.defaultEnabled)
    .flatMap((collector) => collector.jobs(router));
}

registerCollector(systemCollector);
registerCollector(wireguardCollector);
registerCollector(wireguardSetupCollector);
registerCollector(pingCollector);
registerCollector(bandwidthTestCollector);
