/**
 * Multi-target mode with a real Prometheus: the shipped deploy/prometheus/multi-target.yml (its two jobs and
 * their relabelling, as written) against the demo's emulated routers — http_sd_configs → /sd, one target per
 * router scraped at /probe?target=NAME, the exporter's own series at /metrics?scope=exporter. Every router's
 * target is up, the shipped rules load, every dashboard panel query returns data; then one router stops
 * answering and only its own target's series show it.
 *
 * What the test changes in the example: the exporter's address (routeros-exporter:9731 → where it listens),
 * 1 s scrapes (so the timeout too), the rule files' paths, no Alertmanager, and only the two routeros jobs.
 */
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { parse, stringify } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { demoConfig } from '../../src/cli/demo-config.js';
import { allVariableSelectors } from '../../scripts/dashboards/queries.js';
import { writeCa } from '../helpers/emulator-config.js';
import { instantQuery, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { AFTER_A_FAILURE, panelFailures, panelQueriesTitled, RULE_EXPRS, RULE_FILES, waitForDemoData } from './dashboard-queries.js';

const EXAMPLE = new URL('../../deploy/prometheus/multi-target.yml', import.meta.url).pathname;
const EXAMPLE_ADDRESS = 'routeros-exporter:9731';
const JOBS = ['routeros', 'routeros-exporter'];
const STOPPED = 'branch-2';

interface ScrapeConfig {
  job_name: string;
  scrape_timeout?: string;
  [key: string]: unknown;
}

let emulator: Emulator;
let app: App;
let server: Server;
let prometheus: RunningPrometheus;
let routers: string[];

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

async function series(expr: string): Promise<Series[]> {
  const result = await instantQuery(prometheus.url, expr);
  if (result.status !== 'success') throw new Error(`${expr}: ${result.error ?? 'failed'}`);
  return (result.data?.result ?? []) as Series[];
}

/** The example's routeros jobs, pointed at this exporter, scraping every second. */
function exampleJobs(exporter: string): ScrapeConfig[] {
  const example = parse(readFileSync(EXAMPLE, 'utf8')) as { scrape_configs: ScrapeConfig[] };
  const jobs = example.scrape_configs.filter((job) => JOBS.includes(job.job_name));
  expect(jobs.map((job) => job.job_name)).toEqual(JOBS);
  const text = JSON.stringify(jobs);
  expect(text).toContain(EXAMPLE_ADDRESS);
  return (JSON.parse(text.replaceAll(EXAMPLE_ADDRESS, exporter)) as ScrapeConfig[]).map((job) => ({
    ...job,
    ...(job.scrape_timeout === undefined ? {} : { scrape_timeout: '1s' }),
  }));
}

beforeAll(async () => {
  emulator = await startEmulator({ scenario: 'demo' });
  const config = demoConfig(emulator, { listen: '127.0.0.1:0', caFile: writeCa(emulator), logLevel: 'silent' });
  routers = config.routers.map((router) => router.name).sort();
  app = createApp(config, { logger: pino({ level: 'silent' }) });
  server = await startServer(app, config.listen);
  app.start();
  prometheus = await startPrometheus(
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: RULE_FILES,
      scrape_configs: exampleJobs(new URL(serverUrl(server)).host),
    }),
  );
  await waitForDemoData(prometheus, routers.length, 'routeros');
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

describe('a real Prometheus with the shipped multi-target config (/sd → /probe)', () => {
  it('has one target per router, named after it, up, with the router labels kept as the exporter wrote them', async () => {
    const up = await series('up{job="routeros"}');
    expect(up.map((s) => s.metric['instance']).sort()).toEqual(routers);
    for (const s of up) {
      expect(s.value[1]).toBe('1');
      // From /sd: the router label, and the relabelled address.
      expect(s.metric['router']).toBe(s.metric['instance']);
      expect(s.metric['router_address']).toBe('127.0.0.1');
    }
    // Each router's series once (not again under the exporter's own job), in its own target, no exported_* copies.
    expect((await series('routeros_up')).map((s) => `${s.metric['job']}/${s.metric['instance']}/${s.metric['router']}`).sort()).toEqual(
      routers.map((router) => `routeros/${router}/${router}`),
    );
    expect(await series('count({exported_router!=""} or {exported_instance!=""})')).toEqual([]);
    expect(await series('count({job="routeros", instance!~"", router=""})')).toEqual([]);
    // The exporter's own series come from its own job, once.
    expect((await series('routeros_exporter_build_info')).map((s) => s.metric['job'])).toEqual(['routeros-exporter']);
    expect(await series('up{job="routeros-exporter"} == 1')).toHaveLength(1);
  });

  it('loads the shipped rules, and every rule expression runs', async () => {
    const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { health: string; name: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((group) => group.rules);
    expect(loaded.length).toBe(RULE_EXPRS.length);
    expect(loaded.filter((rule) => rule.health === 'err')).toEqual([]);
    const errors: string[] = [];
    for (const rule of RULE_EXPRS) {
      const result = await instantQuery(prometheus.url, rule.expr);
      if (result.status !== 'success') errors.push(`${rule.name}: ${result.error ?? '?'}`);
    }
    expect(errors).toEqual([]);
  });

  it('every dashboard panel query runs without error and returns data', async () => {
    const { ran, failures } = await panelFailures(prometheus.url);
    console.log(`ran ${ran} panel queries through Prometheus scraping /probe targets`);
    expect(failures).toEqual([]);
  });

  it('every template variable selector returns data', async () => {
    const empty: string[] = [];
    for (const selector of allVariableSelectors()) {
      if ((await series(selector.expr)).length === 0) empty.push(`${selector.dashboard} $${selector.variable}`);
    }
    expect(empty).toEqual([]);
  });

  it('a router that stops answering fails in its own target only', async () => {
    const failingBefore = new Set((await series('routeros_collector_success == 0')).map((s) => `${s.metric['router']}/${s.metric['collector']}`));
    emulator.router(STOPPED).stop();
    await expect
      .poll(async () => (await series('routeros_up == 0')).map((s) => `${s.metric['instance']}/${s.metric['router']}`), { timeout: 20_000, interval: 500 })
      .toEqual([`${STOPPED}/${STOPPED}`]);
    // The exporter still answers for every target: the failure is in the stopped router's series.
    expect((await series('up{job="routeros"}')).every((s) => s.value[1] === '1')).toBe(true);
    expect((await series('routeros_up == 1')).map((s) => s.metric['instance']).sort()).toEqual(routers.filter((router) => router !== STOPPED));
    const newlyFailing = (await series('routeros_collector_success == 0')).filter((s) => !failingBefore.has(`${s.metric['router']}/${s.metric['collector']}`));
    expect(newlyFailing.length).toBeGreaterThan(0);
    for (const s of newlyFailing) expect([s.metric['instance'], s.metric['router']]).toEqual([STOPPED, STOPPED]);
    // The panels that stay empty while nothing fails show the failure, for that router alone.
    for (const query of AFTER_A_FAILURE.flatMap((title) => panelQueriesTitled(title))) {
      await expect.poll(async () => [...new Set((await series(query.expr)).map((s) => s.metric['router']))], { timeout: 10_000, interval: 500 }).toEqual([STOPPED]);
    }
    // RouterOSDown starts (pending: its `for` is minutes) for that router alone.
    await expect
      .poll(async () => (await series('ALERTS{alertname="RouterOSDown"}')).map((s) => s.metric['router']), { timeout: 10_000, interval: 500 })
      .toEqual([STOPPED]);
  });
});
