/**
 * A peer's `persistent-keepalive`, read alike everywhere it is asked about: the liveness bound (the wireguard
 * mapping), the probe's selection under `probe_tunnels: on`, and the grace after a reboot (wireguard-boot.ts).
 * Three places had three readings of "off", and `00:00:00` or `0ms` was off to one and on to another (found by
 * review). Generated over the forms RouterOS writes a duration in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepaliveOff } from '../../src/routeros/decode.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { probeSelected } from '../../src/collectors/wireguard-probe.js';
import { uptimeWantedSteps } from '../../src/collectors/wireguard-boot.js';
import { finish } from '../../src/util/slices.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import type { RouterRecord } from '../../src/routeros/records.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `seconds` as RouterOS may write it: units (`1m5s`, `65s`, `65000ms`) or a clock (`00:01:05`). */
const written = (seconds: number, form: number): string => {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  switch (form % 5) {
    case 0:
      return `${seconds}s`;
    case 1:
      return `${pad(h)}:${pad(m)}:${pad(s)}`;
    case 2:
      return `${seconds * 1000}ms`;
    case 3:
      return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 || seconds === 0 ? `${s}s` : ''}`;
    default:
      return seconds === 0 ? '0' : `${seconds}s`;
  }
};

describe('persistent-keepalive, one reading', () => {
  it('is off or on alike to the liveness bound, the probe selection and the grace after a reboot', () => {
    const health = testRouter({}, { health: { probe_tunnels: true } }).health;
    const interfaces: RouterRecord[] = [{ name: 'wg0', running: 'true', disabled: 'false', 'public-key': 'S' }];
    fc.assert(
      fc.property(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 65_535 })), fc.nat(4), fc.boolean(), (seconds, form, absent) => {
        const value = seconds === 0 && absent ? undefined : written(seconds, form);
        const peer: RouterRecord = {
          interface: 'wg0',
          'public-key': 'K',
          'allowed-address': '10.0.0.2/32',
          disabled: 'false',
          rx: '0',
          tx: '0',
          ...(value === undefined ? {} : { 'persistent-keepalive': value }),
        };
        const on = seconds > 0;
        expect(keepaliveOff(value), String(value)).toBe(!on);
        const mapped = [...mapWireguard(interfaces, [peer], routerLabel('hq'), health, 1_800_000_000_000).data.peers][0];
        expect(mapped !== undefined && mapped.keepaliveSeconds > 0, String(value)).toBe(on);
        expect(probeSelected(peer, health), String(value)).toBe(on);
        // No handshake yet (a router just rebooted): a keepalive peer asks for the router's uptime, one without does not.
        expect(finish(uptimeWantedSteps([peer], testRouter().health)) > 0, String(value)).toBe(on);
      }),
      { numRuns: 500 },
    );
  });
});
