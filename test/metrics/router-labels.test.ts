/**
 * A router's configured `labels` are on every series of that router — data and meta, right after `router`,
 * sorted — and on none of the exporter's own; a label change replaces the router's series.
 */
import { describe, expect, it } from 'vitest';
import { mapSystem } from '../../src/collectors/system.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { WIREGUARD_FAMILIES } from '../../src/collectors/wireguard.contract.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { routerLabel, seriesLabels } from '../../src/metrics/family.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { fixtureList, fixtureRecord } from '../helpers/fixtures.js';
import { testRouter } from '../helpers/config.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseOpenMetrics } from './openmetrics-parser.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const JOBS = [
  { collector: 'system', job: 'system' },
  { collector: 'wireguard', job: 'wireguard' },
] as const;

/**
 * A store with router hq planned under `labels`: a failed wireguard run (errors_total has a series only for a
 * reason that occurred), then one successful run per job.
 */
function storeWith(labels: Record<string, string>): { store: SnapshotStore; exposition: Exposition } {
  const store = new SnapshotStore();
  const label = routerLabel('hq', labels);
  store.plan(new Map([['hq', JOBS]]), new Map([['hq', label]]));
  store.record({ router: 'hq', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'timeout', finishedAt: NOW - 30_000, durationSeconds: 5 });
  record(store, label);
  return { store, exposition: new Exposition(store, new SelfMetrics({ version: 'test' })) };
}

function record(store: SnapshotStore, label: ReturnType<typeof routerLabel>): void {
  const base = { router: 'hq', ok: true, finishedAt: NOW, durationSeconds: 0.2 } as const;
  const system = mapSystem(fixtureRecord('system-resource-7.20-hap-ax2.json'), label, NOW);
  store.record({ ...base, collector: 'system', job: 'system', samples: system.samples, data: system.data });
  const wg = mapWireguard(fixtureList('wireguard-interfaces.json'), fixtureList('wireguard-peers.json'), label, testRouter().health, NOW);
  store.record({ ...base, collector: 'wireguard', job: 'wireguard', samples: wg.samples, data: wg.data });
}

function sampleLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('router labels', () => {
  it('follow router sorted by name, escaped, before the family labels', () => {
    const label = routerLabel('hq', { site: 'Zürich "N"', env: 'prod', rack: 'a\\b\nc' });
    expect(label).toBe('router="hq",env="prod",rack="a\\\\b\\nc",site="Zürich \\"N\\""');
    expect(seriesLabels(WIREGUARD_FAMILIES.wgInterfaceRunning, label, ['wg0'])).toBe(`${label},interface="wg0"`);
    // Same map in another order: same text, so a reordered config keeps its series.
    expect(routerLabel('hq', { rack: 'a\\b\nc', site: 'Zürich "N"', env: 'prod' })).toBe(label);
    expect(routerLabel('hq', {})).toBe('router="hq"');
  });

  it('are on every series of the router, data and meta (routeros_up, routeros_collector_*), none of the exporter own', async () => {
    const { exposition } = storeWith({ site: 'ams', env: 'prod' });
    const routerPart = sampleLines(exposition.routerText('text'));
    expect(routerPart.length).toBeGreaterThan(30);
    for (const line of routerPart) expect(line).toMatch(/^routeros_[a-z_]+\{router="hq",env="prod",site="ams"[,}]/);
    for (const name of ['routeros_up', 'routeros_collector_success', 'routeros_collector_errors_total', 'routeros_system_info', 'routeros_wireguard_peer_receive_bytes_total']) {
      expect(routerPart.some((line) => line.startsWith(`${name}{`)), name).toBe(true);
    }
    const whole = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    const own = sampleLines(whole).filter((line) => !line.startsWith('routeros_') || line.startsWith('routeros_exporter_'));
    expect(own.length).toBeGreaterThan(5);
    for (const line of own) expect(line).not.toContain('site=');
  });

  it('keep the exposition valid: promtool and the strict OpenMetrics parser accept it', async () => {
    const { exposition } = storeWith({ site: 'a "quoted"\nvalue\\', zone: '☃' });
    const result = await promtoolCheckMetrics(Buffer.concat((await exposition.render('text', false)).parts));
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
    const families = parseOpenMetrics(Buffer.concat((await exposition.render('openmetrics', false)).parts));
    const up = families.find((family) => family.name === 'routeros_up');
    expect(up?.samples[0]?.labels).toEqual({ router: 'hq', site: 'a "quoted"\nvalue\\', zone: '☃' });
  });

  it('changed on reload: the router starts afresh, no series stays under the old labels', () => {
    const { store, exposition } = storeWith({ site: 'ams' });
    expect(exposition.routerText('text')).toContain('site="ams"');
    const next = routerLabel('hq', { site: 'lon' });
    store.plan(new Map([['hq', JOBS]]), new Map([['hq', next]]));
    const replanned = exposition.routerText('text');
    expect(replanned).not.toContain('site="ams"');
    // Until the replaced jobs run, only the meta series that need no run are there, under the new labels.
    expect(replanned).toContain('routeros_collector_decode_errors_total{router="hq",site="lon",collector="system"} 0\n');
    expect(replanned).not.toContain('routeros_system_cpu_cores');
    record(store, next);
    expect(exposition.routerText('text')).toContain('routeros_system_cpu_cores{router="hq",site="lon"} 4\n');
  });

  it('changed on reload while a job fails: that job\'s failure carries over, told under the new labels until it runs again', () => {
    const { store, exposition } = storeWith({ site: 'ams' });
    store.record({ router: 'hq', collector: 'system', job: 'system', ok: false, reason: 'auth', finishedAt: NOW + 30_000, durationSeconds: 0.1 });
    const next = routerLabel('hq', { site: 'lon' });
    store.plan(new Map([['hq', JOBS]]), new Map([['hq', next]]));
    const replanned = exposition.routerText('text');
    expect(replanned).not.toContain('site="ams"');
    // Before, nothing: a backoff held the new job's run off for up to 10 minutes, in which alerts on routeros_up 0 resolved.
    expect(replanned).toContain('routeros_up{router="hq",site="lon"} 0\n');
    expect(replanned).toContain('routeros_collector_success{router="hq",site="lon",collector="system"} 0\n');
    // The job that succeeded had data series under the old labels: it starts afresh, as before.
    expect(replanned).not.toContain('routeros_wireguard_');
    expect(replanned).not.toContain('routeros_collector_success{router="hq",site="lon",collector="wireguard"}');
  });

  it('changed on reload while one job fails and the router is up: nothing carried, no routeros_up 0 (it read the router down)', () => {
    // No system collector: up once a job succeeded; its failures carried alone said "nothing succeeded, one failed".
    const jobs = [
      { collector: 'wireguard', job: 'wireguard' },
      { collector: 'interface', job: 'interface' },
    ] as const;
    const store = new SnapshotStore();
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    store.plan(new Map([['hq', jobs]]), new Map([['hq', routerLabel('hq', { site: 'ams' })]]));
    const wg = mapWireguard(fixtureList('wireguard-interfaces.json'), fixtureList('wireguard-peers.json'), routerLabel('hq', { site: 'ams' }), testRouter().health, NOW);
    store.record({ router: 'hq', collector: 'wireguard', job: 'wireguard', ok: true, finishedAt: NOW, durationSeconds: 0.2, samples: wg.samples, data: wg.data });
    store.record({ router: 'hq', collector: 'interface', job: 'interface', ok: false, reason: 'auth', finishedAt: NOW, durationSeconds: 0.1 });
    expect(exposition.routerText('text')).toContain('routeros_up{router="hq",site="ams"} 1\n');
    store.plan(new Map([['hq', jobs]]), new Map([['hq', routerLabel('hq', { site: 'lon' })]]));
    expect(exposition.routerText('text')).not.toContain('routeros_up{router="hq",site="lon"} 0');
  });

  it('unchanged on reload: the router keeps its snapshots', () => {
    const { store, exposition } = storeWith({ site: 'ams' });
    const before = exposition.routerText('text');
    store.plan(new Map([['hq', JOBS]]), new Map([['hq', routerLabel('hq', { site: 'ams' })]]));
    expect(exposition.routerText('text')).toBe(before);
  });
});
