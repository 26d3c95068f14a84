/**
 * House rules for the shipped dashboards (STYLE.md rule 12, after grafana/dashboard-linter): templated data
 * source everywhere, selection variables used, units, descriptions, stable uids, pinned schema, no overlaps, links.
 */
import { describe, expect, it } from 'vitest';
import { callArguments, isBalanced, rangeSelectors } from '../../scripts/dashboards/promql.js';
import type { GridPos, QueryVariable } from '../../scripts/dashboards/types.js';
import { ERROR_REASONS } from '../../src/routeros/errors.js';
import { dataPanels, shippedDashboards } from './shipped.js';

const EXPECTED_UIDS = ['routeros-capacity', 'routeros-fleet', 'routeros-wireguard'];
/** Grafana unit ids (packages/grafana-data/src/valueFormats/categories.ts) that these dashboards may use. */
const KNOWN_UNITS = new Set([
  'none', 'short', 'percentunit', 'bytes', 'bps', 's', 'dtdurations', 'dateTimeAsIso', 'dateTimeFromNow', 'hertz',
  // Hardware health: temperature °C, revolutions per minute, volts, amperes, watts.
  'celsius', 'rotrpm', 'volt', 'amp', 'watt',
  // Interface packets, errors and drops per second.
  'pps',
  // A tunnel probe answered or not.
  'bool_yes_no',
]);
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const INSTANT_PANELS = new Set(['stat', 'bargauge', 'table', 'gauge']);

const dashboards = shippedDashboards();

function overlaps(a: GridPos, b: GridPos): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

it('ships exactly the three dashboards, each in a file named after its uid', () => {
  expect(dashboards.map((d) => d.dashboard.uid)).toEqual(EXPECTED_UIDS);
  for (const { file, dashboard } of dashboards) expect(file).toBe(`${dashboard.uid}.json`);
});

describe.each(dashboards.map((d) => [d.dashboard.uid, d] as const))('%s', (_uid, { text, dashboard }) => {
  const panels = dataPanels(dashboard);
  const variables = dashboard.templating.list;
  const queryVariables = variables.filter((v): v is QueryVariable => v.type === 'query');
  const exprs = panels.flatMap((p) => p.targets.map((t) => t.expr));

  it('is provisioning-ready: stable uid, pinned schema, read-only, no import-time inputs', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.editable).toBe(false);
    expect(text).not.toContain('DS_PROMETHEUS');
    expect(text).not.toContain('__inputs');
    expect(text).not.toContain('__requires');
    expect(dashboard.title).toMatch(/^RouterOS \/ /);
    expect(dashboard.description.length).toBeGreaterThan(20);
    expect(dashboard.tags).toContain('routeros');
  });

  it('has exactly one data source variable, named datasource, of type prometheus', () => {
    const sources = variables.filter((v) => v.type === 'datasource');
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({ name: 'datasource', query: 'prometheus' });
  });

  it('has router selection variables from label_values, multi-select with All, refreshed on time change', () => {
    expect(queryVariables.map((v) => v.name)).toContain('router');
    for (const v of queryVariables) {
      expect(v.datasource, v.name).toEqual(DATASOURCE);
      expect(v.query.query, v.name).toMatch(/^label_values\(.+, \w+\)$/);
      expect(v.definition, v.name).toBe(v.query.query);
      expect(v, v.name).toMatchObject({ multi: true, includeAll: true, allValue: '.*', refresh: 2 });
    }
  });

  it('uses every selection variable in panel queries and no undefined one', () => {
    for (const v of queryVariables) expect(exprs.some((e) => e.includes(`$${v.name}`)), v.name).toBe(true);
    const defined = new Set(variables.map((v) => v.name));
    for (const expr of exprs) {
      for (const [, name] of expr.matchAll(/\$\{?([A-Za-z_]\w*)/g)) {
        if (name?.startsWith('__') === true) expect(['__rate_interval', '__range', '__interval']).toContain(name);
        else expect(defined.has(name ?? ''), `${name} in ${expr}`).toBe(true);
      }
    }
  });

  it('filters every router series by $router, and tunnel series by $interface and $peer where it has them', () => {
    const names = new Set(variables.map((v) => v.name));
    for (const expr of exprs) {
      for (const m of expr.matchAll(/(?<![\w:])(routeros_(?!exporter_)\w+)(\{[^}]*\})?/g)) {
        const [, metric = '', matchers = ''] = m;
        expect(matchers, `${metric} in ${expr}`).toContain('router=~"$router"');
        if (names.has('interface') && metric.startsWith('routeros_wireguard_')) {
          expect(matchers, `${metric} in ${expr}`).toContain('interface=~"$interface"');
        }
        if (names.has('peer') && metric.startsWith('routeros_wireguard_peer_')) {
          expect(matchers, `${metric} in ${expr}`).toContain('name=~"$peer"');
        }
      }
    }
  });

  it('uses $__rate_interval as the range of every rate(), irate() and increase(), in balanced queries', () => {
    for (const expr of exprs) {
      expect(isBalanced(expr), expr).toBe(true);
      for (const fn of ['rate', 'irate', 'increase']) {
        for (const args of callArguments(expr, fn)) expect(rangeSelectors(args), expr).toEqual(['$__rate_interval']);
      }
    }
    expect(exprs.some((e) => e.includes('[$__rate_interval]'))).toBe(true);
  });

  it('points every panel and every target at the datasource variable', () => {
    expect(panels.length).toBeGreaterThan(5);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual(DATASOURCE);
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) expect(target.datasource, panel.title).toEqual(DATASOURCE);
    }
  });

  it('gives every panel a unique title, a description and a known unit', () => {
    const titles = panels.map((p) => p.title);
    expect(new Set(titles).size).toBe(titles.length);
    for (const panel of panels) {
      expect(panel.description.length, panel.title).toBeGreaterThan(15);
      expect(KNOWN_UNITS.has(panel.fieldConfig.defaults.unit), `${panel.title}: ${panel.fieldConfig.defaults.unit}`).toBe(
        true,
      );
      for (const o of panel.fieldConfig.overrides) {
        for (const p of o.properties.filter((p) => p.id === 'unit')) {
          expect(KNOWN_UNITS.has(String(p.value)), `${panel.title}: ${String(p.value)}`).toBe(true);
        }
      }
      expect(panel.fieldConfig.defaults.thresholds.steps[0]?.value, panel.title).toBeNull();
    }
  });

  it('never colours a disabled flag green when set, nor red when clear', () => {
    for (const panel of panels) {
      for (const o of panel.fieldConfig.overrides) {
        const field = String(o.matcher.options);
        if (!/disabled/i.test(field)) continue;
        for (const p of o.properties.filter((p) => p.id === 'mappings')) {
          for (const mapping of p.value as { options?: Record<string, { color?: string }> }[]) {
            expect(mapping.options?.['1']?.color, `${panel.title}: ${field}`).not.toBe('green');
            expect(mapping.options?.['0']?.color, `${panel.title}: ${field}`).not.toBe('red');
          }
        }
      }
    }
  });

  it('runs latest-value panels as instant queries and graphs as range queries, with unique refIds', () => {
    for (const panel of panels) {
      const refIds = panel.targets.map((t) => t.refId);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
      for (const target of panel.targets) {
        expect(target.instant === true, `${panel.title} ${target.refId}`).toBe(INSTANT_PANELS.has(panel.type));
      }
    }
  });

  it('lays panels on the 24-column grid without overlaps, with unique ids', () => {
    const all = dashboard.panels;
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    for (const { gridPos: g, title } of all) {
      expect(g.x >= 0 && g.y >= 0 && g.w > 0 && g.h > 0 && g.x + g.w <= 24, title).toBe(true);
    }
    for (const [i, a] of all.entries()) {
      for (const b of all.slice(i + 1)) expect(overlaps(a.gridPos, b.gridPos), `${a.title} / ${b.title}`).toBe(false);
    }
  });

  it('links to the two other dashboards, keeping time range and variables', () => {
    const others = EXPECTED_UIDS.filter((uid) => uid !== dashboard.uid);
    expect(dashboard.links.map((l) => l.url).sort()).toEqual(others.map((uid) => `/d/${uid}`));
    for (const link of dashboard.links) expect(link).toMatchObject({ includeVars: true, keepTime: true });
  });
});

it('names every collector error reason where a panel lists them (redirect was missing)', () => {
  const listing = dashboards.flatMap(({ dashboard }) => dataPanels(dashboard)).filter((panel) => /collector runs per second by reason: /.test(panel.description ?? ''));
  expect(listing.length).toBeGreaterThan(0);
  for (const panel of listing) for (const reason of ERROR_REASONS) expect(panel.description, panel.title).toMatch(new RegExp(`\\b${reason}\\b`));
});
