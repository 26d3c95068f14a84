/**
 * GET /sd (Prometheus http_sd_configs): one group per configured router with its labels and meta labels, no
 * credentials, the content type Prometheus insists on; with shards, each replica lists exactly the routers it
 * polls (and only those answer its /probe), the replicas together list every router once. The shipped
 * multi-target scrape configs pass promtool, and the compose override swaps Prometheus' config.
 */
import { spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createApp, type App } from '../../src/app.js';
import { applyOverrides } from '../../src/cli/overrides.js';
import type { Config } from '../../src/config/types.js';
import { inShard } from '../../src/scheduler/shard.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { sdGroupsOf, type SdGroup } from '../../src/server/sd-groups.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { promtool, repoRoot } from '../dashboards/shipped.js';

const PASSWORD = 'sd-test-password-never-listed';
/** Prometheus' check of an http_sd answer's Content-Type (discovery/http/http.go). */
const PROMETHEUS_SD_CONTENT_TYPE = /^application\/json(;\s*charset=("utf-8"|utf-8))?$/i;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function fleet(count: number, extra: Record<string, unknown> = {}): Config {
  return testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: PASSWORD, labels: { env: 'prod' } },
    // Never polled: no app here is started, so no connection is tried.
    routers: Array.from({ length: count }, (_, i) => ({ name: `r${i}`, url: `https://127.0.0.1:${9000 + i}`, labels: { site: `s${i % 4}` } })),
    ...extra,
  });
}

const running: { app: App; server: Server }[] = [];
async function serve(config: Config): Promise<string> {
  const app = createApp(config, { logger: captureLogs().logger, jitter: false });
  const server = await startServer(app, '127.0.0.1:0');
  running.push({ app, server });
  return serverUrl(server);
}
afterAll(async () => {
  for (const { app, server } of running) {
    await closeServer(server, 500);
    await app.stop();
  }
});

describe('sdGroupsOf', () => {
  it('gives each router one group: target = its name, labels = router and its labels:, meta labels for relabelling', () => {
    const config = testConfig({
      defaults: { username: 'monitor', password: PASSWORD },
      routers: [
        { name: 'hq', url: 'https://hq.example.net:8443', labels: { site: 'ams', role: 'core' } },
        { name: 'v6', url: 'https://[2001:db8::1]' },
        { name: 'plain', url: 'http://192.0.2.9' },
      ],
    });
    expect(sdGroupsOf(config.routers, undefined)).toEqual([
      {
        targets: ['hq'],
        labels: {
          role: 'core',
          site: 'ams',
          router: 'hq',
          __meta_routeros_router: 'hq',
          __meta_routeros_address: 'hq.example.net',
          __meta_routeros_port: '8443',
          __meta_routeros_scheme: 'https',
          __meta_routeros_label_role: 'core',
          __meta_routeros_label_site: 'ams',
        },
      },
      {
        targets: ['v6'],
        labels: { router: 'v6', __meta_routeros_router: 'v6', __meta_routeros_address: '2001:db8::1', __meta_routeros_port: '443', __meta_routeros_scheme: 'https' },
      },
      {
        targets: ['plain'],
        labels: { router: 'plain', __meta_routeros_router: 'plain', __meta_routeros_address: '192.0.2.9', __meta_routeros_port: '80', __meta_routeros_scheme: 'http' },
      },
    ]);
  });

  it('gives target labels exactly as a scrape reads them back from the series: secrets redacted, values bounded (a generator)', () => {
    // /sd published the raw values: a password in a label in clear where the series carry [REDACTED:…], a value over
    // 1,024 characters whole where the series carry its start and a digest (found by review).
    const fragments = ['a', 'ams-', PASSWORD, '"', '\\', '\n', '\u0001', '\u007f', '\ud800', '\ud83d\ude00', 'x'.repeat(700)];
    const readBack = (pair: string): string => {
      const quoted = /^[a-z_]+="(.*)"$/s.exec(pair)?.[1] ?? '';
      return quoted.replace(/\\(["\\n])/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 6 }), (parts) => {
        const value = parts.join('');
        const config = testConfig({ defaults: { username: 'monitor', password: PASSWORD }, routers: [{ name: 'hq', url: 'https://192.0.2.1', labels: { note: value } }] });
        const [group] = sdGroupsOf(config.routers, undefined);
        const series = routerLabel('hq', { note: value });
        const note = series.slice(series.indexOf(',') + 1);
        expect(group?.labels['note']).toBe(readBack(note));
        expect(group?.labels['__meta_routeros_label_note']).toBe(readBack(note));
        expect(JSON.stringify(group)).not.toContain(PASSWORD);
      }),
      { numRuns: 200 },
    );
  });

  it('lists only the routers of its shard, and says which shard that is', () => {
    const config = fleet(12);
    const shard = { index: 1, count: 3 };
    const groups = sdGroupsOf(config.routers, shard);
    expect(groups.map((group) => group.targets[0])).toEqual(config.routers.filter((router) => inShard(router.name, shard)).map((router) => router.name));
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) expect(group.labels).toMatchObject({ __meta_routeros_shard_index: '1', __meta_routeros_shard_count: '3' });
  });
});

describe('GET /sd', () => {
  it('answers the JSON Prometheus expects: content type, array of groups, valid label names, no credentials', async () => {
    const base = await serve(fleet(3));
    const response = await fetch(`${base}/sd`, { headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(PROMETHEUS_SD_CONTENT_TYPE);
    const text = await response.text();
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('monitor');
    const groups = JSON.parse(text) as SdGroup[];
    expect(groups.map((group) => group.targets)).toEqual([['r0'], ['r1'], ['r2']]);
    for (const group of groups) {
      expect(group.labels).toMatchObject({ env: 'prod', router: group.targets[0], __meta_routeros_address: '127.0.0.1' });
      for (const name of Object.keys(group.labels)) expect(name).toMatch(LABEL_NAME);
    }
    const head = await fetch(`${base}/sd`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('is linked from the landing page, beside each router’s /probe', async () => {
    const base = await serve(fleet(2));
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('<a href="sd">/sd</a>');
    expect(page).toContain('<a href="metrics?scope=exporter">');
    for (const name of ['r0', 'r1']) expect(page).toContain(`<a href="probe?target=${name}">metrics</a>`);
  });

  it('is gzip-compressed when accepted, for a long list', async () => {
    const base = await serve(fleet(200));
    const response = await fetch(`${base}/sd`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(((await response.json()) as SdGroup[]).length).toBe(200);
  });

  it.each([
    ['--shard on the command line', (config: Config, i: number) => applyOverrides(config, { command: 'run', shard: `${i}/3` })],
    ['shard: in the config file', (config: Config, i: number) => applyOverrides({ ...config, shard: { index: i, count: 3 } }, { command: 'run' })],
    // An app given a sharded config without the CLI's filter (an embedder): /sd still lists only its shard.
    ['a sharded config, routers unfiltered', (config: Config, i: number) => ({ ...config, shard: { index: i, count: 3 } })],
  ])('with %s, each replica lists exactly the routers it polls, and the replicas every router once', async (_how, shardOf) => {
    const config = fleet(30);
    const listed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const replica = shardOf(config, i);
      const base = await serve(replica);
      const names = ((await (await fetch(`${base}/sd`)).json()) as SdGroup[]).map((group) => group.targets[0] as string);
      expect(names).toEqual(config.routers.filter((router) => inShard(router.name, { index: i, count: 3 })).map((router) => router.name));
      listed.push(...names);
      if (replica.routers.length === names.length) {
        // What it lists it can serve; a router of another shard is not here.
        for (const name of names) expect((await fetch(`${base}/probe?target=${name}`)).status, name).toBe(200);
        const elsewhere = config.routers.find((router) => !names.includes(router.name));
        expect((await fetch(`${base}/probe?target=${elsewhere?.name ?? ''}`)).status).toBe(404);
      }
    }
    expect([...listed].sort()).toEqual(config.routers.map((router) => router.name).sort());
  });
});

describe('the shipped multi-target scrape configs', () => {
  it.each(['multi-target.yml', 'multi-target-kubernetes.yml', 'multi-target-file-sd.yml'])('%s passes promtool check config', (file) => {
    const result = promtool('check', 'config', join(repoRoot, 'deploy/prometheus', file));
    expect(result.output).toContain('SUCCESS');
    expect(result.ok, result.output).toBe(true);
  });

  it('the compose override mounts multi-target.yml as Prometheus’ config', () => {
    const result = spawnSync(
      'docker-compose',
      ['-f', 'deploy/docker-compose.yml', '-f', 'deploy/docker-compose.multi-target.yml', 'config'],
      { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/deploy\/prometheus\/multi-target\.yml:\/etc\/prometheus\/prometheus\.yml/);
    expect(result.stdout).not.toMatch(/deploy\/prometheus\/prometheus\.yml:\/etc\/prometheus\/prometheus\.yml/);
  });
});
