/**
 * What the end-to-end tests with a real Prometheus run through it: every dashboard panel query with Grafana's
 * variables filled in for a 1 s scrape, and the shipped rule files with every rule expression. Shared by
 * prometheus.test.ts (one /metrics target) and probe-sd.test.ts (a target per router through /sd and /probe).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { allDashboardQueries, substituteTemplateVariables } from '../../scripts/dashboards/queries.js';
import { instantQuery, type RunningPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wait.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Grafana's variables as a 1 s scrape needs them: rates over 15 s, subqueries at 1 s steps, All for selections. */
export const E2E_SUBSTITUTIONS = [
  ['$__rate_interval', '15s'],
  ['$__interval', '1s'],
  ['$__range', '5m'],
  ['$interface', '.*'],
  ['$uplink', '.*'],
  ['$router', '.*'],
  ['$peer', '.*'],
  ['$job', '.*'],
] as const;

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

export const RULE_FILES = ['prometheus/alerts.yml', 'prometheus/rules.yml'].map((path) => ROOT + path);

export const RULE_EXPRS = RULE_FILES.flatMap((file) =>
  (parse(readFileSync(file, 'utf8')) as RuleFile).groups.flatMap((group) =>
    group.rules.map((rule) => ({ name: rule.alert ?? rule.record ?? '?', expr: rule.expr })),
  ),
);

/** Every panel query of the shipped dashboards, ready to run. */
export function panelQueries(): ReturnType<typeof allDashboardQueries> {
  return allDashboardQueries().map((query) => ({ ...query, expr: substituteTemplateVariables(query.rawExpr, E2E_SUBSTITUTIONS) }));
}

/**
 * Panels whose series exist only once something has failed: `routeros_collector_errors_total` has a series per
 * reason from that reason's first failure (docs/metrics.md), so on a fleet where nothing failed yet the panel is
 * rightly empty. They must still run; a test that makes a router fail asks them for data (panelQueriesTitled).
 */
export const AFTER_A_FAILURE: readonly string[] = ['Collector errors by reason'];

/** The panel queries of the panels with this title. */
export function panelQueriesTitled(title: string): ReturnType<typeof panelQueries> {
  return panelQueries().filter((query) => query.panel === title);
}

/**
 * How long a panel query that answered nothing is asked again. A rate over E2E_SUBSTITUTIONS' 15 s has data only
 * while the counter moved within that window, and the demo pings every 10 s: on a loaded machine a run a few
 * seconds late left the ping-loss panel empty at the moment it was asked (seen once in a full suite, 2026-12-03).
 * Every panel must still answer data within this long, as a dashboard refreshing it would show it.
 */
const EMPTY_PANEL_RETRY_MS = 20_000;

/** Runs every panel query; the ones that failed or returned nothing (AFTER_A_FAILURE panels may), one line each. */
export async function panelFailures(prometheusUrl: string): Promise<{ ran: number; failures: string[] }> {
  const queries = panelQueries();
  const empty = (query: (typeof queries)[number], rows: number): boolean => rows === 0 && !AFTER_A_FAILURE.includes(query.panel);
  const failed = (query: (typeof queries)[number], result: Awaited<ReturnType<typeof instantQuery>>): boolean =>
    result.status !== 'success' || empty(query, result.data?.result.length ?? 0);
  const results = await Promise.all(
    queries.map(async (query) => {
      const first = await instantQuery(prometheusUrl, query.expr);
      // An error is final; an empty answer is asked again until it has data or the retry time is over.
      if (first.status !== 'success' || !failed(query, first)) return { query, result: first };
      const settled = (result: typeof first): boolean => result.status !== 'success' || !failed(query, result);
      const result = await waitFor(() => instantQuery(prometheusUrl, query.expr), settled, { timeout: EMPTY_PANEL_RETRY_MS, interval: 1_000 }).catch(() => first);
      return { query, result };
    }),
  );
  const failures = results
    .filter(({ query, result }) => failed(query, result))
    .map(({ query, result }) => `${query.dashboard} / ${query.panel} / ${query.refId}: ${result.error ?? 'no data'}\n    ${query.expr}`);
  return { ran: queries.length, failures };
}

/** The first sample of an instant query, as a number (0 when it returned nothing). */
export async function scalarOf(prometheusUrl: string, expr: string): Promise<number> {
  const result = (await instantQuery(prometheusUrl, expr)).data?.result[0] as { value?: [number, string] } | undefined;
  return Number(result?.value?.[1] ?? 0);
}

/**
 * Waits until Prometheus is ready, then until the demo has data for every panel: the demo's bandwidth tests run
 * twice a minute, so each of `routers` needs one, and rates need at least 10 scrapes of every router. The memory
 * fill forecast needs a falling trend: the demo's `hq` leaks 4 MiB/s, but its free memory also wanders (a step of
 * up to 43 MB every 15 s), which over the first ~20 s of samples can hide the leak; so it waits until the trend
 * is clearly down (below -1 MB/s), as it is once the window is long enough.
 */
export async function waitForDemoData(prometheus: RunningPrometheus, routers: number, upJob?: string): Promise<void> {
  await waitFor(
    () => fetch(`${prometheus.url}/-/ready`).then((response) => response.status, () => 0),
    (status) => status === 200,
    { timeout: 30_000, what: `Prometheus to be ready:\n${prometheus.output()}` },
  );
  const scalar = (expr: string): Promise<number> => scalarOf(prometheus.url, expr);
  if (upJob !== undefined) {
    await waitFor(() => scalar(`count(up{job="${upJob}"} == 1)`), (n) => n === routers, { timeout: 20_000, what: `every ${upJob} target up` });
  }
  await waitFor(() => scalar('count(count by (router) (routeros_bandwidth_test_last_run_timestamp_seconds))'), (n) => n === routers, {
    timeout: 60_000,
    interval: 1_000,
    what: 'a bandwidth test on every demo router',
  });
  await waitFor(() => scalar('min(count_over_time(routeros_up[1m]))'), (n) => n >= 10, { timeout: 30_000, what: '10 scrapes' });
  await waitFor(() => scalar('count(deriv(routeros_system_memory_free_bytes[7d]) < -1e6)'), (n) => n >= 1, {
    timeout: 60_000,
    interval: 1_000,
    what: "the demo's leaking router's free memory clearly falling",
  });
}
