/**
 * Panel constructors: a panel is written as a small spec (title, description, unit, queries) and turned into
 * Grafana's JSON here, with the options every panel of a kind shares. Positions are set later by the layout.
 */
import {
  DATASOURCE_REF,
  type FieldOverride,
  type PanelType,
  type Target,
  type ThresholdStep,
  type Transformation,
  type ValueMapping,
} from './types.js';

export interface QuerySpec {
  expr: string;
  legend?: string;
  /** Evaluate once at the end of the range (stat, bar gauge and table panels). */
  instant?: boolean;
  /** Return labels as columns (table panels). */
  table?: boolean;
}

/** A range query drawn over time. */
export function q(expr: string, legend?: string): QuerySpec {
  return legend === undefined ? { expr } : { expr, legend };
}

/** An instant query, for panels that show the latest value. */
export function instant(expr: string, legend?: string): QuerySpec {
  return legend === undefined ? { expr, instant: true } : { expr, legend, instant: true };
}

/** An instant query whose labels become table columns. */
export function tableQuery(expr: string): QuerySpec {
  return { expr, instant: true, table: true };
}

export interface PanelSpec {
  type: PanelType;
  title: string;
  description: string;
  unit: string;
  width: number;
  height: number;
  queries: QuerySpec[];
  thresholds?: ThresholdStep[];
  mappings?: ValueMapping[];
  min?: number;
  max?: number;
  decimals?: number;
  colorMode?: string;
  custom?: Record<string, unknown>;
  options?: Record<string, unknown>;
  overrides?: FieldOverride[];
  transformations?: Transformation[];
}

type Spec = Omit<PanelSpec, 'type' | 'width' | 'height'> & Partial<Pick<PanelSpec, 'width' | 'height'>>;

/** Thresholds from a base colour and [value, colour] steps upwards. */
export function steps(base: string, ...more: [number, string][]): ThresholdStep[] {
  return [{ color: base, value: null }, ...more.map(([value, color]) => ({ color, value }))];
}

/** 1 → `up` text in green, 0 → `down` text in red. */
export function boolMapping(up: string, down: string): ValueMapping[] {
  return [
    {
      type: 'value',
      options: { '0': { text: down, color: 'red', index: 0 }, '1': { text: up, color: 'green', index: 1 } },
    },
  ];
}

/** Field properties for one column or series, matched by its (renamed) name. */
export function override(field: string, properties: Record<string, unknown>): FieldOverride {
  return {
    matcher: { id: 'byName', options: field },
    properties: Object.entries(properties).map(([id, value]) => ({ id, value })),
  };
}

/** Field properties for the series whose display name matches a regular expression. */
export function overrideMatching(pattern: string, properties: Record<string, unknown>): FieldOverride {
  return {
    matcher: { id: 'byRegexp', options: pattern },
    properties: Object.entries(properties).map(([id, value]) => ({ id, value })),
  };
}

/** Joins the instant table queries of a panel on their labels, then hides and renames columns. */
export function joinColumns(hide: string[], rename: Record<string, string>): Transformation[] {
  return [
    { id: 'merge', options: {} },
    {
      id: 'organize',
      options: {
        excludeByName: Object.fromEntries(hide.map((name) => [name, true])),
        renameByName: rename,
        indexByName: {},
      },
    },
  ];
}

/** Label columns that carry nothing a reader needs in a table. */
export const PLUMBING_COLUMNS = ['Time', '__name__', 'job', 'instance'];

const LEGEND = { displayMode: 'table', placement: 'right', showLegend: true, calcs: ['lastNotNull', 'max'] };

export function timeseries(spec: Spec): PanelSpec {
  return {
    width: 12,
    height: 8,
    ...spec,
    type: 'timeseries',
    custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: 10, showPoints: 'never', spanNulls: false, ...spec.custom },
    options: { legend: LEGEND, tooltip: { mode: 'multi', sort: 'desc' }, ...spec.options },
  };
}

export function stat(spec: Spec): PanelSpec {
  return {
    width: 4,
    height: 4,
    ...spec,
    type: 'stat',
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'background',
      graphMode: 'none',
      justifyMode: 'auto',
      textMode: 'auto',
      orientation: 'auto',
      ...spec.options,
    },
  };
}

export function table(spec: Spec): PanelSpec {
  return {
    width: 24,
    height: 8,
    ...spec,
    type: 'table',
    options: { showHeader: true, cellHeight: 'sm', footer: { show: false }, ...spec.options },
  };
}

export function stateTimeline(spec: Spec): PanelSpec {
  return {
    width: 12,
    height: 8,
    ...spec,
    type: 'state-timeline',
    options: {
      showValue: 'never',
      mergeValues: true,
      alignValue: 'left',
      rowHeight: 0.8,
      legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
      ...spec.options,
    },
  };
}

export function barGauge(spec: Spec): PanelSpec {
  return {
    width: 12,
    height: 8,
    ...spec,
    type: 'bargauge',
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      orientation: 'horizontal',
      displayMode: 'gradient',
      showUnfilled: true,
      ...spec.options,
    },
  };
}

/** The targets of a panel, refIds A, B, C… in the order written. */
export function toTargets(queries: QuerySpec[]): Target[] {
  return queries.map((query, i) => {
    const target: Target = { refId: String.fromCharCode(65 + i), datasource: DATASOURCE_REF, expr: query.expr };
    if (query.legend !== undefined) target.legendFormat = query.legend;
    if (query.table === true) target.format = 'table';
    if (query.instant === true) {
      target.instant = true;
      target.range = false;
    }
    return target;
  });
}
