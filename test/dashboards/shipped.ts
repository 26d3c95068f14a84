/**
 * The dashboards as committed in grafana/dashboards (what Grafana loads), for the lint tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dashboard, DataPanel } from '../../scripts/dashboards/types.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dashboardDir = join(repoRoot, 'grafana', 'dashboards');

export interface ShippedDashboard {
  file: string;
  text: string;
  dashboard: Dashboard;
}

export function shippedDashboards(): ShippedDashboard[] {
  return readdirSync(dashboardDir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dashboardDir, file), 'utf8');
      const dashboard = JSON.parse(text) as Dashboard;
      return { file, text, dashboard };
    });
}

export function dataPanels(dashboard: Dashboard): DataPanel[] {
  return dashboard.panels.filter((panel): panel is DataPanel => panel.type !== 'row');
}
