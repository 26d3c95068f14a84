/**
 * Whether the wireguard job believes the start a router's uptime tells (collectors/wireguard-boot.ts): a keepalive
 * peer without a handshake is due from it, so an uptime that is not one must not keep a dead peer healthy, and a
 * real restart must not page every branch (found by review: a second restart of an upgrade, a slow reply, a frozen
 * uptime, an uptime of 0 s at every read).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { believedBootSteps, uptimeWantedSteps, youngRestartSeconds, type BootRead } from '../../src/collectors/wireguard-boot.js';
import { finish } from '../../src/util/slices.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { keepaliveBoundSeconds } from '../../src/analysis/liveness.js';
import { testRouter } from '../helpers/config.js';

const T = Date.UTC(2026, 10, 30, 12, 0, 0);
/** A read at `readAt` (ms) of a router up `uptime` s, its reply `delayMs` after the request. */
const read = (readAt: number, uptime: number, delayMs = 20): BootRead => ({ bootedAt: Math.round(readAt / 1000 - uptime), readAt, slackSeconds: delayMs / 1000 + 2 });
/** Two 15 s wireguard intervals are less than an hour: restarts within an hour of each other are young. */
const YOUNG = youngRestartSeconds(15);
const believe = (memory: Map<string, number>, boot: BootRead, peers: RouterRecord[] = [], young = YOUNG): number | undefined =>
  finish(believedBootSteps(boot, boot.readAt, peers, memory, young));

describe('the start a router tells', () => {
  it('a real restart after long up, then a second minutes later (an upgrade): both believed', () => {
    const memory = new Map<string, number>();
    expect(believe(memory, read(T, 900_000))).toBeDefined();
    // Restarted at T + 100 s; read at T + 115 s.
    expect(believe(memory, read(T + 115_000, 15))).toBe(Math.round(T / 1000 + 100));
    expect(believe(memory, read(T + 130_000, 30))).toBe(Math.round(T / 1000 + 100));
    // The RouterBOOT upgrade's restart at T + 430 s.
    expect(believe(memory, read(T + 445_000, 15))).toBe(Math.round(T / 1000 + 430));
    expect(believe(memory, read(T + 460_000, 30))).toBe(Math.round(T / 1000 + 430));
  });

  it('a slow reply moves the start by its delay: still the same start, not a restart', () => {
    const memory = new Map<string, number>();
    const boot = T / 1000 - 60;
    for (let i = 0; i < 5; i++) {
      // The uptime as of the request, the reply 2.5 s later.
      const asked = T + i * 15_000;
      const uptime = Math.floor(asked / 1000 - boot);
      expect(believe(memory, { bootedAt: Math.round((asked + 2_500) / 1000 - uptime), readAt: asked + 2_500, slackSeconds: 2.5 + 2 })).toBeDefined();
    }
    // One young start, counted once: never taken for another.
    expect(memory.get('boot.restarts')).toBe(1);
  });

  it('an uptime of 0 s at every read: believed for two young starts in a row, not a third, at any schedule', () => {
    // Reads 15 s apart: a start within a minute of the one believed is that one; every fifth read a new one.
    const memory = new Map<string, number>();
    const verdicts = Array.from({ length: 16 }, (_, i) => believe(memory, read(T + i * 15_000, 0)) !== undefined);
    expect(verdicts.slice(0, 9).every(Boolean)).toBe(true);
    expect(verdicts.slice(10)).toEqual(verdicts.slice(10).map(() => false));
    // Reads 10 minutes apart (a schedule that long made every read a first one; found by review).
    const hourly = new Map<string, number>();
    const young = youngRestartSeconds(600);
    expect(Array.from({ length: 6 }, (_, i) => believe(hourly, read(T + i * 600_000, 5), [], young) !== undefined)).toEqual([true, true, false, false, false, false]);
  });

  it('restarts every 11 minutes (a keepalive bound longer than that): the third is not believed', () => {
    const memory = new Map<string, number>();
    expect(Array.from({ length: 5 }, (_, i) => believe(memory, read(T + i * 660_000 + 30_000, 30)) !== undefined)).toEqual([true, true, false, false, false]);
  });

  it('restarts just past an hour apart, with a keepalive bound longer than that: the third is not believed (found by review)', () => {
    // A keepalive of 3,500 s: its bound is 3,685 s, and a restart every 3,601 s was believed for good.
    const young = youngRestartSeconds(60, keepaliveBoundSeconds(3_500));
    expect(young).toBe(2 * (185 + 3_500));
    const memory = new Map<string, number>();
    expect(Array.from({ length: 5 }, (_, i) => believe(memory, read(T + i * 3_601_000 + 30_000, 30), [], young) !== undefined)).toEqual([true, true, false, false, false]);
  });

  it('reads the uptime only for an enabled peer with a keepalive, or declared always up, and no handshake; knows the longest bound', () => {
    const peer = (extra: Record<string, string>): RouterRecord => ({ 'public-key': 'k', interface: 'wg0', ...extra });
    const health = testRouter({}, { health: { expect: { 'site-7': 'always' }, handshake_stale_after: '5m' } }).health;
    const wanted = (peers: RouterRecord[]): number => finish(uptimeWantedSteps(peers, health));
    expect(wanted([peer({ 'persistent-keepalive': '25s', 'last-handshake': '1m' }), peer({}), peer({ 'persistent-keepalive': '0s' })])).toBe(0);
    expect(wanted([peer({ 'persistent-keepalive': '25s', disabled: 'true' })])).toBe(0);
    expect(wanted([peer({ 'persistent-keepalive': '25s' }), peer({ 'persistent-keepalive': '1h' }), peer({ 'persistent-keepalive': '00:00:30' })])).toBe(keepaliveBoundSeconds(3_600));
    // One that does not decode asks for the read, and counts as an hour.
    expect(wanted([peer({ 'persistent-keepalive': 'soon' })])).toBe(keepaliveBoundSeconds(3_600));
    // A link declared always up without a keepalive here (the branch keeps it): its handshake_stale_after.
    expect(wanted([peer({ name: 'site-7' })])).toBe(300);
    expect(wanted([peer({ name: 'site-7', 'last-handshake': '10s' }), peer({ name: 'laptop' })])).toBe(0);
  });

  it('a third restart in a row is refused whether or not the exporter read the router before the first (found by review)', () => {
    const seenBefore = new Map<string, number>();
    believe(seenBefore, read(T, 900_000));
    const fresh = new Map<string, number>();
    for (const memory of [seenBefore, fresh]) {
      expect([100, 280, 460].map((at) => believe(memory, read(T + (at + 20) * 1000, 20)) !== undefined)).toEqual([true, true, false]);
    }
  });

  it('an uptime that stopped (or runs slow): not believed once the start it tells has drifted a minute', () => {
    const memory = new Map<string, number>();
    const verdicts = Array.from({ length: 8 }, (_, i) => believe(memory, read(T + i * 15_000, 900)) !== undefined);
    expect(verdicts).toEqual([true, true, true, true, true, false, false, false]);
  });

  it('the exporter\'s own clock stepped by seconds (NTP): the same start, still believed (found by review)', () => {
    const memory = new Map<string, number>();
    const boot = T / 1000 - 60;
    for (const [i, step] of [0, 0, -5, -5, 5, 5].entries()) {
      const at = T + i * 30_000 + step * 1000;
      // The router's uptime is its own; the exporter's clock is what stepped.
      const uptime = Math.floor((T + i * 30_000) / 1000 - boot);
      expect(believe(memory, { bootedAt: Math.round(at / 1000 - uptime), readAt: at, slackSeconds: 2.02 })).toBeDefined();
    }
  });

  it('a start a handshake disproves is not remembered: it costs a real restart after it nothing (found by review)', () => {
    const memory = new Map<string, number>();
    expect(believe(memory, read(T, 900_000))).toBeDefined();
    // Two reads telling fresh starts while a peer shows a handshake from before them: not believed, not counted.
    const shook = [{ 'last-handshake': '20m' }];
    expect(believe(memory, read(T + 600_000, 10), shook)).toBeUndefined();
    expect(believe(memory, read(T + 1_200_000, 10), shook)).toBeUndefined();
    // Then a real restart and the router's first reads after it: believed, the first restart of a series.
    expect(believe(memory, read(T + 1_800_000, 10))).toBe(Math.round((T + 1_800_000) / 1000 - 10));
    expect(memory.get('boot.restarts')).toBe(1);
  });

  it('a peer that shook hands before the start told: not believed', () => {
    const memory = new Map<string, number>();
    const peers: RouterRecord[] = [{ 'last-handshake': '5m' }, {}];
    expect(believe(memory, read(T, 60), peers)).toBeUndefined();
    expect(believe(new Map(), read(T, 600), peers)).toBeDefined();
  });

  it('property: an honest router, restarting at any time an hour after the last, read at any gaps with replies up to 4 s late: always believed, to within the slack', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ gap: fc.integer({ min: 1_000, max: 9_000_000 }), restart: fc.boolean(), delay: fc.integer({ min: 0, max: 4_000 }) }), { minLength: 1, maxLength: 40 }), (steps) => {
        const memory = new Map<string, number>();
        let now = T;
        let boot = T / 1000 - 1_000_000;
        let upAtLastRead = Infinity;
        for (const step of steps) {
          const before = now;
          now += step.gap;
          // A restart halfway through the gap, if it is an hour or more after the last (else it is one of a series of
          // restarts, which a third of in a row is not believed: the tests above).
          const at = (before + step.gap / 2) / 1000;
          if (step.restart && upAtLastRead >= 600 && at - boot >= YOUNG + 60) boot = at;
          const uptime = Math.floor(now / 1000 - boot);
          upAtLastRead = uptime;
          const told = believe(memory, { bootedAt: Math.round((now + step.delay) / 1000 - uptime), readAt: now + step.delay, slackSeconds: step.delay / 1000 + 2 });
          expect(told).toBeDefined();
          expect(Math.abs((told ?? 0) - boot)).toBeLessThanOrEqual(step.delay / 1000 + 2);
          now += step.delay;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: an uptime that lags the clock is not believed once its start has drifted past a minute and two reads\' slack from the first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 14 }), fc.integer({ min: 600, max: 10_000_000 }), fc.integer({ min: 2, max: 40 }), (lag, firstUptime, reads) => {
        const memory = new Map<string, number>();
        for (let i = 0; i < reads; i++) {
          const believed = believe(memory, read(T + i * 15_000, firstUptime + i * (15 - lag))) !== undefined;
          // Drifted by i × lag seconds (and up to 1 of rounding) from the start first told; a minute and two reads'
          // slack (~4 s) are allowed.
          if (i * lag > 65) expect(believed).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
