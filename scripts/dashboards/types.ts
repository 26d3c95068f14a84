/**
 * The subset of Grafana's classic dashboard JSON model (schemaVersion 39) that the generated dashboards use.
 * Field names follow Grafana's own, so the generated JSON is what Grafana would save.
 */

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

export interface Target {
  refId: string;
  datasource: DataSourceRef;
  expr: string;
  legendFormat?: string;
  format?: 'time_series' | 'table';
  instant?: boolean;
  range?: boolean;
}

export interface ThresholdStep {
  color: string;
  value: number | null;
}

export interface ValueMappingEntry {
  text: string;
  color?: string;
  index: number;
}

export type ValueMapping =
  | { type: 'value'; options: Record<string, ValueMappingEntry> }
  | { type: 'range'; options: { from: number | null; to: number | null; result: ValueMappingEntry } };

export interface FieldDefaults {
  unit: string;
  decimals?: number;
  min?: number;
  max?: number;
  thresholds: { mode: 'absolute'; steps: ThresholdStep[] };
  mappings: ValueMapping[];
  color: { mode: string };
  custom?: Record<string, unknown>;
}

export interface FieldOverride {
  matcher: { id: string; options: string };
  properties: { id: string; value: unknown }[];
}

export interface Transformation {
  id: string;
  options: Record<string, unknown>;
}

export type PanelType = 'timeseries' | 'stat' | 'table' | 'state-timeline' | 'bargauge' | 'gauge';

export interface DataPanel {
  id: number;
  type: PanelType;
  title: string;
  description: string;
  gridPos: GridPos;
  datasource: DataSourceRef;
  targets: Target[];
  fieldConfig: { defaults: FieldDefaults; overrides: FieldOverride[] };
  options: Record<string, unknown>;
  transformations?: Transformation[];
}

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
  timepicker: Record<string, never>;
  fiscalYearStartMonth: 0;
  liveNow: false;
  weekStart: '';
  links: DashboardLink[];
  annotations: { list: [] };
  templating: { list: Variable[] };
  panels: Panel[];
}
