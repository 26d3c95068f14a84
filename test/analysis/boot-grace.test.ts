/**
 * A reboot forgets every handshake. A hub's peers for branches behind NAT (no endpoint here, keepalive on) read
 * `never` until each branch tries again, within the keepalive bound; judged at once, a hub's reboot paged every such
 * branch as "never shook hands". With the router's start read, a peer without a handshake is due from the boot:
 * healthy (`never_since_boot`) until its bound has passed since then, in /metrics and in /health alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { judgePeer } from '../../src/analysis/peer.js';
import { keepaliveBoundSeconds } from '../../src/analysis/liveness.js';
import { believedBootSteps, youngRestartSeconds } from '../../src/collectors/wireguard-boot.js';
import { finish } from '../../src/util/slices.js';
import { routerLabel } from '../../src/metrics/family.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from '../collectors/sample-text.js';
import { peerRecord, systemOk, T0, WG_UP } from '../health/snapshots.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { verdictLog } from '../health/verdict-log.js';
import { testConfig } from '../helpers/config.js';

const router = testRouter({ name: 'hq', url: 'https://192.0.2.1' });
const BOUND = keepaliveBoundSeconds(25);
/** A hub's peer for a branch behind NAT: no endpoint, keepalive 25 s, no handshake since the boot. */
const BRANCH = peerRecord('branch', undefined, { 'persistent-keepalive': '25s' });
/** One nothing is expected of (no keepalive, no endpoint): never connected is fine with or without a boot. */
const LAPTOP = peerRecord('laptop', undefined);

function collected(bootedAt: number | undefined, peers: RouterRecord[] = [BRANCH, LAPTOP]): { text: string; snapshot: JobSnapshot } {
  const result = mapWireguard([WG_UP], peers, routerLabel('hq'), router.health, T0, undefined, undefined, bootedAt);
  const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data: result.data };
  return { text: sampleText(result.samples), snapshot };
}

describe('a peer without a handshake on a router that just started', () => {
  it('is healthy until its bound has passed since the boot, in /metrics and /health, with the boot as what it is due from', () => {
    const bootedAt = T0 / 1000 - 60;
    const { text, snapshot } = collected(bootedAt);
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="branch"\} 1\n/);
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="branch",state="never"\} 1\n/);
    expect(text).toMatch(new RegExp(`routeros_wireguard_peer_handshake_expected_by_timestamp_seconds\\{[^}]*name="branch"\\} ${bootedAt + BOUND}\\n`));
    // Its latest handshake still says "never": the boot is not a handshake.
    expect(text).toMatch(/routeros_wireguard_peer_latest_handshake_timestamp_seconds\{[^}]*name="branch"\} 0\n/);

    const health = evaluateRouter(router, [systemOk(), snapshot], T0).health;
    expect(health.status).toBe('ok');
    expect(health.peers.find((peer) => peer.name === 'branch')).toMatchObject({
      healthy: true,
      reason: 'never_since_boot',
      state: 'never',
      status: 'ok',
      latestHandshake: null,
      handshakeExpectedBy: new Date((bootedAt + BOUND) * 1000).toISOString(),
    });
    expect(health.peers.find((peer) => peer.name === 'laptop')).toMatchObject({ healthy: true, reason: 'never_not_expected' });
  });

  it('is down (never) once the bound has passed since the boot: in /health by the clock, and in the next collection', () => {
    const bootedAt = T0 / 1000 - 60;
    const { snapshot } = collected(bootedAt);
    // /health ages by the clock once a read is overdue (one wireguard interval, at most 2 minutes).
    const later = T0 + (BOUND - 60 + 1) * 1000 + 120_000;
    const health = evaluateRouter(router, [systemOk(later), snapshot], later).health;
    expect(health.status).toBe('critical');
    expect(health.peers.find((peer) => peer.name === 'branch')).toMatchObject({ healthy: false, reason: 'never', status: 'critical' });

    const { text } = collected(T0 / 1000 - BOUND - 1);
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="branch"\} 0\n/);
  });

  it('without the router\'s start read, is judged as before: never, and a problem', () => {
    const { text, snapshot } = collected(undefined);
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="branch"\} 0\n/);
    expect(text).not.toMatch(/routeros_wireguard_peer_handshake_expected_by_timestamp_seconds\{[^}]*name="branch"\}/);
    expect(evaluateRouter(router, [systemOk(), snapshot], T0).health.peers.find((peer) => peer.name === 'branch')).toMatchObject({ healthy: false, reason: 'never' });
  });

  it('property: healthy exactly while the time since the boot is within the bound, for any bound and any uptime', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_600 }), fc.integer({ min: 0, max: 10_000 }), fc.boolean(), (keepalive, upSeconds, endpoint) => {
        const verdict = judgePeer(
          { name: 'p', comment: undefined, disabled: false, handshakeAgeSeconds: undefined, keepaliveSeconds: keepalive, hasEndpoint: endpoint, upSeconds },
          router.health,
        );
        if (keepalive === 0) return verdict.reason === 'never_not_expected' && verdict.healthy;
        const bound = keepaliveBoundSeconds(keepalive);
        expect(verdict.boundSeconds).toBe(bound);
        expect(verdict.state).toBe('never');
        return upSeconds <= bound ? verdict.healthy && verdict.reason === 'never_since_boot' : !verdict.healthy && verdict.reason === 'never';
      }),
      { numRuns: 500 },
    );
  });

  it('a peer with a handshake is judged by it, whatever the boot says', () => {
    const verdict = judgePeer({ name: 'p', comment: undefined, disabled: false, handshakeAgeSeconds: BOUND + 1, keepaliveSeconds: 25, upSeconds: 10 }, router.health);
    expect(verdict).toMatchObject({ state: 'down', healthy: false, reason: 'stale' });
  });

  it('is logged as without a handshake since the start once its bound has passed since then, by the next run of any collector, not the next wireguard run (found by review)', async () => {
    // An hourly wireguard schedule; system runs every 15 s.
    const hourly = testConfig({ defaults: { username: 'monitor', password: 'x' }, routers: [{ name: 'hq', url: 'https://192.0.2.1', schedules: { wireguard: '0 0 * * * *' } }] });
    const log = verdictLog(hourly);
    log.record(systemOk(T0), T0);
    log.record(collected(T0 / 1000 - 60, [BRANCH]).snapshot, T0);
    for (let at = T0 + 15_000; at <= T0 + (BOUND - 60 + 180) * 1000; at += 15_000) log.record(systemOk(at), at);
    await log.settled();
    log.stop();
    // Not "never": it may have shaken hands before the restart.
    expect(log.messages.filter((line) => line.includes('branch') && line.includes('has not shaken hands since the router started at'))).toHaveLength(1);
    expect(log.messages.filter((line) => line.includes('never shaken hands'))).toEqual([]);
  });
});

describe('runs that could not read the router\'s start', () => {
  const healthyAt = (owner: object, at: number, bootedAt: number | undefined): string | undefined =>
    /routeros_wireguard_peer_healthy\{[^}]*name="branch"\} (\d)/.exec(sampleText(mapWireguard([WG_UP], [BRANCH], routerLabel('hq'), router.health, at, owner as Map<string, number>, undefined, bootedAt).samples))?.[1];

  it('take nothing from a grace: after failed reads of the uptime, a branch in its grace is healthy again (found by review: one failed read paged it until it shook hands)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 12 }), (readOk) => {
        const owner = new Map<string, number>();
        const boot = T0 / 1000 - 5;
        readOk.forEach((ok, run) => {
          const at = T0 + run * 15_000;
          // Within the 210 s bound at every run (5 s + 11 × 15 s): healthy whenever the start is known, never otherwise.
          expect(healthyAt(owner, at, ok ? boot : undefined)).toBe(ok ? '1' : '0');
        });
      }),
      { numRuns: 200 },
    );
  });

  it('take nothing from what was known either: a branch down before a restart gets no grace after it, failed reads between or not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), (failedReads) => {
        const owner = new Map<string, number>();
        // An hour after the router's last start, the branch has never shaken hands: down.
        const oldBoot = T0 / 1000 - 3_600;
        expect(healthyAt(owner, T0, oldBoot)).toBe('0');
        for (let run = 1; run <= failedReads; run++) expect(healthyAt(owner, T0 + run * 15_000, undefined)).toBe('0');
        // The router restarts: the branch was a problem before it, so the restart is no reason to wait.
        const at = T0 + (failedReads + 1) * 15_000;
        expect(healthyAt(owner, at, at / 1000 - 10)).toBe('0');
      }),
      { numRuns: 20 },
    );
  });
});

describe('a link declared always up, without a keepalive on this side (found by review: a hub\'s reboot paged every one)', () => {
  const hub = testRouter({ name: 'hq', url: 'https://192.0.2.1' }, { health: { expect: { 'site-7': 'always' }, handshake_stale_after: '5m' } });
  const SITE = peerRecord('site-7', undefined);

  it('is due from the router\'s start within its handshake_stale_after, in /metrics and /health alike; down after it', () => {
    const bootedAt = T0 / 1000 - 60;
    const result = mapWireguard([WG_UP], [SITE, LAPTOP], routerLabel('hq'), hub.health, T0, undefined, undefined, bootedAt);
    const text = sampleText(result.samples);
    expect(text).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="site-7"\} 1\n/);
    expect(text).toMatch(new RegExp(`routeros_wireguard_peer_handshake_expected_by_timestamp_seconds\\{[^}]*name="site-7"\\} ${bootedAt + 300}\\n`));
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data: result.data };
    expect(evaluateRouter(hub, [systemOk(), snapshot], T0).health.peers.find((peer) => peer.name === 'site-7')).toMatchObject({ healthy: true, reason: 'never_since_boot' });

    const late = sampleText(mapWireguard([WG_UP], [SITE], routerLabel('hq'), hub.health, T0, undefined, undefined, T0 / 1000 - 301).samples);
    expect(late).toMatch(/routeros_wireguard_peer_healthy\{[^}]*name="site-7"\} 0\n/);
    // Not declared: nothing makes it try again, and it gets no grace (a road warrior is idle anyway).
    expect(text).toMatch(/routeros_wireguard_peer_state\{[^}]*name="laptop",state="never"\} 1\n/);
  });
});

describe('a start read and not believed', () => {
  it('says what a run judges: a branch dead through a refused restart loop gets no grace at the next believed restart (found by review)', () => {
    const memory = new Map<string, number>();
    const young = youngRestartSeconds(60, keepaliveBoundSeconds(25));
    const run = (at: number, upSeconds: number, handshake: string | undefined): string => {
      const peers = [peerRecord('branch', handshake, { 'persistent-keepalive': '25s' })];
      const bootedAt = finish(believedBootSteps({ bootedAt: Math.round(at / 1000 - upSeconds), readAt: at, slackSeconds: 2 }, at, peers, memory, young));
      // The uptime was read every time: a start not believed is not an unread one.
      const text = sampleText(mapWireguard([WG_UP], peers, routerLabel('hq'), router.health, at, memory, undefined, bootedAt, false).samples);
      return `${bootedAt === undefined ? 'refused' : 'believed'} ${/routeros_wireguard_peer_healthy\{[^}]*\} (\d)/.exec(text)?.[1] ?? '?'}`;
    };
    expect(run(T0, 172_800, '10s')).toBe('believed 1');
    // Three restarts ten minutes apart: the third is a loop, not believed. The branch never comes back.
    expect(run(T0 + 130_000, 30, undefined)).toBe('believed 1');
    expect(run(T0 + 730_000, 30, undefined)).toBe('believed 1');
    expect(run(T0 + 1_330_000, 30, undefined)).toBe('refused 0');
    for (let k = 1; k <= 120; k++) expect(run(T0 + (1_330 + 240 * k) * 1000, 30 + 240 * k, undefined)).toBe('refused 0');
    // One more restart, believed: the branch was down for hours before it, and stays a problem.
    expect(run(T0 + (1_330 + 240 * 121) * 1000, 30, undefined)).toBe('believed 0');
  });
});
