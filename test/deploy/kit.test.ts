/**
 * The Docker and compose kit, cross-checked without Docker: every YAML parses, ports agree, mounted files exist,
 * the image runs the package's binary, the provisioned data source is the one the dashboards expect, and the
 * dashboards only query metrics the exporter serves (or the shipped recording rules define).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricNames } from '../../scripts/dashboards/promql.js';
import { allDashboardQueries, allVariableSelectors } from '../../scripts/dashboards/queries.js';
import { DEFAULT_DATASOURCE_NAME, DEFAULT_DATASOURCE_UID } from '../../scripts/dashboards/variables.js';
import { promtool, shippedDashboards } from '../dashboards/shipped.js';
import {
  EXPORTER_PORT,
  documentedConfigPaths,
  keyPaths,
  read,
  readYaml,
  readYamlDocuments,
  recordingRuleNames,
  repoRoot,
  servedMetricNames,
  usage,
} from './files.js';

interface Service {
  image?: string;
  command?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
}
interface Compose {
  services: Record<string, Service>;
  [key: string]: unknown;
}
const compose = readYaml<Compose>('deploy/docker-compose.yml');
const service = (name: string): Service => {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`compose has no service ${name}`);
  return found;
};
/** Bind mounts of a service: host path (resolved from deploy/) → container path. */
const binds = (name: string) =>
  (service(name).volumes ?? [])
    .map((v) => v.split(':'))
    .filter(([source]) => source?.startsWith('.') === true)
    .map(([source = '', target = '']) => ({ source: posix.normalize(`deploy/${source}`), target }));
const bindTarget = (name: string, source: string) => binds(name).find((b) => b.source === source)?.target;
const flag = (name: string, option: string) =>
  service(name).command?.find((arg) => arg.startsWith(`${option}=`))?.slice(option.length + 1);


function yamlFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

it.each([...yamlFiles('deploy'), ...yamlFiles('grafana/provisioning')])('%s parses as YAML', (path) => {
  expect(readYamlDocuments(path).length).toBeGreaterThan(0);
});

describe('docker compose', () => {
  it('runs the exporter in demo mode on port 9731, with a subcommand and flag its usage documents', () => {
    const command = service('routeros-exporter').command ?? [];
    expect(command).toEqual(['node', 'dist/main.js', 'demo', '--listen', `0.0.0.0:${EXPORTER_PORT}`]);
    const row = usage.split('\n').find((line) => line.trim().startsWith(`routeros-exporter ${command[2]} `));
    expect(row, 'the usage text documents the subcommand').toBeDefined();
    expect(row).toContain(command[3]);
    expect(service('routeros-exporter').ports).toContain(`127.0.0.1:${EXPORTER_PORT}:${EXPORTER_PORT}`);
    expect(read('deploy/docker-compose.yml')).toMatch(/#\s+- \.\/config\.yml:\/etc\/routeros-exporter\/config\.yml:ro/);
  });

  it('is in the Compose Specification format that Compose v1 (1.27+) and v2 both read: no name, no version', () => {
    expect(Object.keys(compose).filter((key) => !['services', 'volumes', 'networks'].includes(key))).toEqual([]);
  });

  it('publishes every port on 127.0.0.1 only (anonymous Grafana, Prometheus lifecycle API, no passwords)', () => {
    const ports = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    expect(ports.length).toBe(Object.keys(compose.services).length);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it("is accepted by Debian's docker-compose (Compose v1), which rejects a top-level name (the check is real)", () => {
    const config = (file: string) => {
      const result = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 });
      if (result.error !== undefined) {
        throw new Error(`docker-compose not runnable (${result.error.message}): apt-get install docker-compose (npm test's pretest and .ci/run install it as root)`);
      }
      return result;
    };
    const shipped = config(join(repoRoot, 'deploy/docker-compose.yml'));
    expect(shipped.status, shipped.stderr).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'compose-v1-'));
    try {
      const named = join(dir, 'docker-compose.yml');
      writeFileSync(named, `name: routeros-exporter\n${read('deploy/docker-compose.yml')}`);
      const rejected = config(named);
      expect(rejected.status).not.toBe(0);
      expect(rejected.stderr).toContain("'name' does not match");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mounts only files and folders that exist', () => {
    const all = Object.keys(compose.services).flatMap(binds);
    expect(all.length).toBeGreaterThan(6);
    for (const { source } of all) expect(existsSync(join(repoRoot, source)), source).toBe(true);
  });

  it('gives Prometheus its config where --config.file points, and the shipped rules where rule_files look', () => {
    expect(bindTarget('prometheus', 'deploy/prometheus/prometheus.yml')).toBe(flag('prometheus', '--config.file'));
    const config = readYaml<{ rule_files: string[] }>('deploy/prometheus/prometheus.yml');
    const globs = config.rule_files.map((g) => new RegExp(`^${g.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`));
    for (const rules of ['prometheus/alerts.yml', 'prometheus/rules.yml']) {
      const target = bindTarget('prometheus', rules);
      expect(target, rules).toBeDefined();
      expect(globs.some((g) => g.test(target ?? '')), `${target} matched by rule_files`).toBe(true);
    }
    expect(bindTarget('alertmanager', 'deploy/alertmanager/alertmanager.yml')).toBe(flag('alertmanager', '--config.file'));
  });

  it('has Prometheus scrape the exporter service on 9731 and alert to the alertmanager service', () => {
    interface PromConfig {
      global: { scrape_interval: string };
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
    }
    const config = readYaml<PromConfig>('deploy/prometheus/prometheus.yml');
    const job = config.scrape_configs.find((c) => c.job_name === 'routeros-exporter');
    expect(job?.static_configs.flatMap((s) => s.targets)).toEqual([`routeros-exporter:${EXPORTER_PORT}`]);
    const alertmanagers = config.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((s) => s.targets));
    expect(alertmanagers).toEqual(['alertmanager:9093']);
    expect(service('alertmanager').ports).toContain('127.0.0.1:9093:9093');
  });

  it('has a Prometheus config that promtool accepts', () => {
    const result = promtool('check', 'config', join(repoRoot, 'deploy/prometheus/prometheus.yml'));
    expect(result.ok, result.output).toBe(true);
  });

  it('inhibits by alert names that the shipped alert rules define', () => {
    const alertmanager = read('deploy/alertmanager/alertmanager.yml');
    const alerts = read('prometheus/alerts.yml');
    const names = [...alertmanager.matchAll(/alertname!?="(\w+)"/g)].map((m) => m[1] ?? '');
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(alerts, name).toContain(`alert: ${name}`);
  });

  it('lets a critical alert hide only warnings about its own object, over every alert the rules\' tests raise', () => {
    // Alertmanager's inhibition: the source and target match their matchers, and every `equal` label is the same
    // on both, a label absent on both counting as the same. The alerts are those promtool's tests expect, with the
    // labels they expect: the label sets the rules really give.
    interface Inhibit {
      source_matchers: string[];
      target_matchers: string[];
      equal: string[];
    }
    interface RuleTests {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: { exp_labels: Record<string, string> }[] }[] }[];
    }
    const { inhibit_rules: rules } = readYaml<{ inhibit_rules: Inhibit[] }>('deploy/alertmanager/alertmanager.yml');
    const alerts = readdirSync(join(repoRoot, 'prometheus/tests')).flatMap((file) =>
      readYaml<RuleTests>(`prometheus/tests/${file}`).tests.flatMap((test) =>
        (test.alert_rule_test ?? []).flatMap((case_) => (case_.exp_alerts ?? []).map((alert): Record<string, string> => ({ alertname: case_.alertname, ...alert.exp_labels }))),
      ),
    );
    const matches = (labels: Record<string, string>, matcher: string): boolean => {
      const [, name = '', op = '', value = ''] = /^(\w+)(=~|!=|=)"(.*)"$/.exec(matcher) ?? [];
      const actual = labels[name] ?? '';
      return op === '=' ? actual === value : op === '!=' ? actual !== value : new RegExp(`^(?:${value})$`).test(actual);
    };
    const inhibits = (rule: Inhibit, source: Record<string, string>, target: Record<string, string>): boolean =>
      rule.source_matchers.every((m) => matches(source, m)) &&
      rule.target_matchers.every((m) => matches(target, m)) &&
      rule.equal.every((label) => (source[label] ?? '') === (target[label] ?? ''));
    const OBJECT_LABELS = ['interface', 'public_key', 'target', 'name', 'sensor', 'check'];
    const critical = alerts.filter((alert) => alert.severity === 'critical' && alert.alertname !== 'RouterOSDown');
    const warnings = alerts.filter((alert) => alert.severity === 'warning');
    expect(critical.map((alert) => alert.alertname)).toContain('RouterOSPowerSupplyFailed');
    for (const source of critical) {
      for (const target of warnings) {
        if (!rules.some((rule) => inhibits(rule, source, target))) continue;
        // The exporter's own critical alert (no router) hides only the exporter's own warnings.
        if (source.router === undefined) {
          expect(target.router, `${source.alertname} hides ${target.alertname}`).toBeUndefined();
          continue;
        }
        // A router's: hidden only by an alert about an object (not the router as a whole), and the same object.
        const objects = OBJECT_LABELS.filter((label) => source[label] !== undefined);
        expect(objects.length, `${source.alertname} hides ${target.alertname}`).toBeGreaterThan(0);
        for (const label of objects) expect(target[label], `${source.alertname} hides ${target.alertname}`).toBe(source[label]);
      }
    }
    // One exporter's outage hides another's failed reload neither in one job nor across jobs (found by review).
    const exporterDown = { alertname: 'RouterOSExporterDown', severity: 'critical', job: 'routeros-exporter', instance: 'a:9731' };
    for (const other of [{ job: 'routeros-exporter', instance: 'b:9731' }, { job: 'routeros-exporter-2', instance: 'a:9731' }]) {
      const reload = { alertname: 'RouterOSExporterConfigReloadFailed', severity: 'warning', ...other };
      expect(rules.some((rule) => inhibits(rule, exporterDown, reload)), JSON.stringify(other)).toBe(false);
    }
    expect(rules.some((rule) => inhibits(rule, exporterDown, { ...exporterDown, alertname: 'RouterOSExporterConfigReloadFailed', severity: 'warning' }))).toBe(true);
    // An exporter down hides its job's missing shard (one page), and no router's failing probe target anywhere: an
    // inhibition with no label in common hid every job's (found by review).
    expect(rules.some((rule) => inhibits(rule, exporterDown, { alertname: 'RouterOSExporterShardMissing', severity: 'critical', job: 'routeros-exporter' }))).toBe(true);
    expect(rules.some((rule) => inhibits(rule, exporterDown, { alertname: 'RouterOSExporterShardMissing', severity: 'critical', job: 'other' }))).toBe(false);
    expect(rules.some((rule) => inhibits(rule, exporterDown, { alertname: 'RouterOSProbeFailing', severity: 'warning', job: 'routeros', instance: 'hq', router: 'hq' }))).toBe(false);
    // Failing probe targets are one notification per job, not per router.
    const { route } = readYaml<{ route: { routes: { matchers: string[]; group_by?: string[] }[] } }>('deploy/alertmanager/alertmanager.yml');
    const probeRoute = route.routes.find((r) => r.matchers.includes('alertname="RouterOSProbeFailing"'));
    expect(probeRoute?.group_by).toEqual(['alertname', 'job']);
    // A failed power supply hides neither the router's load nor another sensor's alert (it hid both).
    const psu: Record<string, string> = critical.find((alert) => alert.alertname === 'RouterOSPowerSupplyFailed') ?? {};
    for (const target of warnings.filter((alert) => alert.router === psu.router)) {
      expect(rules.some((rule) => inhibits(rule, { ...psu }, target)), target.alertname).toBe(false);
    }
  });
});

describe('Grafana provisioning', () => {
  interface Datasources {
    datasources: { name: string; uid: string; type: string; url: string; jsonData: { timeInterval: string } }[];
  }
  const [datasource] = readYaml<Datasources>('grafana/provisioning/datasources/prometheus.yml').datasources;
  const provider = readYaml<{ providers: { type: string; options: { path: string } }[] }>(
    'grafana/provisioning/dashboards/routeros.yml',
  ).providers[0];

  it('provisions the Prometheus data source the dashboards select by default', () => {
    expect(datasource).toMatchObject({ type: 'prometheus', uid: DEFAULT_DATASOURCE_UID, name: DEFAULT_DATASOURCE_NAME });
    for (const { dashboard } of shippedDashboards()) {
      const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
      expect(variable?.current.value, dashboard.uid).toBe(datasource?.uid);
      expect(variable?.current.text, dashboard.uid).toBe(datasource?.name);
    }
  });

  it('points the data source at the compose Prometheus, with its scrape interval', () => {
    expect(datasource?.url).toBe('http://prometheus:9090');
    expect(service('prometheus').ports).toContain('127.0.0.1:9090:9090');
    const config = readYaml<{ global: { scrape_interval: string } }>('deploy/prometheus/prometheus.yml');
    expect(datasource?.jsonData.timeInterval).toBe(config.global.scrape_interval);
  });

  it('loads dashboards from where compose mounts grafana/dashboards, home dashboard included', () => {
    expect(provider?.type).toBe('file');
    expect(bindTarget('grafana', 'grafana/dashboards')).toBe(provider?.options.path);
    expect(bindTarget('grafana', 'grafana/provisioning/datasources')).toBe('/etc/grafana/provisioning/datasources');
    expect(bindTarget('grafana', 'grafana/provisioning/dashboards')).toBe('/etc/grafana/provisioning/dashboards');
    const home = service('grafana').environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? '';
    expect(posix.dirname(home)).toBe(provider?.options.path);
    expect(existsSync(join(repoRoot, 'grafana/dashboards', posix.basename(home))), home).toBe(true);
  });
});

describe('the example config', () => {
  it('uses only keys of the documented complete example, listening on 9731', () => {
    const allowed = documentedConfigPaths();
    const example = readYaml<{ listen: string }>('deploy/config.example.yml');
    const paths = keyPaths(example);
    expect(paths.length).toBeGreaterThan(15);
    for (const path of paths) expect(allowed.has(path), path).toBe(true);
    expect(example.listen).toBe(`0.0.0.0:${EXPORTER_PORT}`);
  });
});

/**
 * Served metrics no dashboard needs to show, with the reason: both are additions beyond the metric contract about
 * how a collector copes, and the dashboards show the failure itself (routeros_collector_success and
 * routeros_collector_errors_total); the backoff and decode errors are for the runbook and ad-hoc queries.
 */
const NOT_ON_DASHBOARDS = new Set([
  'routeros_collector_backoff_seconds',
  'routeros_collector_decode_errors_total',
  // Flash wear (system/resource bad-blocks, write-sect-*): slow-moving health figures for ad-hoc queries and
  // a future capacity panel; no panel yet (the dashboards were being changed by other collectors at the time).
  'routeros_system_bad_blocks_ratio',
  'routeros_system_write_sectors_total',
  'routeros_system_write_sectors_since_reboot_total',
  // Routers from inventory (profiles): the demo has no profile, so a panel would show no data in the dashboard
  // end-to-end tests; for ad-hoc queries and alerts on refusals (docs/configuration.md, "Profiles").
  'routeros_exporter_discovered_targets',
  'routeros_exporter_discovered_targets_created_total',
  'routeros_exporter_discovered_targets_expired_total',
  'routeros_exporter_discovery_refused_total',
  // Process-wide, and 0 while routers keep their connections (the demo's always do): for ad-hoc queries when a
  // router's login log fills with REST logins (docs/deployment.md, "Connections the exporter keeps").
  'routeros_exporter_reads_resent_total',
  // The scheduler's caps, for ad-hoc queries and sizing: the waiting cap near 128 says many routers hang, the quick
  // cap's queue that never empties between ticks says the exporter cannot keep up (docs/deployment.md, sizing).
  'routeros_exporter_runs_in_flight',
  'routeros_exporter_runs_queued',
]);

describe('dashboard metrics', () => {
  const known = servedMetricNames();
  const recorded = recordingRuleNames();
  const exprs = [...allDashboardQueries().map((q) => q.expr), ...allVariableSelectors().map((v) => v.expr)];
  const used = new Set(exprs.flatMap(metricNames));

  it('knows what the exporter serves', () => {
    expect(known.size).toBeGreaterThan(30);
    expect(known).toContain('routeros_wireguard_peer_latest_handshake_timestamp_seconds');
    for (const name of NOT_ON_DASHBOARDS) expect(known, name).toContain(name);
  });

  it('queries only served metrics, recording rules, process_/nodejs_ defaults and up', () => {
    for (const name of used) {
      const ok = known.has(name) || recorded.has(name) || /^(process|nodejs)_/.test(name) || name === 'up';
      expect(ok, name).toBe(true);
    }
  });

  it('shows every served metric somewhere (but the listed exceptions)', () => {
    const unused = [...known].filter((name) => !used.has(name) && !NOT_ON_DASHBOARDS.has(name));
    expect(unused).toEqual([]);
  });
});
