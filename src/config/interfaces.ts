/**
 * The `interfaces:` settings: which interfaces the `interface` collector exports. Cardinality is the user's to
 * bound: every included interface costs a dozen series, and a PPPoE/L2TP/SSTP/OVPN server makes one dynamic
 * interface per connected user (`<pppoe-alice>`), which come and go. So dynamic interfaces are left out unless
 * asked for, and names and types can be included or excluded. Patterns match the whole name, in linear time
 * (src/util/pattern.ts), like `health.exclude_peer_pattern`.
 */
import { readBoolean, readMap, readPattern, readStringList, type RawMap } from './fields.js';
import { joinPath, type Problems } from './problems.js';
import type { PeerPattern } from '../util/pattern.js';
import { pick, readSlot, type Slot } from './slot.js';

export const INTERFACE_KEYS = ['include_pattern', 'exclude_pattern', 'include_types', 'exclude_types', 'include_dynamic'] as const;

/** What decides whether an interface is exported (resolved; RouterConfig.interfaces). */
export interface InterfaceFilter {
  /** Only names matching this (whole name), when set. */
  includePattern?: PeerPattern;
  /** Names matching this are left out. */
  excludePattern?: PeerPattern;
  /** Only these types (`ether`, `vlan`, `wg`, …), when set. */
  includeTypes?: string[];
  /** These types are left out. */
  excludeTypes: string[];
  /** Dynamic interfaces (`dynamic=true`: per-user server sessions and the like); off by default. */
  includeDynamic: boolean;
}

export interface InterfaceLayer {
  includePattern: Slot<PeerPattern>;
  excludePattern: Slot<PeerPattern>;
  includeTypes: Slot<string[]>;
  excludeTypes: Slot<string[]>;
  includeDynamic: Slot<boolean>;
}

export function readInterfaceLayer(map: RawMap, base: string, problems: Problems): InterfaceLayer {
  const path = joinPath(base, 'interfaces');
  const own = readMap(map.interfaces ?? null, path, problems, INTERFACE_KEYS) ?? {};
  return {
    includePattern: readSlot(own, 'include_pattern', path, problems, readPattern),
    excludePattern: readSlot(own, 'exclude_pattern', path, problems, readPattern),
    includeTypes: readSlot(own, 'include_types', path, problems, readStringList),
    excludeTypes: readSlot(own, 'exclude_types', path, problems, readStringList),
    includeDynamic: readSlot(own, 'include_dynamic', path, problems, readBoolean),
  };
}

/** Key by key, like `health:`: a router that sets `exclude_pattern` keeps the defaults' `include_types`. */
export function mergeInterfaceLayers(defaults: InterfaceLayer, router: InterfaceLayer): InterfaceLayer {
  return {
    includePattern: pick(router.includePattern, defaults.includePattern),
    excludePattern: pick(router.excludePattern, defaults.excludePattern),
    includeTypes: pick(router.includeTypes, defaults.includeTypes),
    excludeTypes: pick(router.excludeTypes, defaults.excludeTypes),
    includeDynamic: pick(router.includeDynamic, defaults.includeDynamic),
  };
}

export function resolveInterfaceFilter(layer: InterfaceLayer): InterfaceFilter {
  // Copies: routers sharing the defaults' lists must not share one mutable array.
  const filter: InterfaceFilter = {
    excludeTypes: [...(layer.excludeTypes?.value ?? [])],
    includeDynamic: layer.includeDynamic?.value ?? false,
  };
  if (layer.includePattern) filter.includePattern = layer.includePattern.value;
  if (layer.excludePattern) filter.excludePattern = layer.excludePattern.value;
  if (layer.includeTypes) filter.includeTypes = [...layer.includeTypes.value];
  return filter;
}
