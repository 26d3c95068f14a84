/**
 * Every PromQL query of the shipped dashboards, with Grafana's template variables replaced by values a plain
 * Prometheus accepts, so that tests can run each one against a real server.
 */
import { allDashboards } from './dashboards.js';
import type { Dashboard } from './types.js';

export interface DashboardQuery {
  /** The dashboard's uid. */
  dashboard: string;
  /** The panel's title (unique within its dashboard). */
  panel: string;
  /** The target's refId within the panel: A, B, … */
  refId: string;
  /** The query as Prometheus can run it: template variables substituted. */
  expr: string;
  /** The query as written in the dashboard. */
  rawExpr: string;
  /** True when Grafana runs it as an instant query, false for a range query. */
  instant: boolean;
}

/**
 * What each Grafana variable becomes: the selection variables match everything (as "All" does), the interval
 * variables get fixed durations. Longest names first, so `$__rate_interval` is not read as `$__range`.
 */
export const TEMPLATE_SUBSTITUTIONS: readonly (readonly [string, string])[] = [
  ['$__rate_interval', '1m'],
  ['$__interval', '1m'],
  ['$__range', '1h'],
  ['$interface', '.*'],
  ['$uplink', '.*'],
  ['$router', '.*'],
  ['$peer', '.*'],
  ['$job', '.*'],
];

/** Replaces the template variables of a query; throws on a variable it does not know. */
export function substituteTemplateVariables(
  expr: string,
  substitutions: readonly (readonly [string, string])[] = TEMPLATE_SUBSTITUTIONS,
): string {
  let out = expr;
  for (const [name, value] of substitutions) {
    const braced = `\${${name.slice(1)}}`;
    out = out.split(braced).join(value).split(name).join(value);
  }
  const left = /\$\{?[A-Za-z_]\w*/.exec(out);
  if (left !== null) throw new Error(`unknown template variable ${left[0]} in: ${expr}`);
  return out;
}

/** The queries of one dashboard, in panel and target order. */
export function dashboardQueries(dashboard: Dashboard): DashboardQuery[] {
  return dashboard.panels.flatMap((panel) =>
    panel.type === 'row'
      ? []
      : panel.targets.map((target) => ({
          dashboard: dashboard.uid,
          panel: panel.title,
          refId: target.refId,
          expr: substituteTemplateVariables(target.expr),
          rawExpr: target.expr,
          instant: target.instant === true,
        })),
  );
}

/** Every panel query of every shipped dashboard. */
export function allDashboardQueries(): DashboardQuery[] {
  return allDashboards().flatMap(dashboardQueries);
}

/** The PromQL of every query variable (`label_values(<selector>, label)` → `<selector>`), substituted likewise. */
export function allVariableSelectors(): { dashboard: string; variable: string; expr: string }[] {
  return allDashboards().flatMap((dashboard) =>
    dashboard.templating.list.flatMap((variable) => {
      if (variable.type !== 'query') return [];
      const match = /^label_values\((.*),\s*\w+\)$/.exec(variable.query.query);
      if (match?.[1] === undefined) throw new Error(`${dashboard.uid}: $${variable.name} is not label_values(…)`);
      return [{ dashboard: dashboard.uid, variable: variable.name, expr: substituteTemplateVariables(match[1]) }];
    }),
  );
}
