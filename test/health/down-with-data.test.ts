/**
 * A router down by its system run, whose other jobs answered: /metrics keeps their series and its alerts go by
 * them, so /health, check and the verdict log judge them too (a review found /health empty of the peers /metrics
 * paged on). The jobs that failed as well are not listed one by one: the router being down says it.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { testRouter } from '../helpers/config.js';
import { failed, peerRecord, T0, WG_UP, wireguard } from './snapshots.js';

const router = testRouter({ collectors: { wireguard: true } });
const deadSite = peerRecord('site', '10m', { 'persistent-keepalive': '25s' });
const parts = { wireguard: true, setup: false, pings: false };

describe('a router down whose wireguard read answered', () => {
  it('is critical for being down, and its peers are judged as /metrics has them', () => {
    const { health } = evaluateRouter(router, [failed('system', 'system', 'parse', T0), wireguard(router, [WG_UP], [deadSite], T0)], T0 + 1_000, parts);
    expect(health.up).toBe(false);
    expect(health.status).toBe('critical');
    expect(health.peers).toMatchObject([{ name: 'site', state: 'down', healthy: false, status: 'critical' }]);
    expect(health.reasons[0]).toMatch(/down: .*\(parse\)$/);
    expect(health.reasons.some((reason) => reason.includes('site'))).toBe(true);
  });

  it('says only that it is down when the wireguard read failed too: no peers, no second failure listed', () => {
    const { health } = evaluateRouter(router, [failed('system', 'system', 'timeout', T0), failed('wireguard', 'wireguard', 'timeout', T0)], T0 + 1_000, parts);
    expect(health.peers).toEqual([]);
    expect(health.reasons).toHaveLength(1);
    expect(health.reasons[0]).toMatch(/down: no answer/);
  });
});
