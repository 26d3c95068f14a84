/**
 * The subset of Grafana's classic dashboard JSON model (schemaVersion 39) that the generated dashboards use.
 * Field names follow Grafana's own, so the generated JSON is what Grafana would save. Panel options and field
 * config are Grafana's own types from @grafana/schema (a dev dependency; type-only imports, erased at run time),
 * complete: a missing required option or an unknown one fails the typecheck. The rest is checked against the
 * schema's Dashboard in test/dashboards/schema.types.ts.
 */
import type * as schema from '@grafana/schema';
import type * as BarGauge from '@grafana/schema/dist/esm/raw/composable/bargauge/panelcfg/x/BarGaugePanelCfg_types.gen';
import type * as Gauge from '@grafana/schema/dist/esm/raw/composable/gauge/panelcfg/x/GaugePanelCfg_types.gen';
import type * as Stat from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as StateTimeline from '@grafana/schema/dist/esm/raw/composable/statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen';
import type * as Table from '@grafana/schema/dist/esm/raw/composable/table/panelcfg/x/TablePanelCfg_types.gen';
import type * as TimeSeries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

/**
 * A Grafana schema type as JSON holds it: its string enums (`LegendDisplayMode.Table`) become their string
 * values (`'table'`), everything else stays as Grafana declares it, optional and required keys alike.
 */
export type Json<T> = unknown extends T
  ? T
  : T extends string
    ? `${T}`
    : T extends number | boolean | null | undefined
      ? T
      : T extends readonly (infer E)[]
        ? Json<E>[]
        : { [K in keyof T]: Json<T[K]> };

/**
 * Every panel kind the dashboards use, with Grafana's options and `fieldConfig.defaults.custom` for it.
 * Stat, bar gauge and gauge have no custom field config in Grafana's schema, so they may not set one.
 */
export interface PanelKinds {
  timeseries: { options: Json<TimeSeries.Options>; custom: Json<TimeSeries.FieldConfig> };
  stat: { options: Json<Stat.Options>; custom: never };
  table: { options: Json<Table.Options>; custom: Json<Table.FieldConfig> };
  'state-timeline': { options: Json<StateTimeline.Options>; custom: Json<StateTimeline.FieldConfig> };
  bargauge: { options: Json<BarGauge.Options>; custom: never };
  gauge: { options: Json<Gauge.Options>; custom: never };
}

export type PanelType = keyof PanelKinds;
export type PanelOptions<K extends PanelType> = PanelKinds[K]['options'];
export type PanelCustom<K extends PanelType> = PanelKinds[K]['custom'];

export const SCHEMA_VERSION = 39;
/** Every panel and target points at the dashboard's `datasource` variable, never at a fixed uid. */
export const DATASOURCE_REF = { type: 'prometheus', uid: '${datasource}' } as const;
export type DataSourceRef = typeof DATASOURCE_REF;

export interface GridPos {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A type, not an interface, so that it fits Grafana's open `Record<string, unknown>` query type. */
export type Target = {
  refId: string;
  datasource: DataSourceRef;
  expr: string;
  legendFormat?: string;
  format?: 'time_series' | 'table';
  instant?: boolean;
  range?: boolean;
};

export type ThresholdStep = Json<schema.Threshold>;
export type ColorMode = Json<schema.FieldColor>['mode'];

export interface ValueMappingEntry {
  text: string;
  color?: string;
  index: number;
}

export type ValueMapping =
  | { type: 'value'; options: Record<string, ValueMappingEntry> }
  | { type: 'range'; options: { from: number | null; to: number | null; result: ValueMappingEntry } };

export interface FieldDefaults<K extends PanelType = PanelType> {
  unit: string;
  decimals?: number;
  min?: number;
  max?: number;
  thresholds: { mode: 'absolute'; steps: ThresholdStep[] };
  mappings: ValueMapping[];
  color: { mode: ColorMode };
  custom?: PanelCustom<K>;
}

export interface FieldOverride {
  matcher: { id: string; options: string };
  properties: { id: string; value: unknown }[];
}

export interface Transformation {
  id: string;
  options: Record<string, unknown>;
}

export interface DataPanelOf<K extends PanelType> {
  id: number;
  type: K;
  title: string;
  description: string;
  gridPos: GridPos;
  datasource: DataSourceRef;
  targets: Target[];
  fieldConfig: { defaults: FieldDefaults<K>; overrides: FieldOverride[] };
  options: PanelOptions<K>;
  transformations?: Transformation[];
}

/** A data panel of any kind, its options those of its `type`. */
export type DataPanel = { [K in PanelType]: DataPanelOf<K> }[PanelType];

export interface RowPanel {
  id: number;
  type: 'row';
  title: string;
  collapsed: false;
  gridPos: GridPos;
  panels: [];
}

export type Panel = DataPanel | RowPanel;

export interface VariableOption {
  selected: boolean;
  text: string | string[];
  value: string | string[];
}

export interface DatasourceVariable {
  name: 'datasource';
  label: string;
  type: 'datasource';
  query: 'prometheus';
  current: VariableOption;
  hide: 0;
  includeAll: false;
  multi: false;
  options: [];
  refresh: 1;
  regex: string;
}

export interface QueryVariable {
  name: string;
  label: string;
  description: string;
  type: 'query';
  datasource: DataSourceRef;
  definition: string;
  query: { query: string; refId: string };
  current: VariableOption;
  hide: 0;
  includeAll: true;
  allValue: string;
  multi: true;
  options: [];
  refresh: 2;
  regex: string;
  sort: 1;
}

export type Variable = DatasourceVariable | QueryVariable;

export interface DashboardLink {
  type: 'link';
  title: string;
  url: string;
  icon: 'dashboard';
  tooltip: string;
  includeVars: true;
  keepTime: true;
  asDropdown: false;
  targetBlank: false;
  tags: [];
}

export interface Dashboard {
  uid: string;
  title: string;
  description: string;
  tags: string[];
  schemaVersion: typeof SCHEMA_VERSION;
  version: 1;
  editable: false;
  graphTooltip: 1;
  timezone: 'browser';
  refresh: string;
  time: { from: string; to: string };
  timepicker: Json<schema.TimePickerConfig>;
  fiscalYearStartMonth: 0;
  liveNow: false;
  weekStart: '';
  links: DashboardLink[];
  annotations: { list: [] };
  templating: { list: Variable[] };
  panels: Panel[];
}
