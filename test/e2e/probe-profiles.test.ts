/**
 * Routers from inventory with a real Prometheus: the shipped deploy/prometheus/inventory-profiles.yml (its two
 * hashmod jobs, relabelling as written) against two exporter replicas with the same profile, and a file_sd list of
 * emulated routers' HOST:PORT. Each target is probed, and so polled, by exactly one replica (checked in Prometheus
 * and in each replica's registry), every target is up with routeros_up 1 under router=<target as given>, and a
 * router that stops answering turns only its own routeros_up to 0.
 *
 * What the test changes in the example: the replicas' addresses, the file_sd path, 1 s scrapes (and timeout).
 */
import type { Server } from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { parse, stringify } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { applyOverrides } from '../../src/cli/overrides.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { testConfig } from '../helpers/config.js';
import { instantQuery, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wait.js';

const EXAMPLE = new URL('../../deploy/prometheus/inventory-profiles.yml', import.meta.url).pathname;
const REPLICAS = ['routeros-exporter-0:9731', 'routeros-exporter-1:9731'];
const PASSWORD = 'inventory-e2e-Secret';
const NAMES = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
const STOPPED = 'b6';

interface ScrapeConfig {
  job_name: string;
  scrape_timeout?: string;
  file_sd_configs?: { files: string[] }[];
  [key: string]: unknown;
}

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

let emulator: Emulator;
const apps: App[] = [];
const servers: Server[] = [];
let prometheus: RunningPrometheus;
let targets: string[];

async function series(expr: string): Promise<Series[]> {
  const result = await instantQuery(prometheus.url, expr);
  if (result.status !== 'success') throw new Error(`${expr}: ${result.error ?? 'failed'}`);
  return (result.data?.result ?? []) as Series[];
}

/** Prometheus' hashmod: the low 8 bytes of the MD5 of the source labels' values, big-endian, modulo. */
function hashmod(value: string, modulus: number): number {
  return Number(createHash('md5').update(value).digest().readBigUInt64BE(8) % BigInt(modulus));
}

beforeAll(async () => {
  emulator = await startEmulator({ users: [{ name: 'monitor', password: PASSWORD }], routers: NAMES.map((name) => ({ name })) });
  targets = NAMES.map((name) => new URL(emulator.router(name).url).host);
  const config = testConfig({
    listen: '127.0.0.1:0',
    log_level: 'silent',
    defaults: { username: 'monitor', password: PASSWORD, tls: { ca_file: writeCa(emulator) } },
    routers: [],
    profiles: {
      branches: {
        targets: ['127.0.0.1/32'],
        timeout: '1500ms',
        schedules: { system: '*/2 * * * * *' },
        collectors: { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false },
      },
    },
  });
  // Each replica also runs with --shard i/2, as a sharded deployment would: it must not change discovered targets.
  for (const shard of ['0/2', '1/2']) {
    const app = createApp(applyOverrides(config, { command: 'run', shard }), { logger: pino({ level: 'silent' }) });
    servers.push(await startServer(app, config.listen));
    app.start();
    apps.push(app);
  }
  const inventory = tempFile('routeros-inventory.yml', stringify([{ targets, labels: { site: 'branches' } }]));
  const example = parse(readFileSync(EXAMPLE, 'utf8')) as { scrape_configs: ScrapeConfig[] };
  let text = JSON.stringify(example.scrape_configs);
  REPLICAS.forEach((replica, i) => {
    expect(text).toContain(replica);
    text = text.replaceAll(replica, new URL(serverUrl(servers[i]!)).host);
  });
  const jobs = (JSON.parse(text) as ScrapeConfig[]).map((job) => ({
    ...job,
    ...(job.scrape_timeout === undefined ? {} : { scrape_timeout: '1s' }),
    ...(job.file_sd_configs === undefined ? {} : { file_sd_configs: [{ files: [inventory], refresh_interval: '1s' }] }),
  }));
  expect(jobs.map((job) => job.job_name)).toEqual(['routeros-inventory-0', 'routeros-inventory-1', 'routeros-exporter']);
  prometheus = await startPrometheus(stringify({ global: { scrape_interval: '1s', evaluation_interval: '1s' }, scrape_configs: jobs }));
  await waitFor(
    () => series('routeros_up == 1').then((found) => found.length, () => 0),
    (count) => count === targets.length,
    { timeout: 60_000, interval: 500, what: `routeros_up 1 for every target:\n${prometheus.output()}` },
  );
}, 90_000);

afterAll(async () => {
  await prometheus?.stop();
  for (const app of apps) await app.stop();
  for (const server of servers) await closeServer(server, 1_000);
  await emulator?.close();
});

describe('routers from inventory through a real Prometheus', () => {
  it('probes each target through exactly one replica, the one hashmod names, and only that replica polls it', async () => {
    const up = await series('up{job=~"routeros-inventory-.*"}');
    expect(up.map((s) => s.metric.instance).sort()).toEqual([...targets].sort());
    expect(up.every((s) => s.value[1] === '1')).toBe(true);
    for (const s of up) expect(s.metric.job).toBe(`routeros-inventory-${hashmod(s.metric.instance ?? '', 2)}`);
    const polled = apps.map((app) => app.discovery.routers().map((router) => router.name).sort());
    polled.forEach((names, replica) => expect(names).toEqual(targets.filter((target) => hashmod(target, 2) === replica).sort()));
    console.log(`hashmod split of ${targets.length} targets: ${polled.map((names) => names.length).join(' + ')}`);
  });

  it('gives every target routeros_up 1 under router=<the target as given>, with the inventory labels', async () => {
    const up = await series('routeros_up');
    expect(up.map((s) => [s.metric.router, s.metric.instance, s.metric.site, s.value[1]]).sort()).toEqual(
      [...targets].sort().map((target) => [target, target, 'branches', '1']),
    );
    // The replicas' own series come from their /metrics?scope=exporter scrapes, a second or so behind the probes.
    await waitFor(
      () => series('sum(routeros_exporter_discovered_targets{profile="branches"})'),
      (found) => found[0]?.value[1] === String(targets.length),
      { timeout: 10_000, interval: 500, what: 'both replicas to report their discovered targets' },
    );
  });

  it('a router that stops answering turns only its own routeros_up to 0; every scrape stays up', async () => {
    const stopped = new URL(emulator.router(STOPPED).url).host;
    await emulator.router(STOPPED).stop();
    await waitFor(
      () => series(`routeros_up{router="${stopped}"}`),
      (found) => found[0]?.value[1] === '0',
      { timeout: 20_000, interval: 500, what: `routeros_up 0 for ${stopped}` },
    );
    const up = await series('routeros_up');
    for (const s of up) expect([s.metric.router, s.value[1]]).toEqual([s.metric.router, s.metric.router === stopped ? '0' : '1']);
    const scrapes = await series('up{job=~"routeros-inventory-.*"}');
    expect(scrapes.every((s) => s.value[1] === '1')).toBe(true);
  });
});
