/**
 * Panel constructors: a panel is written as a small spec (title, description, unit, queries) and turned into
 * Grafana's JSON here, with the options every panel of a kind shares. Positions are set later by the layout.
 */
import {
  DATASOURCE_REF,
  type ColorMode,
  type DataPanel,
  type DataPanelOf,
  type FieldOverride,
  type PanelCustom,
  type PanelOptions,
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

/** What a dashboard module writes for a panel; the constructors below add the options of its kind. */
export interface Spec {
  title: string;
  description: string;
  unit: string;
  width?: number;
  height?: number;
  queries: QuerySpec[];
  thresholds?: ThresholdStep[];
  mappings?: ValueMapping[];
  min?: number;
  max?: number;
  decimals?: number;
  colorMode?: ColorMode;
  overrides?: FieldOverride[];
  transformations?: Transformation[];
}

/** A panel ready for the layout, which gives it its id and its place (`gridPos.x`, `gridPos.y`). */
export type PanelSpec = DataPanel;

/**
 * The panel of one kind, with Grafana's options for that kind (complete, checked by the typecheck) and its
 * custom field config, if any. Keys are written in the order Grafana saves them.
 */
function panel<K extends PanelType>(
  type: K,
  spec: Spec,
  size: { width: number; height: number },
  options: PanelOptions<K>,
  custom?: PanelCustom<K>,
): DataPanelOf<K> {
  const built: DataPanelOf<K> = {
    id: 0,
    type,
    title: spec.title,
    description: spec.description,
    gridPos: { x: 0, y: 0, w: spec.width ?? size.width, h: spec.height ?? size.height },
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
        ...(custom === undefined ? {} : { custom }),
      },
      overrides: spec.overrides ?? [],
    },
    options,
  };
  if (spec.transformations !== undefined) built.transformations = spec.transformations;
  return built;
}

/** Thresholds from a base colour and [value, colour] steps upwards. */
export function steps(base: string, ...more: [number, string][]): ThresholdStep[] {
  return [{ color: base, value: null }, ...more.map(([value, color]) => ({ color, value }))];
}

/** 1 → `one`, 0 → `zero`, the good one green and the other red (1 is the good one unless `oneIsBad`: a flag like disabled). */
export function boolMapping(one: string, zero: string, oneIsBad = false): ValueMapping[] {
  const [oneColor, zeroColor] = oneIsBad ? ['red', 'green'] : ['green', 'red'];
  return [
    {
      type: 'value',
      options: { '0': { text: zero, color: zeroColor, index: 0 }, '1': { text: one, color: oneColor, index: 1 } },
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

const LEGEND: PanelOptions<'timeseries'>['legend'] = {
  displayMode: 'table',
  placement: 'right',
  showLegend: true,
  calcs: ['lastNotNull', 'max'],
};

/** Latest value of each series, one number or bar per series (stat and bar gauge). */
const LAST_VALUE: PanelOptions<'stat'>['reduceOptions'] = { calcs: ['lastNotNull'], fields: '', values: false };

export function timeseries(spec: Spec & { custom?: PanelCustom<'timeseries'> }): DataPanel {
  const { custom, ...rest } = spec;
  return panel(
    'timeseries',
    rest,
    { width: 12, height: 8 },
    { legend: LEGEND, tooltip: { mode: 'multi', sort: 'desc' } },
    { drawStyle: 'line', lineWidth: 1, fillOpacity: 10, showPoints: 'never', spanNulls: false, ...custom },
  );
}

export function stat(spec: Spec): DataPanel {
  return panel('stat', spec, { width: 4, height: 4 }, {
    reduceOptions: LAST_VALUE,
    colorMode: 'background',
    graphMode: 'none',
    justifyMode: 'auto',
    textMode: 'auto',
    orientation: 'auto',
    // Grafana's defaults, written out so the options are complete.
    percentChangeColorMode: 'standard',
    showPercentChange: false,
    wideLayout: true,
  });
}

export function table(spec: Spec): DataPanel {
  // No `footer`: Grafana's table options no longer have one (the footer is a field option now).
  return panel('table', spec, { width: 24, height: 8 }, { showHeader: true, cellHeight: 'sm', frameIndex: 0 });
}

export function stateTimeline(spec: Spec): DataPanel {
  return panel('state-timeline', spec, { width: 12, height: 8 }, {
    showValue: 'never',
    mergeValues: true,
    alignValue: 'left',
    rowHeight: 0.8,
    legend: { displayMode: 'list', placement: 'bottom', showLegend: true, calcs: [] },
    // Grafana's default tooltip, written out so the options are complete.
    tooltip: { mode: 'single', sort: 'none' },
  });
}

export function barGauge(spec: Spec): DataPanel {
  return panel('bargauge', spec, { width: 12, height: 8 }, {
    reduceOptions: LAST_VALUE,
    orientation: 'horizontal',
    displayMode: 'gradient',
    showUnfilled: true,
    // Grafana's defaults, written out so the options are complete.
    legend: { displayMode: 'list', placement: 'bottom', showLegend: false, calcs: [] },
    maxVizHeight: 300,
    minVizHeight: 16,
    minVizWidth: 8,
    namePlacement: 'auto',
    sizing: 'auto',
    valueMode: 'color',
  });
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
