/**
 * Names a router sends that differ only in characters the exposition cannot carry (controls, lone surrogates:
 * each comes out as U+FFFD) are one label value: they must make one series, never two of one identity, which
 * Prometheus rejects. Checked as a property over names drawn from such look-alikes, for every place a collector
 * groups by a router's name (system/health sensors; WireGuard interfaces, peers and probe skips).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapSystemHealth } from '../../src/collectors/system-health.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { planProbes } from '../../src/collectors/wireguard-probe.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from './sample-text.js';

/** Stand-ins that all come out as U+FFFD, and nothing. */
const LOOK_ALIKE = ['\r', '\t', '\u0000', '\u0001', '\u007f', '\uFFFD', '\uD800', ''];
const name = (stem: string): fc.Arbitrary<string> => fc.constantFrom(...LOOK_ALIKE).map((odd) => `${stem}${odd}`);

/** Every sample line's series (name and labels) once. */
function expectNoDuplicateSeries(text: string): void {
  const series = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
  expect(series.length).toBeGreaterThan(0);
  expect(series.filter((line, index) => series.indexOf(line) !== index)).toEqual([]);
}

describe('look-alike names make one series', () => {
  it('property: system/health sensors', () => {
    const row = fc.record({ name: name('cpu-temp'), type: fc.constantFrom('C', 'V', 'RPM'), value: fc.constantFrom('40', '12') });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), (rows) => {
        expectNoDuplicateSeries(sampleText(mapSystemHealth(rows as RouterRecord[], routerLabel('hq')).samples));
      }),
      { numRuns: 300 },
    );
  });

  it('property: WireGuard interfaces, peers and the probe skips counted per interface', () => {
    const health = testRouter({}, { health: { probe_tunnels: true, probe_count: 1 } }).health;
    const fleet = fc
      .uniqueArray(name('wg'), { minLength: 1, maxLength: 4 })
      .chain((names) => fc.tuple(fc.constant(names), fc.array(fc.record({ interface: fc.constantFrom(...names), key: fc.constantFrom('A', 'B') }), { minLength: 1, maxLength: 6 })));
    fc.assert(
      fc.property(fleet, ([ifaceNames, peerSpecs]) => {
        const interfaces: RouterRecord[] = ifaceNames.map((iface) => ({ name: iface, 'public-key': 'S3rv3r', disabled: 'false', running: 'true', 'listen-port': '13231' }));
        const peers: RouterRecord[] = peerSpecs.map(({ interface: iface, key }) => ({
          interface: iface,
          'public-key': `${key.repeat(43)}=`,
          'allowed-address': '',
          'persistent-keepalive': '25s',
          disabled: 'false',
        }));
        const { skipped } = planProbes(interfaces, peers, [], health);
        const result = mapWireguard(interfaces, peers, routerLabel('hq'), health, Date.UTC(2026, 0, 15), new Map(), skipped);
        const text = sampleText(result.samples);
        expect(text).toContain('routeros_wireguard_probe_skipped_peers{');
        expectNoDuplicateSeries(text);
      }),
      { numRuns: 300 },
    );
  });
});
