/**
 * Which interfaces the `interface` collector exports (config `interfaces:`). Pure, so the mapping and its tests
 * share it. Order of the rules: dynamic first (a per-user session must not slip in through a broad include),
 * then types, then names; an exclude always wins over an include.
 */
import type { InterfaceFilter } from '../config/interfaces.js';

export interface InterfaceIdentity {
  name: string;
  type: string;
  dynamic: boolean;
}

export function keepsInterface(filter: InterfaceFilter, iface: InterfaceIdentity): boolean {
  if (iface.dynamic && !filter.includeDynamic) return false;
  if (filter.includeTypes !== undefined && !filter.includeTypes.includes(iface.type)) return false;
  if (filter.excludeTypes.includes(iface.type)) return false;
  if (filter.includePattern !== undefined && !filter.includePattern.test(iface.name)) return false;
  if (filter.excludePattern?.test(iface.name) === true) return false;
  return true;
}
