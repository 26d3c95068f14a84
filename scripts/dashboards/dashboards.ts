/**
 * The shipped dashboards, and their committed form: one JSON file per dashboard, named after its uid.
 */
import { capacityDashboard } from './capacity.js';
import { fleetDashboard } from './fleet.js';
import type { Dashboard } from './types.js';
import { wireguardDashboard } from './wireguard.js';

/** Where the generated dashboards live, relative to the repository root. */
export const DASHBOARD_DIR = 'grafana/dashboards';

export function allDashboards(): Dashboard[] {
  return [fleetDashboard(), wireguardDashboard(), capacityDashboard()];
}

/** The exact text committed for a dashboard: two-space JSON and a final newline. */
export function renderDashboard(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

/** Repository-relative path → file content, for every generated dashboard. */
export function renderedDashboards(): Map<string, string> {
  return new Map(allDashboards().map((d) => [`${DASHBOARD_DIR}/${d.uid}.json`, renderDashboard(d)]));
}
