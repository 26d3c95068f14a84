/**
 * The exported list of dashboard queries (other suites run them against a real Prometheus), and their
 * validity as PromQL, checked by promtool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  allDashboardQueries,
  allVariableSelectors,
  substituteTemplateVariables,
} from '../../scripts/dashboards/queries.js';
import { dataPanels, promtool, shippedDashboards } from './shipped.js';

const queries = allDashboardQueries();

describe('allDashboardQueries', () => {
  it('lists every target of every shipped panel, substituted', () => {
    const targets = shippedDashboards().flatMap(({ dashboard }) =>
      dataPanels(dashboard).flatMap((p) => p.targets.map((t) => `${dashboard.uid}|${p.title}|${t.refId}|${t.expr}`)),
    );
    expect(queries.map((q) => `${q.dashboard}|${q.panel}|${q.refId}|${q.rawExpr}`).sort()).toEqual(targets.sort());
    expect(queries.length).toBeGreaterThan(50);
    for (const q of queries) expect(q.expr, q.rawExpr).not.toMatch(/\$[A-Za-z_{]/);
  });

  it('substitutes selections with .* and Grafana intervals with fixed durations', () => {
    expect(substituteTemplateVariables('rate(x{router=~"$router", name=~"${peer}"}[$__rate_interval])')).toBe(
      'rate(x{router=~".*", name=~".*"}[1m])',
    );
    expect(substituteTemplateVariables('max_over_time(y[$__range:5m])')).toBe('max_over_time(y[1h:5m])');
    expect(() => substituteTemplateVariables('x{a=~"$unknown"}')).toThrow(/unknown template variable/);
    const replace = 'label_replace(x{router=~"$router"}, "peer", "$1", "name", "(.+)")';
    expect(substituteTemplateVariables(replace)).toBe('label_replace(x{router=~".*"}, "peer", "$1", "name", "(.+)")');
  });

  it('reads the selector of every label_values variable', () => {
    const selectors = allVariableSelectors();
    expect(selectors).toContainEqual({ dashboard: 'routeros-fleet', variable: 'router', expr: 'routeros_up' });
    expect(selectors.map((s) => `${s.dashboard}/${s.variable}`).sort()).toEqual([
      'routeros-capacity/interface',
      'routeros-capacity/peer',
      'routeros-capacity/router',
      'routeros-capacity/uplink',
      'routeros-fleet/job',
      'routeros-fleet/router',
      'routeros-wireguard/interface',
      'routeros-wireguard/peer',
      'routeros-wireguard/router',
    ]);
  });
});

describe('PromQL validity', () => {
  it('every query and variable selector parses (promtool)', () => {
    const exprs = [...queries.map((q) => q.expr), ...allVariableSelectors().map((v) => v.expr)];
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-promql-'));
    try {
      const file = join(dir, 'rules.yml');
      const rules = exprs.map((expr, i) => ({ record: `dashboard:query:${i}`, expr }));
      writeFileSync(file, stringify({ groups: [{ name: 'dashboards', rules }] }));
      const result = promtool('check', 'rules', file);
      expect(result.ok, result.output).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
