/**
 * One verdict, two readers: routeros_wireguard_peer_healthy (the collector, at collection time) and /health (its
 * own clock) both come from analysis/peer.ts judgePeer. They once disagreed on an enabled peer of a disabled
 * interface with an old handshake: healthy 0 in /metrics, "not judged, interface_disabled" in /health.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTER_TEXT_LIMIT } from '../../src/util/text.js';
import { registerSecret } from '../../src/util/redact.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { handshakeExpectedBy, judgePeer, type PeerVerdict } from '../../src/analysis/peer.js';
import { testRouter } from '../helpers/config.js';
import { SITE_LINKS, systemOk, T0, wireguard, peerRecord } from '../health/snapshots.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { sampleText } from '../collectors/sample-text.js';
import { routerLabel } from '../../src/metrics/family.js';

const router = testRouter({ name: 'hq', url: 'https://192.0.2.1' }, SITE_LINKS);
const WG_OFF: RouterRecord = { name: 'wg-branch', 'public-key': 'S3rv3r', running: 'false', disabled: 'true', 'listen-port': '13231' };

function metricLines(interfaces: RouterRecord[], peers: RouterRecord[]): string {
  return sampleText(mapWireguard(interfaces, peers, routerLabel('hq'), router.health, T0).samples);
}

describe('peer verdict: one place for /metrics and /health', () => {
  it('does not judge an enabled peer of a disabled interface, in /metrics nor in /health', () => {
    const peers = [peerRecord('branch', '3h')];
    const text = metricLines([WG_OFF], peers);
    // Its other series stay; only the verdict is left out, as for disabled peers.
    expect(text).toContain('routeros_wireguard_peer_disabled{router="hq",interface="wg-branch"');
    expect(text).not.toContain('routeros_wireguard_peer_healthy');

    const health = evaluateRouter(router, [systemOk(), wireguard(router, [WG_OFF], peers)], T0);
    expect(health.health.peers).toMatchObject([{ judged: false, healthy: true, reason: 'interface_disabled', status: 'ok' }]);
  });

  it('still judges the same peer once its interface is enabled, alike in both', () => {
    const on: RouterRecord = { ...WG_OFF, running: 'true', disabled: 'false' };
    const peers = [peerRecord('branch', '3h')];
    expect(metricLines([on], peers)).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="branch"\} 0/);
    const health = evaluateRouter(router, [systemOk(), wireguard(router, [on], peers)], T0);
    expect(health.health.peers).toMatchObject([{ judged: true, healthy: false, reason: 'stale' }]);
  });

  it('gives a disabled peer on a disabled interface the reason disabled (its own state first)', () => {
    const verdict = judgePeer({ name: 'p', comment: undefined, disabled: true, handshakeAgeSeconds: 10_800, interfaceDisabled: true }, router.health);
    expect(verdict).toMatchObject({ judged: false, healthy: true, reason: 'disabled', state: 'disabled' });
  });

  it('names two peers of one interface that share a name by their keys too, in /health problems (found by review)', () => {
    const peers = [peerRecord('branch', '3h'), { ...peerRecord('branch', '3h'), 'public-key': 'Other-key-0000000000000000000000000000000=' }, peerRecord('solo', '3h')];
    const { problems } = evaluateRouter(router, [systemOk(), wireguard(router, [{ ...WG_OFF, running: 'true', disabled: 'false' }], peers)], T0);
    const subjects = problems.filter((problem) => problem.kind === 'peer-stale').map((problem) => problem.subject);
    expect(subjects).toEqual(['hq/wg-branch/branch (branch-k…)', 'hq/wg-branch/branch (Other-ke…)', 'hq/wg-branch/solo']);
  });

  it('tells apart names that read alike as written though they differ: past the cut, or in stripped characters (found by review)', () => {
    for (const [a, b] of [
      [`${'x'.repeat(400)}-site-A`, `${'x'.repeat(400)}-site-B`],
      ['branch\u0007', 'branch\u0008'],
    ] as const) {
      const peers = [peerRecord(a, '3h'), { ...peerRecord(b, '3h'), 'public-key': 'Other-key-0000000000000000000000000000000=' }];
      const { problems } = evaluateRouter(router, [systemOk(), wireguard(router, [{ ...WG_OFF, running: 'true', disabled: 'false' }], peers)], T0);
      const subjects = problems.filter((problem) => problem.kind === 'peer-stale').map((problem) => problem.subject);
      expect(new Set(subjects).size).toBe(2);
    }
  });

  it('tells apart plain names that an echoed password, written as a longer tag, pushes past the cut (found by review)', () => {
    registerSecret('Wien');
    const head = 'Wien-'.repeat(16);
    const peers = [peerRecord(`${head}site-A`, '3h'), { ...peerRecord(`${head}site-B`, '3h'), 'public-key': 'Other-key-0000000000000000000000000000000=' }];
    const { problems } = evaluateRouter(router, [systemOk(), wireguard(router, [{ ...WG_OFF, running: 'true', disabled: 'false' }], peers)], T0);
    const subjects = problems.filter((problem) => problem.kind === 'peer-stale').map((problem) => problem.subject);
    expect(subjects).toHaveLength(2);
    expect(new Set(subjects).size).toBe(2);
    expect(subjects.join('\n')).not.toContain('Wien');
  });

  it('property: tells them apart however long the shared name, the key start never cut away (found by review: a long shared comment read alike)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 900 }), fc.string({ maxLength: 30 }), (head, length, tail) => {
        const name = `${head}${'x'.repeat(length)}${tail}`;
        const peers = [peerRecord(name, '3h'), { ...peerRecord(name, '3h'), 'public-key': 'Other-key-0000000000000000000000000000000=' }];
        const { problems } = evaluateRouter(router, [systemOk(), wireguard(router, [{ ...WG_OFF, running: 'true', disabled: 'false' }], peers)], T0);
        const subjects = problems.filter((problem) => problem.kind === 'peer-stale').map((problem) => problem.subject);
        expect(subjects).toHaveLength(2);
        expect(new Set(subjects).size).toBe(2);
        for (const subject of subjects) expect(subject.length).toBeLessThanOrEqual(ROUTER_TEXT_LIMIT + 'hq/'.length + 40);
      }),
      { numRuns: 150 },
    );
  });
});

describe('expected-by: one reckoning for /metrics and /health', () => {
  const due = (reason: 'never_since_boot' | 'never' | 'ok', boundSeconds: number | undefined): Pick<PeerVerdict, 'reason' | 'boundSeconds'> => ({ reason, boundSeconds });

  it('counts from the handshake, or from an answered probe after it', () => {
    expect(handshakeExpectedBy(due('ok', 210), 1_000, undefined, undefined, undefined)).toBe(1_210);
    expect(handshakeExpectedBy(due('ok', 210), 1_000, 'ok', 1_500_900, undefined)).toBe(1_710);
    expect(handshakeExpectedBy(due('ok', 210), 1_000, 'partial', 1_500_900, undefined)).toBe(1_710);
    // A probe that got no reply, or one before the handshake, moves nothing.
    expect(handshakeExpectedBy(due('ok', 210), 1_000, 'failed', 1_500_900, undefined)).toBe(1_210);
    expect(handshakeExpectedBy(due('ok', 210), 1_000, 'ok', 900_000, undefined)).toBe(1_210);
  });

  it("counts from the router's start only while the verdict went by it", () => {
    expect(handshakeExpectedBy(due('never_since_boot', 210), undefined, undefined, undefined, 5_000)).toBe(5_210);
    // A boot months ago is no due time for a peer that has simply never shaken hands.
    expect(handshakeExpectedBy(due('never', 210), undefined, undefined, undefined, 5_000)).toBeUndefined();
  });

  it('has none when nothing is expected', () => {
    expect(handshakeExpectedBy(due('ok', undefined), 1_000, 'ok', 1_500_900, 5_000)).toBeUndefined();
  });
});

describe('peer verdict when whether rx or tx grew cannot be told (found by a hostile tester)', () => {
  const health = testRouter({ name: 'hq', url: 'https://192.0.2.1', health: { expect: { 'wg-always': 'always' }, handshake_stale_after: '2m' } }).health;
  const input = fc.record({
    name: fc.constantFrom('', 'branch'),
    comment: fc.constant(undefined),
    interface: fc.constantFrom('wg-auto', 'wg-always'),
    disabled: fc.boolean(),
    handshakeAgeSeconds: fc.option(fc.integer({ min: 0, max: 7_200 }), { nil: undefined }),
    keepaliveSeconds: fc.constantFrom(0, 0, 25),
    hasEndpoint: fc.boolean(),
    rxMoved: fc.boolean(),
    txMoved: fc.boolean(),
    rxMovedUnknown: fc.boolean(),
    txMovedUnknown: fc.boolean(),
    probe: fc.constantFrom(undefined, 'ok', 'failed', 'error'),
  });

  it('property: a judged verdict is the one every growth the unknown counters could have had gives', () => {
    fc.assert(
      fc.property(input, (peer) => {
        const verdict = judgePeer(peer, health);
        if (!verdict.judged) return;
        for (const rxMoved of peer.rxMovedUnknown ? [false, true] : [peer.rxMoved]) {
          for (const txMoved of peer.txMovedUnknown ? [false, true] : [peer.txMoved]) {
            const known = judgePeer({ ...peer, rxMoved, txMoved, rxMovedUnknown: false, txMovedUnknown: false }, health);
            expect({ state: known.state, healthy: known.healthy }).toEqual({ state: verdict.state, healthy: verdict.healthy });
          }
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('property: an unknown counter whose growth changes nothing leaves the verdict as it was', () => {
    fc.assert(
      fc.property(input, (peer) => {
        const known = { ...peer, rxMovedUnknown: false, txMovedUnknown: false };
        const verdicts = [false, true].flatMap((rxMoved) => [false, true].map((txMoved) => judgePeer({ ...known, rxMoved, txMoved }, health)));
        const alike = verdicts.every((verdict) => verdict.state === verdicts[0]?.state && verdict.healthy === verdicts[0]?.healthy);
        if (!alike) return;
        const unknown = judgePeer({ ...peer, rxMovedUnknown: true, txMovedUnknown: true }, health);
        expect({ state: unknown.state, healthy: unknown.healthy, judged: unknown.judged }).toEqual({
          state: verdicts[0]?.state,
          healthy: verdicts[0]?.healthy,
          judged: verdicts[0]?.judged,
        });
      }),
      { numRuns: 3_000 },
    );
  });

  it('does not judge a dead site link whose tx did not decode in the third run, in /metrics nor in /health', () => {
    const iface: RouterRecord = { name: 'wg-auto', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231' };
    // This side keeps sending to an endpoint (tx grows), nothing comes back, the handshake is 20 minutes old.
    const site = (tx: string): RouterRecord[] => [
      { interface: 'wg-auto', 'public-key': `${'S'.repeat(43)}=`, name: 'site', 'endpoint-address': '198.51.100.7', 'last-handshake': '20m', rx: '1000', tx },
    ];
    const at = T0 + 60_000;
    // Three runs, two windows: this side's sending unanswered makes the peer expected only when two windows in a row
    // show it (one never does: a healthy tunnel this side wakes, its response lost once, looks so), so the dead link is
    // down at the third run, and the tx that did not decode there is what its verdict hangs on.
    const runs = (third: string): { text: string; reason: string | undefined } => {
      const memory = new Map<string, number>();
      mapWireguard([iface], site('5000'), routerLabel('hq'), health, T0, memory);
      mapWireguard([iface], site('5092'), routerLabel('hq'), health, T0 + 30_000, memory);
      const { samples, data } = mapWireguard([iface], site(third), routerLabel('hq'), health, at, memory);
      const run: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.01, lastSuccessAt: at, chunks: [], data };
      const router = testRouter({ name: 'hq', url: 'https://192.0.2.1' });
      return { text: sampleText(samples), reason: evaluateRouter({ ...router, health }, [systemOk(at), run], at).health.peers[0]?.reason };
    };
    // Readable: this side sends and nothing answers, the link is down.
    const readable = runs('5184');
    expect(readable.text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*\} 0/);
    expect(readable.reason).toBe('stale');
    // Unreadable: not "did not grow" (idle, healthy), but not judged.
    const unread = runs('4883.0KiB');
    expect(unread.text).not.toContain('routeros_wireguard_peer_healthy');
    expect(unread.text).toMatch(/routeros_wireguard_peer_state\{[^}]*state="unknown"\} 1/);
    expect(unread.reason).toBe('unreadable');
  });
});

describe('a peer on an interface the interface list does not hold (found by a hostile tester)', () => {
  it('is not judged, and counted, in /metrics and /health: whether its interface runs cannot be told', () => {
    const listed: RouterRecord = { name: 'wg-road', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13232' };
    // A dead site link (20 minutes without a handshake, a keepalive) on wg-sites, which the reply leaves out.
    const peers: RouterRecord[] = [
      { interface: 'wg-sites', 'public-key': `${'D'.repeat(43)}=`, name: 'site-dead', 'endpoint-address': '198.51.100.7', 'last-handshake': '20m', 'persistent-keepalive': '25s', rx: '1', tx: '1' },
      { interface: 'wg-road', 'public-key': `${'L'.repeat(43)}=`, name: 'laptop', 'last-handshake': '20m', rx: '1', tx: '1' },
    ];
    const result = mapWireguard([listed], peers, routerLabel('hq'), router.health, T0);
    const text = sampleText(result.samples);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="site-dead"[^}]*state="unknown"\} 1/);
    expect(text).not.toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="site-dead"/);
    // Its neighbour on a listed interface is judged as before.
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="laptop"[^}]*\} 1/);
    expect(result.decodeErrors).toBe(1);
    expect(result.problems.join('\n')).toMatch(/is on "wg-sites", which interface\/wireguard does not list; not judged/);
    const health = evaluateRouter(router, [systemOk(), { ...wireguard(router, [listed], peers), data: result.data }], T0);
    expect(health.health.peers.find((peer) => peer.name === 'site-dead')).toMatchObject({ judged: false, reason: 'unreadable' });
    expect(health.health.status).toBe('degraded');
    // Said as what is not known, not as a value that did not decode (found by review).
    expect(health.problems.map((problem) => problem.text).join('\n')).toContain('cannot judge 1 peer: their disabled or persistent-keepalive did not decode, or whether their interface runs is not known');
  });
});
