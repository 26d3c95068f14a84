/**
 * A router that stops answering: what /health and the verdict log say of its peers and pings meanwhile (found by
 * review). Its peers are judged as its last read found them, not by the clock (every peer of a router timing out
 * was logged and checked down, their healthy series still 1); its pings are not judged, and their last states are
 * kept across the outage (a ping critical before it was never said recovered, or warned of twice).
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { verdictLog } from './verdict-log.js';
import { testConfig } from '../helpers/config.js';
import { failed, peerRecord, ping, pingJob, systemOk, T0, WG_UP, wireguard } from './snapshots.js';

const config = testConfig({
  defaults: { username: 'monitor', password: 'x' },
  routers: [{ name: 'hq', url: 'https://192.0.2.1', ping: [{ target: '10.10.0.2', name: 'branch-tunnel' }] }],
});
const router = config.routers[0] as (typeof config.routers)[number];

describe('a router that stops answering', () => {
  it.each([
    [0, 1],
    [100, 1],
  ])('a ping losing all before the outage and %i in 100 after: warned once (%i), said recovered only if it did', (after, warnings) => {
    const h = verdictLog(config);
    h.record(systemOk(T0), T0);
    h.record(ping(router, 0, 100, T0), T0);
    h.record(failed('system', 'system', 'timeout', T0 + 30_000, T0), T0 + 30_000);
    h.record(failed('ping', pingJob(router, 0), 'timeout', T0 + 30_000), T0 + 30_000);
    h.record(systemOk(T0 + 60_000), T0 + 60_000);
    h.record(ping(router, 0, after, T0 + 60_000), T0 + 60_000);
    const pingLines = h.messages.filter((line) => line.includes('branch-tunnel'));
    expect(pingLines.filter((line) => line.includes('100')).length).toBe(warnings);
    expect(pingLines.some((line) => line.includes('recovered'))).toBe(after === 0);
    h.stop();
  });

  it('its peers are judged as its last read found them: no peer goes down by the clock while nothing answers', () => {
    const peers = ['a', 'b'].map((name) => peerRecord(name, '30s', { 'persistent-keepalive': '25s' }));
    const read = wireguard(router, [WG_UP], peers, T0);
    const health = evaluateRouter(router, [failed('system', 'system', 'timeout', T0 + 260_000, T0), read], T0 + 260_000, { wireguard: true, setup: false, pings: true }).health;
    expect(health.up).toBe(false);
    expect(health.peers.map((peer) => [peer.name, peer.state])).toEqual([
      ['a', 'up'],
      ['b', 'up'],
    ]);
    expect(health.reasons).toHaveLength(1);
    expect(health.pings).toEqual([]);
  });
});
