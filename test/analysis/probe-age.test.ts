/**
 * An answered tunnel probe is a session at the time it ran, as good as a handshake then: judged from that time by
 * the peer's own bound (found by review). A flat 185 s expiry made a peer whose probe answers every 5 minutes flap
 * down and up every cycle; a reused result was aged from the run that reused it; and a peer up on a partly
 * answered probe went stale by the clock without the verdict log saying so.
 */
import { describe, expect, it } from 'vitest';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { probeKey, type ProbeResult } from '../../src/collectors/wireguard-probe.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { verdictLog } from '../health/verdict-log.js';
import { testConfig } from '../helpers/config.js';
import { T0, WG_UP, peerRecord, systemOk } from '../health/snapshots.js';

const config = testConfig({
  defaults: { username: 'monitor', password: 'x' },
  routers: [{ name: 'hq', url: 'https://192.0.2.1', schedules: { wireguard: '0 */5 * * * *' }, health: { expect: { 'wg-branch': 'always' }, probe: { 'wg-branch': 'on' } } }],
});
const router = config.routers[0] as (typeof config.routers)[number];
const KEY = 'site-key-0000000000000000000000000000000=';
const parts = { wireguard: true, setup: false, pings: false };

function read(lastHandshake: string, probe: ProbeResult, at = T0): JobSnapshot {
  const data = mapWireguard([WG_UP], [peerRecord('site', lastHandshake)], routerLabel('hq'), router.health, at, new Map(), new Map([[probeKey('wg-branch', KEY), probe]])).data;
  return { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.01, lastSuccessAt: at, chunks: [], data };
}

function stateAt(snapshot: JobSnapshot, now: number): string | undefined {
  return evaluateRouter(router, [systemOk(T0), snapshot], now, parts).health.peers[0]?.state;
}

describe('an answered probe ages from when it ran, by the peer\'s own bound', () => {
  it('a peer whose probe answers every 5 minutes stays up between collections, its handshake 5 min old', () => {
    const snapshot = read('5m1s', { outcome: 'ok', lossRatio: 0, rttSeconds: 0.01 });
    for (const after of [0, 186_000, 299_000]) expect(stateAt(snapshot, T0 + after)).toBe('up');
    // With no collection since, past the bound (handshake_stale_after, 5 min) from the probe: down.
    expect(stateAt(snapshot, T0 + 302_000)).toBe('down');
  });

  it('a result a run reused is aged from the run that probed, not from the one that reused it', () => {
    const snapshot = read('20m', { outcome: 'ok', lossRatio: 0, rttSeconds: 0.01, at: T0 - 140_000 });
    expect(stateAt(snapshot, T0)).toBe('up');
    expect(stateAt(snapshot, T0 + 150_000)).toBe('up');
    expect(stateAt(snapshot, T0 + 170_000)).toBe('down');
  });

  it('a peer up on a partly answered probe that goes stale by the clock is logged so, once', async () => {
    const log = verdictLog(config);
    const land = log.record;
    land(systemOk(T0), T0);
    land(read('10m', { outcome: 'partial', lossRatio: 1 / 3, rttSeconds: 0.01 }), T0);
    // Runs of the system collector every 15 s judge the peers again once one is due.
    for (let at = T0 + 15_000; at <= T0 + 330_000; at += 15_000) land(systemOk(at), at);
    await log.settled();
    log.stop();
    expect(log.messages.filter((line) => line.startsWith('peer site') && line.includes('stale')).length).toBe(1);
  });
});
