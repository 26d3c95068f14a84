/**
 * The tunnel probe in /health: per peer the probe's outcome (or why the peer was not probed), rtt and loss;
 * partial loss is up but noted (degraded, not critical); a fully lost probe with a fresh handshake is critical
 * for a peer expected up and only a state for one that is not.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { probeKey, type ProbeResult } from '../../src/collectors/wireguard-probe.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { testRouter } from '../helpers/config.js';
import { T0, WG_UP, peerRecord, systemOk } from '../health/snapshots.js';

const router = testRouter({}, { health: { expect: { 'wg-branch': 'always' }, probe: { 'wg-branch': 'on', road: 'on' } } });

function evaluate(probes: Record<string, ProbeResult>, at = T0 + 1_000): ReturnType<typeof evaluateRouter> {
  const peers = [peerRecord('site', '10s'), peerRecord('road', '10s'), peerRecord('subnet', '10s', { 'allowed-address': '192.168.4.0/24' })];
  // road is on another interface nobody expects anything of.
  peers[1] = { ...peers[1], interface: 'wg-road' };
  const interfaces = [WG_UP, { ...WG_UP, name: 'wg-road' }];
  const map = new Map(Object.entries(probes).map(([name, result]) => [probeKey(name === 'road' ? 'wg-road' : 'wg-branch', `${name}-key-0000000000000000000000000000000=`), result]));
  const data = mapWireguard(interfaces, peers, routerLabel('hq'), router.health, T0, new Map(), map).data;
  const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data };
  return evaluateRouter(router, [systemOk(), snapshot], at, { wireguard: true, setup: false, pings: false });
}

describe('/health and the tunnel probe', () => {
  it('shows outcome, rtt and loss per probed peer, and why a peer was not probed', () => {
    const { health } = evaluate({ site: { outcome: 'ok', lossRatio: 0, rttSeconds: 0.012 }, road: { outcome: 'ok', lossRatio: 0, rttSeconds: 0.03 }, subnet: { outcome: 'no_tunnel_address' } });
    expect(health.status).toBe('ok');
    expect(health.peers.map(({ name, probe, probeRttSeconds, probeLossRatio, status }) => ({ name, probe, probeRttSeconds, probeLossRatio, status }))).toEqual([
      { name: 'site', probe: 'ok', probeRttSeconds: 0.012, probeLossRatio: 0, status: 'ok' },
      { name: 'road', probe: 'ok', probeRttSeconds: 0.03, probeLossRatio: 0, status: 'ok' },
      { name: 'subnet', probe: 'no_tunnel_address', probeRttSeconds: undefined, probeLossRatio: undefined, status: 'ok' },
    ]);
  });

  it('partial loss: up and healthy, but the peer and the router are degraded with the loss said', () => {
    const { health } = evaluate({ site: { outcome: 'partial', lossRatio: 1 / 3, rttSeconds: 0.02 } });
    const site = health.peers.find((peer) => peer.name === 'site');
    expect(site).toMatchObject({ state: 'up', healthy: true, reason: 'probe_partial', status: 'degraded', probeLossRatio: 1 / 3 });
    expect(health.status).toBe('degraded');
    expect(health.reasons).toEqual(['hq/wg-branch/site: up, but probe lost 33 % through the tunnel']);
  });

  it('every ping lost with a fresh handshake: critical when expected up, a state only when not', () => {
    const { health } = evaluate({ site: { outcome: 'failed', lossRatio: 1 }, road: { outcome: 'failed', lossRatio: 1 } });
    expect(health.peers.find((peer) => peer.name === 'site')).toMatchObject({ state: 'blocked', healthy: false, status: 'critical', probe: 'failed' });
    expect(health.peers.find((peer) => peer.name === 'road')).toMatchObject({ state: 'blocked', healthy: true, status: 'ok', expected: false });
    expect(health.status).toBe('critical');
    expect(health.reasons).toEqual(['hq/wg-branch/site: handshake fresh but a ping through the tunnel got no reply: check allowed-address and routes']);
  });

  it('an answered probe counts for the life of the session it found, not for good: later the handshake\'s age decides (found by review)', () => {
    const ok = { site: { outcome: 'ok', lossRatio: 0, rttSeconds: 0.01 } } as const;
    // Within 185 s of the probe: up, however old the handshake read before it.
    expect(evaluate(ok, T0 + 185_000).health.peers.find((peer) => peer.name === 'site')).toMatchObject({ state: 'up', healthy: true });
    // A day later, with no collection since: the handshake read then is a day old, and nothing has answered since.
    const later = evaluate(ok, T0 + 86_400_000).health;
    expect(later.peers.find((peer) => peer.name === 'site')).toMatchObject({ state: 'down', healthy: false, status: 'critical' });
    expect(later.status).toBe('critical');
  });

  it("check: a blocked tunnel is said as one, not as a stale peer, and a probe-decided peer's bound is no threshold of its age (found by review)", () => {
    const peers = [peerRecord('site', '30s'), peerRecord('woken', '20m')];
    const probes = new Map([
      [probeKey('wg-branch', 'site-key-0000000000000000000000000000000='), { outcome: 'failed', lossRatio: 1 } as ProbeResult],
      [probeKey('wg-branch', 'woken-key-0000000000000000000000000000000='), { outcome: 'ok', lossRatio: 0, rttSeconds: 0.01 } as ProbeResult],
    ]);
    const data = mapWireguard([WG_UP], peers, routerLabel('hq'), router.health, T0, new Map(), probes).data;
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data };
    const out = formatCheck(evaluateRouters([router], { snapshots: () => [systemOk(), snapshot] }, T0 + 1_000), [router]);
    const [first] = out.text.split('\n');
    expect(first).toMatch(/^ROUTEROS CRITICAL - 1 tunnel passing no traffic: .*site \(probe failing\)/);
    expect(first).not.toContain('stale');
    expect(out.text).toMatch(/'[^']*site_handshake_age'=31s;;;0/);
    expect(out.text).toMatch(/'[^']*woken_handshake_age'=1201s;;;0/);
  });

  it('check: a peer down on an unanswered probe inside its bound has no threshold it sits inside (found by review)', () => {
    const probes = new Map([[probeKey('wg-branch', 'site-key-0000000000000000000000000000000='), { outcome: 'failed', lossRatio: 1 } as ProbeResult]]);
    const data = mapWireguard([WG_UP], [peerRecord('site', '3m16s')], routerLabel('hq'), router.health, T0, new Map(), probes).data;
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data };
    const evaluated = evaluateRouters([router], { snapshots: () => [systemOk(), snapshot] }, T0 + 1_000);
    expect(evaluated.evaluations[0]?.health.peers[0]).toMatchObject({ state: 'down', reason: 'stale', probe: 'failed' });
    expect(formatCheck(evaluated, [router]).text).toMatch(/'[^']*site_handshake_age'=197s;;;0/);
  });
});
