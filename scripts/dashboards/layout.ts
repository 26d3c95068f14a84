/**
 * Turns sections of panel rows into a dashboard: each section gets a Grafana row header, each row of panels is
 * laid left to right on the 24-column grid, and rows stack downwards, so positions never overlap by construction.
 */
import { toTargets, type PanelSpec } from './panels.js';
import {
  DATASOURCE_REF,
  SCHEMA_VERSION,
  type Dashboard,
  type DashboardLink,
  type DataPanel,
  type Panel,
  type Variable,
} from './types.js';

export const GRID_WIDTH = 24;

export interface Section {
  title: string;
  rows: PanelSpec[][];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  tags: string[];
  time: { from: string; to: string };
  refresh: string;
  variables: Variable[];
  links: DashboardLink[];
  sections: Section[];
}

function toPanel(spec: PanelSpec, id: number, x: number, y: number): DataPanel {
  const panel: DataPanel = {
    id,
    type: spec.type,
    title: spec.title,
    description: spec.description,
    gridPos: { x, y, w: spec.width, h: spec.height },
    datasource: DATASOURCE_REF,
    targets: toTargets(spec.queries),
    fieldConfig: {
      defaults: {
        unit: spec.unit,
        ...(spec.decimals === undefined ? {} : { decimals: spec.decimals }),
        ...(spec.min === undefined ? {} : { min: spec.min }),
        ...(spec.max === undefined ? {} : { max: spec.max }),
        thresholds: { mode: 'absolute', steps: spec.thresholds ?? [{ color: 'green', value: null }] },
        mappings: spec.mappings ?? [],
        color: { mode: spec.colorMode ?? (spec.thresholds === undefined ? 'palette-classic' : 'thresholds') },
        ...(spec.custom === undefined ? {} : { custom: spec.custom }),
      },
      overrides: spec.overrides ?? [],
    },
    options: spec.options ?? {},
  };
  if (spec.transformations !== undefined) panel.transformations = spec.transformations;
  return panel;
}

/** Places every section's header and panels; throws when a row is wider than the grid. */
export function layout(sections: Section[]): Panel[] {
  const panels: Panel[] = [];
  let y = 0;
  for (const section of sections) {
    panels.push({
      id: panels.length + 1,
      type: 'row',
      title: section.title,
      collapsed: false,
      gridPos: { x: 0, y, w: GRID_WIDTH, h: 1 },
      panels: [],
    });
    y += 1;
    for (const row of section.rows) {
      const width = row.reduce((sum, spec) => sum + spec.width, 0);
      if (width > GRID_WIDTH) throw new Error(`${section.title}: a row is ${width} columns wide`);
      let x = 0;
      for (const spec of row) {
        panels.push(toPanel(spec, panels.length + 1, x, y));
        x += spec.width;
      }
      y += Math.max(0, ...row.map((spec) => spec.height));
    }
  }
  return panels;
}

/** A link to another of the shipped dashboards that carries the time range and the variables over. */
export function linkTo(uid: string, title: string): DashboardLink {
  return {
    type: 'link',
    title,
    url: `/d/${uid}`,
    icon: 'dashboard',
    tooltip: `Open ${title}`,
    includeVars: true,
    keepTime: true,
    asDropdown: false,
    targetBlank: false,
    tags: [],
  };
}

export function dashboard(spec: DashboardSpec): Dashboard {
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: spec.tags,
    schemaVersion: SCHEMA_VERSION,
    version: 1,
    editable: false,
    graphTooltip: 1,
    timezone: 'browser',
    refresh: spec.refresh,
    time: spec.time,
    timepicker: {},
    fiscalYearStartMonth: 0,
    liveNow: false,
    weekStart: '',
    links: spec.links,
    annotations: { list: [] },
    templating: { list: spec.variables },
    panels: layout(spec.sections),
  };
}
