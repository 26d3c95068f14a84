/**
 * The whole chain with a real Prometheus: the demo scenario's emulated routers, the exporter, and
 * Prometheus scraping it every second with the shipped rules loaded. Then every dashboard panel query and
 * every rule expression runs through Prometheus' HTTP API: no query may error, every panel query must
 * return data for the demo scenario.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { demoConfig } from '../../src/cli/demo-config.js';
import { allDashboardQueries, allVariableSelectors, substituteTemplateVariables } from '../../scripts/dashboards/queries.js';
import { writeCa } from '../helpers/emulator-config.js';
import { instantQuery, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wait.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Grafana's variables as a 1 s scrape needs them: rates over 15 s, subqueries at 1 s steps, All for selections. */
const E2E_SUBSTITUTIONS = [
  ['$__rate_interval', '15s'],
  ['$__interval', '1s'],
  ['$__range', '5m'],
  ['$interface', '.*'],
  ['$uplink', '.*'],
  ['$router', '.*'],
  ['$peer', '.*'],
  ['$job', '.*'],
] as const;

let emulator: Emulator;
let app: App;
let server: Server;
let prometheus: RunningPrometheus;

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}
const ruleFiles = ['prometheus/alerts.yml', 'prometheus/rules.yml'].map((path) => ROOT + path);
const ruleExprs = ruleFiles.flatMap((file) =>
  (parse(readFileSync(file, 'utf8')) as RuleFile).groups.flatMap((group) =>
    group.rules.map((rule) => ({ name: rule.alert ?? rule.record ?? '?', expr: rule.expr })),
  ),
);

beforeAll(async () => {
  emulator = await startEmulator({ scenario: 'demo' });
  const config = demoConfig(emulator, { listen: '127.0.0.1:0', caFile: writeCa(emulator), logLevel: 'silent' });
  app = createApp(config, { logger: pino({ level: 'silent' }) });
  server = await startServer(app, config.listen);
  app.start();
  const target = new URL(serverUrl(server)).host;
  prometheus = await startPrometheus(
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: [${ruleFiles.map((file) => JSON.stringify(file)).join(', ')}]`,
      'scrape_configs:',
      '  - job_name: routeros-exporter',
      `    static_configs: [ { targets: ["${target}"] } ]`,
    ].join('\n'),
  );
  // Data for every panel: the demo's bandwidth tests run twice a minute, so wait until each router has one,
  // and until there are enough samples for rates.
  await waitFor(
    () => fetch(`${prometheus.url}/-/ready`).then((response) => response.status, () => 0),
    (status) => status === 200,
    { timeout: 30_000, what: `Prometheus to be ready:\n${prometheus.output()}` },
  );
  const scalar = async (expr: string): Promise<number> => {
    const result = (await instantQuery(prometheus.url, expr)).data?.result[0] as { value?: [number, string] } | undefined;
    return Number(result?.value?.[1] ?? 0);
  };
  await waitFor(() => scalar('count(count by (router) (routeros_bandwidth_test_last_run_timestamp_seconds))'), (n) => n === 3, {
    timeout: 60_000,
    interval: 1_000,
    what: 'a bandwidth test on every demo router',
  });
  await waitFor(() => scalar('min(count_over_time(routeros_up[1m]))'), (n) => n >= 10, { timeout: 30_000, what: '10 scrapes' });
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

describe('a real Prometheus scraping the demo', () => {
  it('scrapes the exporter successfully (OpenMetrics negotiated) and loads the shipped rules', async () => {
    const up = await instantQuery(prometheus.url, 'up{job="routeros-exporter"}');
    expect(up.data?.result).toMatchObject([{ value: [expect.any(Number), '1'] }]);
    const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { health: string; name: string; lastError?: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((group) => group.rules);
    expect(loaded.length).toBe(ruleExprs.length);
    expect(loaded.filter((rule) => rule.health === 'err')).toEqual([]);
  });

  it('every dashboard panel query runs without error and returns data', async () => {
    const queries = allDashboardQueries().map((query) => ({ ...query, expr: substituteTemplateVariables(query.rawExpr, E2E_SUBSTITUTIONS) }));
    const results = await Promise.all(queries.map(async (query) => ({ query, result: await instantQuery(prometheus.url, query.expr) })));
    const failures = results
      .filter(({ result }) => result.status !== 'success' || (result.data?.result.length ?? 0) === 0)
      .map(({ query, result }) => `${query.dashboard} / ${query.panel} / ${query.refId}: ${result.error ?? 'no data'}\n    ${query.expr}`);
    console.log(`ran ${queries.length} panel queries through Prometheus`);
    expect(failures).toEqual([]);
  });

  it('every template variable selector returns data', async () => {
    const selectors = allVariableSelectors();
    const empty: string[] = [];
    for (const selector of selectors) {
      const result = await instantQuery(prometheus.url, selector.expr);
      if (result.status !== 'success' || (result.data?.result.length ?? 0) === 0) empty.push(`${selector.dashboard} $${selector.variable}`);
    }
    console.log(`ran ${selectors.length} variable selectors through Prometheus`);
    expect(empty).toEqual([]);
  });

  it('every rule expression runs without error', async () => {
    const errors: string[] = [];
    for (const rule of ruleExprs) {
      const result = await instantQuery(prometheus.url, rule.expr);
      if (result.status !== 'success') errors.push(`${rule.name}: ${result.error ?? '?'}`);
    }
    console.log(`ran ${ruleExprs.length} rule expressions through Prometheus`);
    expect(errors).toEqual([]);
  });

  it('the demo trips the alerts it should: the stale peer and the failing set-up check are pending', async () => {
    await expect
      .poll(async () => {
        const result = await instantQuery(prometheus.url, 'ALERTS{alertstate=~"pending|firing"}');
        return (result.data?.result ?? []).map((series) => (series as { metric: Record<string, string> }).metric['alertname']);
      }, { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['RouterOSWireGuardPeerHandshakeStale', 'RouterOSWireGuardSetupCheckFailing']));
  });
});
