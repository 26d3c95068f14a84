/**
 * Turns sections of panel rows into a dashboard: each section gets a Grafana row header, each row of panels is
 * laid left to right on the 24-column grid, and rows stack downwards, so positions never overlap by construction.
 */
import type { PanelSpec } from './panels.js';
import { SCHEMA_VERSION, type Dashboard, type DashboardLink, type Panel, type Variable } from './types.js';

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
      const width = row.reduce((sum, spec) => sum + spec.gridPos.w, 0);
      if (width > GRID_WIDTH) throw new Error(`${section.title}: a row is ${width} columns wide`);
      let x = 0;
      for (const spec of row) {
        // Spread over the kinds' union, so each panel keeps its own kind's options; keys keep their order.
        panels.push({ ...spec, id: panels.length + 1, gridPos: { ...spec.gridPos, x, y } });
        x += spec.gridPos.w;
      }
      y += Math.max(0, ...row.map((spec) => spec.gridPos.h));
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
