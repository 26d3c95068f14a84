/**
 * /health's peer entries and its router verdict agree: a peer /health calls critical makes its router critical with
 * a problem naming it, and one it calls degraded makes its router at least degraded; `check` says the same. Found
 * by review: a peer down by its probe's age alone (no handshake read) was critical in its entry while its router
 * read ok (200, "1 peer healthy", check OK), because no problem was worded for it. Generated over handshake ages,
 * keepalives, expectations, probe outcomes and ages, and the time of judging.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck } from '../../src/health/nagios.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { probeKey } from '../../src/collectors/wireguard-probe.js';
import type { ProbeResult } from '../../src/collectors/wireguard-probe-reply.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { testRouter } from '../helpers/config.js';
import { peerRecord, systemOk, T0, WG_UP } from './snapshots.js';

const peerArb = fc.record({
  handshake: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: undefined }),
  keepalive: fc.constantFrom(0, 25),
  endpoint: fc.boolean(),
  probe: fc.option(fc.record({ outcome: fc.constantFrom('ok' as const, 'partial' as const, 'failed' as const, 'error' as const), age: fc.integer({ min: 0, max: 3_000 }) }), { nil: undefined }),
});

describe('/health peer entries and the router verdict', () => {
  it('never disagree: a critical peer makes a critical router naming it, a degraded one at least a degraded router', () => {
    fc.assert(
      fc.property(
        fc.array(peerArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('auto', 'always', 'on_demand'),
        fc.constantFrom('*/30 * * * * *', '0 */10 * * * *'),
        fc.integer({ min: 0, max: 1_500 }),
        (peers, expectation, schedule, later) => {
          const router = testRouter({ schedules: { wireguard: schedule } }, { health: { expect: { 'wg-branch': expectation }, probe_tunnels: 'on' } });
          const probes = new Map<string, ProbeResult>();
          const records = peers.map((peer, index) => {
            const record = peerRecord(`site-${index}`, peer.handshake === undefined ? undefined : `${peer.handshake}s`, {
              ...(peer.keepalive > 0 ? { 'persistent-keepalive': `${peer.keepalive}s` } : {}),
              ...(peer.endpoint ? { 'current-endpoint-address': '192.0.2.9', 'current-endpoint-port': '13231' } : {}),
            });
            if (peer.probe !== undefined) {
              probes.set(probeKey('wg-branch', record['public-key'] as string), {
                outcome: peer.probe.outcome,
                at: T0 - peer.probe.age * 1000,
                ...(peer.probe.outcome === 'error' ? {} : { lossRatio: peer.probe.outcome === 'ok' ? 0 : peer.probe.outcome === 'failed' ? 1 : 0.5 }),
              });
            }
            return record;
          });
          const data = mapWireguard([WG_UP], records, routerLabel('hq'), router.health, T0, new Map(), probes).data;
          const wireguard: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 1, lastSuccessAt: T0, chunks: [], data };
          const snapshots = [systemOk(T0), wireguard];
          const { health, problems } = evaluateRouter(router, snapshots, T0 + later * 1000);
          // check, from the same snapshots at the same time: CRITICAL (2) with a critical router, OK (0) only with an ok one.
          const checked = formatCheck(evaluateRouters([router], { snapshots: () => snapshots }, T0 + later * 1000), [router]).code;
          expect(checked, health.status).toBe(health.status === 'critical' ? 2 : health.status === 'ok' ? 0 : 1);
          for (const peer of health.peers) {
            const said = `${peer.name}: ${peer.state}/${peer.reason} ${peer.status}; router ${health.status}`;
            if (peer.status === 'critical') {
              expect(health.status, said).toBe('critical');
              expect(problems.some((problem) => problem.status === 'critical' && problem.subject.includes(peer.name)), said).toBe(true);
            }
            if (peer.status === 'degraded') expect(health.status, said).not.toBe('ok');
          }
        },
      ),
      { numRuns: 1_500 },
    );
  });
});
