/**
 * Golden exposition: recorded router replies through the collectors and the store, compared byte for byte
 * with a committed file and checked by promtool. Regenerate with UPDATE_GOLDEN=1 after a deliberate change.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { mapSystem } from '../../src/collectors/system.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { mapPing } from '../../src/collectors/ping.js';
import { mapBandwidthTest } from '../../src/collectors/bandwidth-test.js';
import { mapSystemHealth } from '../../src/collectors/system-health.js';
import { mapFirmware } from '../../src/collectors/firmware.js';
import { mapInterfaces, mapLinkRates } from '../../src/collectors/interface.js';
import { fixtureList, fixtureRecord } from '../helpers/fixtures.js';
import { testRouter } from '../helpers/config.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseOpenMetrics } from './openmetrics-parser.js';
import { FAMILIES } from '../../src/metrics/families.js';
import { routerLabel } from '../../src/metrics/family.js';

const GOLDEN = new URL('../fixtures/golden/exposition.txt', import.meta.url);
/** The router part of the OpenMetrics exposition, ended with `# EOF` so that it is a whole exposition. */
const GOLDEN_OPENMETRICS = new URL('../fixtures/golden/exposition.openmetrics.txt', import.meta.url);
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

export function recordedExposition(): { exposition: Exposition; store: SnapshotStore } {
  const router = testRouter({
    ping: [{ target: '10.10.0.2', count: 3, name: 'branch-tunnel' }],
    bandwidth_test: [{ target: '10.10.0.2', duration: '2s' }],
  });
  const store = new SnapshotStore();
  store.plan(
    new Map([
      [
        'hq',
        [
          { collector: 'system', job: 'system' },
          { collector: 'interface', job: 'interface' },
          { collector: 'wireguard', job: 'wireguard' },
          { collector: 'ping', job: 'ping' },
          { collector: 'bandwidth_test', job: 'bandwidth_test' },
          { collector: 'health', job: 'health' },
          { collector: 'firmware', job: 'firmware' },
        ],
      ],
      ['branch', [{ collector: 'system', job: 'system' }, { collector: 'wireguard', job: 'wireguard' }]],
    ] as const),
  );
  const hq = routerLabel('hq');
  const base = { router: 'hq', ok: true, finishedAt: NOW, durationSeconds: 0.25 } as const;
  const system = mapSystem(fixtureRecord('system-resource-7.19-week-uptime.json'), hq);
  store.record({ ...base, collector: 'system', job: 'system', samples: system.samples, data: system.data });
  const interfaces = mapInterfaces(fixtureList('interface-7.23-chr.json'), hq, router.interfaces);
  mapLinkRates([{ name: 'ether1', status: 'link-ok', rate: '1Gbps' }], new Set(interfaces.ethernetUp.keys()), hq, interfaces.samples);
  store.record({ ...base, collector: 'interface', job: 'interface', samples: interfaces.samples, data: interfaces.data });
  const wg = mapWireguard(fixtureList('wireguard-interfaces.json'), fixtureList('wireguard-peers.json'), hq, router.health, NOW);
  store.record({ ...base, collector: 'wireguard', job: 'wireguard', samples: wg.samples, data: wg.data });
  const target = router.ping[0];
  const test = router.bandwidthTest[0];
  if (target === undefined || test === undefined) throw new Error('config');
  const ping = mapPing(fixtureList('ping-lossy.json'), target, hq, new Map());
  store.record({ ...base, collector: 'ping', job: 'ping', samples: ping.samples, data: ping.data });
  const bt = mapBandwidthTest(fixtureList('bandwidth-test.json'), test, hq, NOW);
  store.record({ ...base, collector: 'bandwidth_test', job: 'bandwidth_test', samples: bt.samples, data: bt.data });
  const health = mapSystemHealth(fixtureList('system-health-rows-7.x-ccr.json'), hq);
  store.record({ ...base, collector: 'health', job: 'health', samples: health.samples, data: health.data });
  const firmware = mapFirmware(fixtureRecord('system-routerboard-7.16-hap.json'), fixtureRecord('system-package-update-7.23-chr.json'), hq);
  store.record({ ...base, collector: 'firmware', job: 'firmware', samples: firmware.samples, data: firmware.data });
  // A second router that answered once and then timed out: up 0, data gone, error counted.
  store.record({ router: 'branch', collector: 'system', job: 'system', ok: true, finishedAt: NOW - 15_000, durationSeconds: 0.1, samples: system.samples });
  store.record({ router: 'branch', collector: 'system', job: 'system', ok: false, reason: 'timeout', finishedAt: NOW, durationSeconds: 10 });
  store.record({ router: 'branch', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'unsupported', finishedAt: NOW, durationSeconds: 0.01 });
  return { exposition: new Exposition(store, new SelfMetrics({ version: 'test' })), store };
}

describe('golden exposition', () => {
  it('matches the committed file byte for byte', () => {
    const { exposition } = recordedExposition();
    const text = exposition.routerText('text');
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, text);
    expect(existsSync(GOLDEN)).toBe(true);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('OpenMetrics: matches the committed file byte for byte and parses strictly', () => {
    const { exposition } = recordedExposition();
    const text = `${exposition.routerText('openmetrics')}# EOF\n`;
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN_OPENMETRICS, text);
    expect(existsSync(GOLDEN_OPENMETRICS)).toBe(true);
    expect(text).toBe(readFileSync(GOLDEN_OPENMETRICS, 'utf8'));
    const families = parseOpenMetrics(text);
    // Every family with samples in the recording is there, with its type, unit and help.
    expect(families.length).toBeGreaterThan(30);
    for (const family of families) {
      expect(family.help, family.name).toBeTruthy();
      expect(family.type, family.name).not.toBe('unknown');
    }
  });

  it('OpenMetrics: units, info families and HELP escaping as the specification has them', () => {
    const { exposition } = recordedExposition();
    const families = new Map(parseOpenMetrics(`${exposition.routerText('openmetrics')}# EOF\n`).map((family) => [family.name, family]));
    expect(families.get('routeros_collector_duration_seconds')?.unit).toBe('seconds');
    expect(families.get('routeros_wireguard_peer_receive_bytes')).toMatchObject({ type: 'counter', unit: 'bytes' });
    expect(families.get('routeros_system_cpu_load_ratio')?.unit).toBe('ratio');
    expect(families.get('routeros_system_cpu_frequency_hertz')?.unit).toBe('hertz');
    expect(families.get('routeros_bandwidth_test_receive_bytes_per_second')?.unit).toBe('bytes_per_second');
    expect(families.get('routeros_wireguard_peer_latest_handshake_timestamp_seconds')?.unit).toBe('seconds');
    expect(families.get('routeros_system_cpu_cores')?.unit).toBe('');
    expect(families.get('routeros_ping_packets_sent')).toMatchObject({ type: 'counter', unit: '' });
    for (const name of ['routeros_system', 'routeros_wireguard_interface', 'routeros_wireguard_peer']) {
      expect(families.get(name), name).toMatchObject({ type: 'info', unit: '' });
      expect(families.get(name)?.samples[0]?.name).toBe(`${name}_info`);
    }
    expect(families.get('routeros_bandwidth_test_success')?.help).toBe('1 if the last bandwidth test ended with status "done testing".');
    // Text 0.0.4 escapes only backslash and line feed in HELP: there the quotes stay as they are.
    expect(exposition.routerText('text')).toContain('# HELP routeros_bandwidth_test_success 1 if the last bandwidth test ended with status "done testing".\n');
  });

  it('OpenMetrics: every family name ending in a unit states it, in the whole body with the process metrics', async () => {
    const { exposition } = recordedExposition();
    const body = Buffer.concat((await exposition.render('openmetrics', false)).parts);
    const families = parseOpenMetrics(body);
    const byName = new Map(families.map((family) => [family.name, family]));
    for (const family of families) {
      expect(family.type, family.name).not.toBe('unknown');
      const unit = /_(seconds|bytes|ratio|hertz|celsius|volts|amperes|watts|bytes_per_second)$/.exec(family.name)?.[1] ?? '';
      if (family.type !== 'info' && !family.name.endsWith('_per_second')) expect(family.unit, family.name).toBe(unit);
    }
    expect(byName.get('process_cpu_seconds')).toMatchObject({ type: 'counter', unit: 'seconds' });
    expect(byName.get('process_resident_memory_bytes')).toMatchObject({ type: 'gauge', unit: 'bytes' });
    expect(byName.get('routeros_exporter_build')).toMatchObject({ type: 'info', unit: '' });
    expect(byName.get('routeros_exporter_build')?.samples[0]?.labels).toMatchObject({ version: 'test' });
    expect(byName.get('nodejs_version')).toMatchObject({ type: 'info' });
    expect(byName.get('routeros_exporter_config_last_reload_success_timestamp_seconds')?.unit).toBe('seconds');
    // The text format keeps the sample names as family names and types info families as gauges.
    const text = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    expect(text).toContain('# TYPE routeros_exporter_build_info gauge\n');
    expect(text).toContain('# TYPE routeros_system_info gauge\n');
    expect(text).not.toContain('# UNIT');
    expect(FAMILIES.filter((family) => family.type === 'info').map((family) => family.name)).toEqual(
      expect.arrayContaining(['routeros_system_info', 'routeros_wireguard_interface_info', 'routeros_wireguard_peer_info']),
    );
  });

  it('passes promtool check metrics, with the process metrics appended', async () => {
    const { exposition } = recordedExposition();
    const body = await exposition.render('text', false);
    const result = await promtoolCheckMetrics(Buffer.concat(body.parts));
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('a HEAD render has the length of the body without making it (no plain form is inflated)', async () => {
    const { exposition } = recordedExposition();
    for (const gzip of [false, true]) {
      const head = await exposition.render('openmetrics', gzip, true);
      const full = await exposition.render('openmetrics', gzip);
      expect(head.parts).toEqual([]);
      // Only the process metrics may have moved between the two renders.
      expect(Math.abs(head.length - full.length)).toBeLessThan(64);
      expect(full.length).toBe(Buffer.concat(full.parts).length);
    }
  });

  it('gzip and OpenMetrics bodies carry the same samples', async () => {
    const { exposition } = recordedExposition();
    const plain = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    const zipped = gunzipSync(Buffer.concat((await exposition.render('text', true)).parts)).toString('utf8');
    const samplesOf = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('routeros_') && !line.startsWith('routeros_exporter'));
    expect(samplesOf(zipped)).toEqual(samplesOf(plain));
    const om = Buffer.concat((await exposition.render('openmetrics', false)).parts).toString('utf8');
    expect(samplesOf(om)).toEqual(samplesOf(plain));
    expect(om).toContain('# TYPE routeros_wireguard_peer_receive_bytes counter\n');
    expect(om.endsWith('# EOF\n')).toBe(true);
    expect(om.match(/# EOF/g)).toHaveLength(1);
  });

  it('a failed run drops its data series and keeps the meta series', () => {
    const { exposition } = recordedExposition();
    const text = exposition.routerText('text');
    expect(text).toContain('routeros_up{router="branch"} 0\n');
    expect(text).not.toContain('routeros_system_cpu_cores{router="branch"}');
    expect(text).toContain('routeros_collector_errors_total{router="branch",collector="system",reason="timeout"} 1\n');
    expect(text).toContain('routeros_collector_success{router="branch",collector="wireguard"} 0\n');
    expect(text).toContain('routeros_collector_last_success_timestamp_seconds{router="branch",collector="system"} 1795262385\n');
  });
});
