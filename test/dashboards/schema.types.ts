/**
 * Type-level tests of the generated dashboards against Grafana's own types (@grafana/schema). Nothing runs this
 * file: `tsc -p tsconfig.json` (npm run typecheck, part of npm test) checks it, so a failure here is a type
 * error. What it pins:
 * - every panel kind's options and custom field config are exactly Grafana's (not Partial, not widened), so the
 *   generator cannot leave out a required option or write one Grafana does not have;
 * - the dashboard as a whole fits Grafana's `Dashboard` and uses no key that type does not know;
 * - mistakes of each kind do not compile (`@ts-expect-error` fails the typecheck when there is no error).
 * The committed JSON is the generator's output byte for byte (current.test.ts), so this covers it too.
 */
import type * as schema from '@grafana/schema';
import type * as BarGauge from '@grafana/schema/dist/esm/raw/composable/bargauge/panelcfg/x/BarGaugePanelCfg_types.gen';
import type * as Gauge from '@grafana/schema/dist/esm/raw/composable/gauge/panelcfg/x/GaugePanelCfg_types.gen';
import type * as Stat from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as StateTimeline from '@grafana/schema/dist/esm/raw/composable/statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen';
import type * as Table from '@grafana/schema/dist/esm/raw/composable/table/panelcfg/x/TablePanelCfg_types.gen';
import type * as TimeSeries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';
import { stat, timeseries } from '../../scripts/dashboards/panels.js';
import type { Dashboard, DataPanel, Json, PanelCustom, PanelOptions } from '../../scripts/dashboards/types.js';

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

/** All keys of any member of a union. */
type AllKeys<S> = S extends unknown ? keyof S : never;
/** The type of key K in whichever members of S have it. */
type At<S, K extends PropertyKey> = S extends unknown ? (K extends keyof S ? S[K] : never) : never;
/**
 * Paths of the keys of T that the schema type S does not have, deep (`a.b[].c`); never when T names only
 * keys S knows. Where S is open (`Record<string, unknown>`, `unknown`), anything goes and nothing is reported.
 */
type UnknownKeys<T, S, P extends string = ''> = unknown extends S
  ? never
  : T extends readonly (infer E)[]
    ? UnknownKeys<E, NonNullable<S> extends readonly (infer F)[] ? F : never, `${P}[]`>
    : T extends object
      ? string extends AllKeys<NonNullable<S>>
        ? never
        : {
            [K in keyof T & string]-?: K extends AllKeys<NonNullable<S>>
              ? UnknownKeys<T[K], At<NonNullable<S>, K>, `${P}.${K}`>
              : `${P}.${K}`;
          }[keyof T & string]
      : never;

// Each kind's options and custom field config are Grafana's, complete (a required option missing from a
// constructor in scripts/dashboards/panels.ts fails there), and nothing looser.
export type OptionsAreGrafanas = [
  Assert<Equals<PanelOptions<'timeseries'>, Json<TimeSeries.Options>>>,
  Assert<Equals<PanelOptions<'stat'>, Json<Stat.Options>>>,
  Assert<Equals<PanelOptions<'table'>, Json<Table.Options>>>,
  Assert<Equals<PanelOptions<'state-timeline'>, Json<StateTimeline.Options>>>,
  Assert<Equals<PanelOptions<'bargauge'>, Json<BarGauge.Options>>>,
  Assert<Equals<PanelOptions<'gauge'>, Json<Gauge.Options>>>,
  Assert<Equals<PanelCustom<'timeseries'>, Json<TimeSeries.FieldConfig>>>,
  Assert<Equals<PanelCustom<'table'>, Json<Table.FieldConfig>>>,
  Assert<Equals<PanelCustom<'state-timeline'>, Json<StateTimeline.FieldConfig>>>,
];

// The dashboard fits Grafana's Dashboard, and every key it writes is one Grafana's types know, except
// `definition` of query variables: Grafana itself saves it (the query's text, shown in the variable list),
// though the schema does not declare it.
export type DashboardIsGrafanas = [
  Assert<Dashboard extends Json<schema.Dashboard> ? true : false>,
  Assert<Equals<UnknownKeys<Dashboard, Json<schema.Dashboard>>, '.templating.list[].definition'>>,
  Assert<Equals<UnknownKeys<DataPanel, Json<schema.Panel>>, never>>,
];

// The check itself finds what it should.
export type CheckBites = [
  Assert<Equals<UnknownKeys<{ a: { b: 1; c: [{ d: 1 }] } }, { a: { b: number; c: { e?: 1 }[] } }>, '.a.c[].d'>>,
  Assert<Equals<UnknownKeys<{ a: { x: 1 } }, { a: Record<string, unknown> }>, never>>,
];

/* eslint-disable @typescript-eslint/no-unused-vars -- the values below exist only to be typechecked */

// A required option missing: stat panels need `wideLayout` (Grafana 10.4+), among others.
// @ts-expect-error -- wideLayout, percentChangeColorMode and showPercentChange are required
const statWithoutNewOptions: PanelOptions<'stat'> = {
  reduceOptions: { calcs: ['lastNotNull'] },
  orientation: 'auto',
  colorMode: 'background',
  graphMode: 'none',
  justifyMode: 'auto',
  textMode: 'auto',
};

// An option Grafana no longer has: the table footer moved to the field config.
const tableWithFooter: PanelOptions<'table'> = {
  showHeader: true,
  frameIndex: 0,
  // @ts-expect-error -- `footer` is not a table option
  footer: { show: false },
};

// A value Grafana does not accept.
const badLegend: PanelOptions<'timeseries'>['legend'] = {
  // @ts-expect-error -- 'tabel' is not a LegendDisplayMode
  displayMode: 'tabel',
  placement: 'right',
  showLegend: true,
  calcs: [],
};

const spec = { title: 'T', description: 'A panel of the type tests.', unit: 'none', queries: [] };
// A misspelt custom field option of a time series.
// @ts-expect-error -- `lineWidht` is not a time series field option
const misspelt = timeseries({ ...spec, custom: { lineWidht: 2 } });
// A custom field config on a kind that has none in Grafana's schema.
// @ts-expect-error -- stat panels have no custom field config
const statCustom = stat({ ...spec, custom: { lineWidth: 1 } });
