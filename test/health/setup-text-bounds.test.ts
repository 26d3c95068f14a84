/**
 * Set-up check details and fixes in /health name the router's interfaces: router text, bounded like every other
 * name /health shows. An interface named with a million characters made 3 MB of /health per interface (found by
 * review); a fix too long to show whole is left out, never cut (a command cut short must not reach a console).
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { testRouter } from '../helpers/config.js';
import { T0, WG_UP, setup, systemOk } from './snapshots.js';

const router = testRouter({ collectors: { wireguard: false, wireguard_setup: true } });

function healthOf(interfaceName: string) {
  const iface = { ...WG_UP, name: interfaceName };
  const snapshot = setup({ interfaces: [iface], peers: [], addresses: [], routes: [], filter: [] }, T0);
  return evaluateRouter(router, [systemOk(), snapshot], T0 + 1_000, { wireguard: false, setup: true, pings: false }).health;
}

describe('set-up check text in /health', () => {
  it('is bounded whatever the interface is called, and a fix too long to show whole is left out', () => {
    const health = healthOf(`wg-${'x'.repeat(1_000_000)}`);
    const body = JSON.stringify(health);
    expect(body.length).toBeLessThan(40_000);
    const failing = health.interfaces.flatMap((entry) => entry.setup ?? []).filter((check) => !check.ok);
    expect(failing.length).toBeGreaterThan(0);
    for (const check of failing) {
      expect((check.detail ?? '').length).toBeLessThanOrEqual(1_024);
      // A fix that would name it is not written (setup-fixes.ts: MAX_WRITTEN_CHARS), and the detail says why after
      // the cut; one that names no interface (the input accept) leaves the name out of its comment.
      if (check.fix === undefined) expect(check.detail).toMatch(/no fix is offered: the tunnel's name is 1000003 characters long\)$/);
      else expect(check.fix).not.toContain('xxx');
    }
  });

  it('an ordinary name keeps its detail and its whole fix', () => {
    const health = healthOf('wg-branch');
    const failing = health.interfaces.flatMap((entry) => entry.setup ?? []).filter((check) => !check.ok);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.some((check) => check.fix?.includes('wg-branch') === true)).toBe(true);
    expect(failing.every((check) => check.detail?.includes('wg-branch') === true)).toBe(true);
  });
});
