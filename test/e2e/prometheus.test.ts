/**
 * The whole chain with a real Prometheus: the demo scenario's emulated routers, the exporter, and
 * Prometheus scraping it every second with the shipped rules loaded. Then every dashboard panel query and
 * every rule expression runs through Prometheus' HTTP API: no query may error, every panel query must
 * return data for the demo scenario.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { demoConfig } from '../../src/cli/demo-config.js';
import { allVariableSelectors } from '../../scripts/dashboards/queries.js';
import { writeCa } from '../helpers/emulator-config.js';
import { instantQuery, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { panelFailures, RULE_EXPRS, RULE_FILES, waitForDemoData } from './dashboard-queries.js';

let emulator: Emulator;
let app: App;
let server: Server;
let prometheus: RunningPrometheus;

const ruleFiles = RULE_FILES;
const ruleExprs = RULE_EXPRS;

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
  await waitForDemoData(prometheus, 3);
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
    const { ran, failures } = await panelFailures(prometheus.url);
    console.log(`ran ${ran} panel queries through Prometheus`);
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
