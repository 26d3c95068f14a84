/**
 * One instant, one verdict: the collector's verdict (routeros_wireguard_peer_state) and /health's at the moment of
 * the collection judge the same written handshake time, so they never fall on either side of a bound. They used
 * to a second apart: the collector judged the age it read, and wrote the previous run's time when the read was
 * within a second of it (a review found /health down and the series up, expected_by already past).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from '../collectors/sample-text.js';
import { T0, WG_UP, peerRecord, systemOk } from './snapshots.js';

function stateSeries(text: string): string | undefined {
  return /routeros_wireguard_peer_state\{[^}]*state="([a-z]+)"\} 1/.exec(text)?.[1];
}

/** Two runs reading one real handshake at `handshake` (Unix ms), each as RouterOS words it: whole seconds. */
function twoRuns(keepalive: number, handshake: number, first: number, second: number) {
  const router = testRouter({});
  const memory = new Map<string, number>();
  const read = (at: number) => {
    const seconds = Math.floor((at - handshake) / 1000);
    const peer = peerRecord('site', `${seconds}s`, { 'persistent-keepalive': `${keepalive}s` });
    return mapWireguard([WG_UP], [peer], routerLabel('hq'), router.health, at, memory);
  };
  read(first);
  const result = read(second);
  const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: second, durationSeconds: 0.01, lastSuccessAt: second, chunks: [], data: result.data };
  const health = evaluateRouter(router, [systemOk(second), snapshot], second, { wireguard: true, setup: false, pings: false }).health;
  return { series: stateSeries(sampleText(result.samples)), health: health.peers[0]?.state };
}

describe('the collector and /health at the moment of a collection', () => {
  it('the reviewer\'s case: read 1 s old, then 210 s old 209.1 s later, at a bound of 210 s', () => {
    const handshake = T0 - 800;
    const { series, health } = twoRuns(25, handshake, T0 + 400, T0 + 209_500);
    expect(health).toBe('down');
    expect(series).toBe(health);
  });

  it('property: any two reads of one handshake near the bound give one state in both places', () => {
    fc.assert(
      fc.property(fc.constantFrom(10, 25, 60), fc.integer({ min: -2_500, max: 2_500 }), fc.integer({ min: 1_000, max: 200_000 }), fc.integer({ min: 0, max: 999 }), (keepalive, nearBound, gap, offset) => {
        // The second read's true age lands within 2.5 s of the bound (180 + keepalive + 5 s).
        const secondAge = (185 + keepalive) * 1000 + nearBound;
        const first = T0 + offset;
        const { series, health } = twoRuns(keepalive, first + gap - secondAge, first, first + gap);
        expect(series).toBeDefined();
        expect(series).toBe(health);
      }),
      { numRuns: 500 },
    );
  });

  it('a wall clock stepped back after the collection never makes a peer younger than it was read: down stays down (found by review)', () => {
    const router = testRouter({});
    const result = mapWireguard([WG_UP], [peerRecord('site', '10m', { 'persistent-keepalive': '25s' })], routerLabel('hq'), router.health, T0);
    expect(stateSeries(sampleText(result.samples))).toBe('down');
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data: result.data };
    for (const now of [T0 - 3_600_000, T0 - 1_000, T0 + 1_000]) {
      const health = evaluateRouter(router, [systemOk(T0), snapshot], now, { wireguard: true, setup: false, pings: false }).health;
      expect(health.peers[0]).toMatchObject({ state: 'down', healthy: false });
      expect(health.peers[0]?.handshakeAgeSeconds).toBeGreaterThanOrEqual(600);
    }
  });
});
