/**
 * A process paused (a VM paused by its hypervisor, SIGSTOP, an event loop blocked) for N minutes, then resumed: the
 * wall and the monotonic clock jump forward by N minutes at once, and every timer fires late. Until the next
 * collections land, the data is N minutes old because the exporter did not run, not because a collection is overdue.
 */
import fc from 'fast-check';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_MS, PAUSE_TOLERANCE_MS, PauseWatch } from '../../src/util/pauses.js';
import { watchVerdicts } from '../../src/health/watch.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { probeKey } from '../../src/collectors/wireguard-probe.js';
import { routerLabel } from '../../src/metrics/family.js';
import { SnapshotStore, type JobSnapshot } from '../../src/metrics/store.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testConfig } from '../helpers/config.js';
import { peerRecord, systemOk, T0, WG_UP, wireguard } from './../health/snapshots.js';

const MINUTE = 60_000;
/** The monotonic clock at T0. */
const ELAPSED_T0 = 1_000_000;

interface Pause {
  /** ms after the wireguard read at T0 that the process stopped. */
  phase: number;
  /** How long it stayed stopped (ms). */
  length: number;
  /** Seconds the live peer's handshake was old at the read at T0. */
  handshakeAge: number;
}

/**
 * Router hq, one keepalive peer (25 s: due within 210 s) read at T0 with its handshake `handshakeAge` s old, system
 * runs every 15 s until the pause, the pause, then after the resume a system run landing first and the wireguard
 * run 2 s later. `tell`: the process tells its pause (WatchDeps.paused); `live`: the peer lives on. The verdict log's
 * messages.
 */
async function pausedLines({ phase, length, handshakeAge }: Pause, { tell = true, live = true }: { tell?: boolean; live?: boolean } = {}): Promise<string[]> {
  const config = testConfig({ defaults: { username: 'u', password: 'p', schedules: { wireguard: '*/15 * * * * *', system: '*/15 * * * * *' } }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] });
  const hq = config.routers[0];
  if (hq === undefined) throw new Error('no router');
  const messages: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) });
  const store = new SnapshotStore();
  store.plan(new Map([['hq', jobsFor(hq).map((job) => ({ collector: job.collector, job: job.job }))]]));
  let wall = T0;
  let elapsed = ELAPSED_T0;
  /** The process's own account of the time it did not run: the pause, once resumed (the heartbeat's lateness). */
  let pausedFrom: number | undefined;
  const paused = (since: number): number => (pausedFrom === undefined || !tell ? 0 : Math.max(0, pausedFrom + length - Math.max(since, pausedFrom)));
  const watch = watchVerdicts({ store, config: () => config, logger, now: () => wall, elapsed: () => elapsed, paused } as Parameters<typeof watchVerdicts>[0]);
  const land = async (run: JobSnapshot): Promise<void> => {
    store.record({ router: 'hq', collector: run.collector, job: run.job, ok: true, finishedAt: wall, finishedElapsed: elapsed, durationSeconds: 0.1, data: run.data });
    await watch.settled();
  };
  const peer = (age: number): JobSnapshot => wireguard(hq, [WG_UP], [peerRecord('branch', `${age}s`, { 'persistent-keepalive': '25s' })], wall);
  try {
    await land(systemOk(wall));
    await land(peer(handshakeAge));
    // System runs every 15 s until the pause (the wireguard runs between landed the same: left out).
    for (let at = 15_000; at <= phase; at += 15_000) {
      wall = T0 + at;
      elapsed = ELAPSED_T0 + at;
      await land(systemOk(wall));
    }
    pausedFrom = ELAPSED_T0 + phase;
    // Resumed: both clocks N minutes on.
    wall = T0 + phase + length;
    elapsed = ELAPSED_T0 + phase + length;
    await land(systemOk(wall));
    wall += 2_000;
    elapsed += 2_000;
    // Live, it shook hands 10 s before; dead since the read, its handshake is the one read then.
    await land(peer(live ? 10 : handshakeAge + Math.round((phase + length + 2_000) / 1000)));
  } finally {
    watch.stop();
  }
  return messages;
}

const pauses = fc.record({
  phase: fc.integer({ min: 0, max: 15_000 }),
  length: fc.integer({ min: 1_000, max: 120 * MINUTE }),
  handshakeAge: fc.integer({ min: 0, max: 120 }),
});

describe('a process paused N minutes, then resumed', () => {
  it('logs no stale line, and no recovery, for a live peer when a run lands before the wireguard run (property)', async () => {
    await fc.assert(
      fc.asyncProperty(pauses, async (pause) => {
        expect((await pausedLines(pause)).filter((message) => /stale|down|recovered/.test(message))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('logs a peer that died meanwhile stale once, when the wireguard run after the resume shows it, and no recovery (property)', async () => {
    await fc.assert(
      fc.asyncProperty(pauses, async (pause) => {
        const lines = (await pausedLines(pause, { live: false })).filter((message) => /stale|down|recovered/.test(message));
        // Its handshake, as the run after the resume reads it, against the keepalive bound (210 s).
        const age = pause.handshakeAge + Math.round((pause.phase + pause.length + 2_000) / 1000);
        expect(lines).toHaveLength(age > 210 ? 1 : 0);
        expect(lines.every((line) => line.includes('stale since'))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('told no pause (the process ran, the wireguard runs did not land), logs the peer stale on the clock as before', async () => {
    const lines = await pausedLines({ phase: 15_000, length: 10 * MINUTE, handshakeAge: 30 }, { tell: false });
    expect(lines.filter((message) => /stale since/.test(message))).toHaveLength(1);
  });
});

describe('PauseWatch: the time the process did not run, from its heartbeat', () => {
  /** A watch on a clock `t` the test moves; its heartbeat on fake timers, fired only as the test lets it. */
  function watched(): { watch: PauseWatch; run: (ms: number) => void; pause: (ms: number) => void; at: () => number } {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let t = 5_000;
    const watch = new PauseWatch(() => t);
    watch.start();
    return {
      watch,
      // Running: the clock and the timers move together, 100 ms at a time.
      run: (ms) => {
        for (let done = 0; done < ms; done += 100) {
          t += 100;
          vi.advanceTimersByTime(100);
        }
      },
      // Paused: the clock jumps, no timer fires.
      pause: (ms) => {
        t += ms;
      },
      at: () => t,
    };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('tells a pause of N while it lasts (before the late heartbeat) and after, and nothing of the time it ran (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: PAUSE_TOLERANCE_MS + HEARTBEAT_MS + 100, max: 3 * 3_600_000 }), fc.integer({ min: 0, max: 60_000 }), (before, length, after) => {
        const { watch, run, pause, at } = watched();
        try {
          const start = at();
          run(before);
          expect(watch.pausedSince(start)).toBe(0);
          const pausedAt = at();
          pause(length);
          // Resumed, a request served before the timers: the pause is under way, counted up to now.
          const told = watch.pausedSince(start);
          expect(told).toBeGreaterThanOrEqual(length - HEARTBEAT_MS);
          expect(told).toBeLessThanOrEqual(length);
          // Nothing of it before it began.
          expect(watch.pausedSince(pausedAt + length)).toBe(0);
          run(after);
          // The heartbeat fired late: the same pause, ended (here its timer fires on its fake schedule, up to a beat
          // after the resume, where a real one fires at once); since a moment within it, only its part after that.
          expect(watch.pausedSince(start)).toBeGreaterThanOrEqual(told);
          expect(watch.pausedSince(start)).toBeLessThanOrEqual(told + HEARTBEAT_MS);
          expect(watch.pausedSince(pausedAt + length / 2)).toBeLessThanOrEqual(Math.ceil(length / 2) + HEARTBEAT_MS);
          expect(watch.pausedSince(at())).toBe(0);
        } finally {
          watch.stop();
          vi.useRealTimers();
        }
      }),
      { numRuns: 100 },
    );
  });

  it('takes a loaded loop, late by up to its tolerance at every beat, for no pause, and tells nothing once stopped', () => {
    const { watch, run, pause, at } = watched();
    const start = at();
    // A minute of beats each 4 s late: a router silent meanwhile must still read down (its timeouts are its own).
    for (let beat = 0; beat < 60; beat++) {
      pause(PAUSE_TOLERANCE_MS - HEARTBEAT_MS);
      run(1_000);
    }
    expect(watch.pausedSince(start)).toBe(0);
    watch.stop();
    pause(600_000);
    expect(watch.pausedSince(start)).toBe(0);
  });
});

describe('/health just after a pause, a peer up on its tunnel probe', () => {
  const config = testConfig({
    defaults: { username: 'monitor', password: 'x' },
    routers: [{ name: 'hq', url: 'https://192.0.2.1', health: { expect: { 'wg-branch': 'always' }, probe: { 'wg-branch': 'on' } } }],
  });
  const router = config.routers[0] as (typeof config.routers)[number];
  const KEY = 'site-key-0000000000000000000000000000000=';
  /** An always-on link idle 20 minutes (no keepalive), its probe answered at the read at T0. */
  const snapshots = (): JobSnapshot[] => {
    const data = mapWireguard([WG_UP], [peerRecord('site', '20m')], routerLabel('hq'), router.health, T0, new Map(), new Map([[probeKey('wg-branch', KEY), { outcome: 'ok', lossRatio: 0, rttSeconds: 0.01 }]])).data;
    return [systemOk(T0), { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, finishedElapsed: ELAPSED_T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data }];
  };
  const stateAt = (after: number, paused: number): string | undefined =>
    evaluateRouter(router, snapshots(), T0 + after, undefined, { elapsedNow: ELAPSED_T0 + after, paused: () => paused }).health.peers[0]?.state;

  it('stays up over a pause of N minutes (it read down: the probe aged over the pause), and goes down by the clock the process ran (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: 120 * MINUTE }), fc.integer({ min: 0, max: 10 * MINUTE }), (pause, ran) => {
        // handshake_stale_after is 5 minutes: the probe proves a session for that long after it ran.
        expect(stateAt(pause + ran, pause)).toBe(ran <= 300_000 ? 'up' : 'down');
      }),
      { numRuns: 200 },
    );
  });
});
