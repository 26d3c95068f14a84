/**
 * The dashboards as committed in grafana/dashboards (what Grafana loads), for the lint tests; and promtool,
 * which CI installs (scripts/ensure-prometheus.sh) and tests use when it is there.
 */
import { spawnSync } from 'node:child_process';
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

/** True when promtool can run here; CI always has it, so a test gated on this still runs there. */
/** Runs promtool; `ok` is its exit status 0, `output` its stdout and stderr for the failure message. */
export function promtool(...args: string[]): { ok: boolean; output: string } {
  const result = spawnSync('promtool', args, { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}\n${result.stderr ?? ''}${result.error?.message ?? ''}` };
}
