/**
 * Peers age from their run on the monotonic clock, not by a wall clock that was stepped since. Stepped forward an
 * hour, every healthy peer read stale: /health critical and the verdict log a stale-then-recovered pair per peer
 * until the next collection; stepped back, a peer past its bound read at its age when collected: OK (found by
 * review). Aged by the wall clock when no monotonic reading is given, as a one-shot caller may.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { watchVerdicts } from '../../src/health/watch.js';
import { SnapshotStore, type JobSnapshot } from '../../src/metrics/store.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testConfig, testRouter } from '../helpers/config.js';
import { peerRecord, SITE_LINKS, systemOk, T0, WG_UP, wireguard } from './snapshots.js';

const HEALTH = { handshake_stale_after: '5m', ...SITE_LINKS.health };
const router = testRouter({}, { health: HEALTH });
/** The monotonic clock when the runs finished. */
const RUN_ELAPSED = 50_000;
const HOUR = 3_600_000;

/** A live peer (handshake a minute before the run) read at T0, its runs stamped on the monotonic clock too. */
function runs(): JobSnapshot[] {
  return [systemOk(), wireguard(router, [WG_UP], [peerRecord('branch', '1m')])].map((snapshot) => ({ ...snapshot, finishedElapsed: RUN_ELAPSED }));
}

function peerAt(now: number, elapsedNow?: number) {
  const { health } = evaluateRouter(router, runs(), now, undefined, elapsedNow === undefined ? {} : { elapsedNow });
  return { reason: health.peers[0]?.reason, age: health.peers[0]?.handshakeAgeSeconds, bound: health.peers[0]?.handshakeBoundSeconds, status: health.status };
}

describe('/health with the wall clock stepped after a collection', () => {
  it('forward an hour, 5 s later: the peer is a minute and 5 s old, up (it read stale)', () => {
    expect(peerAt(T0 + HOUR + 5_000, RUN_ELAPSED + 5_000)).toMatchObject({ reason: 'ok', age: 65, status: 'ok' });
  });

  it('back an hour, 6 minutes later: the peer is 7 minutes old, stale (it read OK at its age when collected)', () => {
    expect(peerAt(T0 - HOUR, RUN_ELAPSED + 6 * 60_000)).toMatchObject({ reason: 'stale', age: 420, status: 'critical' });
  });

  it('reads every peer the same whatever step the wall clock took, and its age on the monotonic clock (property)', () => {
    const DAY = 24 * HOUR;
    fc.assert(
      fc.property(fc.integer({ min: -30 * DAY, max: 30 * DAY }), fc.integer({ min: 0, max: 15 * 60_000 }), (step, since) => {
        const stepped = peerAt(T0 + step + since, RUN_ELAPSED + since);
        expect(stepped).toEqual(peerAt(T0 + since, RUN_ELAPSED + since));
        // The handshake was a minute before the run: its age is that and the time since, on the monotonic clock.
        const age = 60 + since / 1000;
        expect(stepped.age).toBeGreaterThanOrEqual(Math.floor(age));
        expect(stepped.age).toBeLessThanOrEqual(Math.ceil(age));
        // Never stale within the peer's bound, always stale at twice it (a grace past the bound is the judge's).
        const bound = stepped.bound ?? Number.NaN;
        expect(bound).toBeGreaterThan(0);
        if (age <= bound) expect(stepped.reason).toBe('ok');
        if (age >= 2 * bound) expect(stepped.reason).toBe('stale');
      }),
      { numRuns: 300 },
    );
  });

  it('not stepped: as by the wall clock, stale once past its bound', () => {
    expect(peerAt(T0 + 6 * 60_000, RUN_ELAPSED + 6 * 60_000)).toEqual(peerAt(T0 + 6 * 60_000));
    expect(peerAt(T0 + 6 * 60_000).reason).toBe('stale');
  });
});

/**
 * The verdict log over router hq: a live peer read at T0 (system and wireguard), then system runs landing at the
 * given wall and monotonic offsets from that read. The messages it logged.
 */
async function verdictLines(landings: readonly { wall: number; elapsed: number }[]): Promise<string[]> {
  const config = testConfig({ defaults: { username: 'u', password: 'p', health: HEALTH }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] });
  const hq = config.routers[0];
  if (hq === undefined) throw new Error('no router');
  const messages: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) });
  const store = new SnapshotStore();
  store.plan(new Map([['hq', jobsFor(hq).map((job) => ({ collector: job.collector, job: job.job }))]]));
  let wall = T0;
  let elapsed = RUN_ELAPSED;
  const watch = watchVerdicts({ store, config: () => config, logger, now: () => wall, elapsed: () => elapsed });
  const land = async (run: JobSnapshot | undefined): Promise<void> => {
    if (run === undefined) throw new Error('no run');
    store.record({ router: 'hq', collector: run.collector, job: run.job, ok: true, finishedAt: wall, finishedElapsed: elapsed, durationSeconds: 0.1, data: run.data });
    await watch.settled();
  };
  try {
    const [system, wg] = runs();
    await land(system);
    await land(wg);
    for (const landing of landings) {
      wall = T0 + landing.wall;
      elapsed = RUN_ELAPSED + landing.elapsed;
      await land(system);
    }
  } finally {
    watch.stop();
  }
  return messages;
}

describe('the verdict log with the wall clock stepped after a collection', () => {
  it('logs no stale peer when a later run lands an hour ahead on the wall clock, seconds later on the monotonic one', async () => {
    const lines = await verdictLines([{ wall: HOUR + 15_000, elapsed: 15_000 }]);
    expect(lines.filter((message) => /stale|down|recovered/.test(message))).toEqual([]);
  });

  it('logs the peer stale when its bound passes on the monotonic clock, as unstepped (stepped back, the log waited out the hour)', async () => {
    // System runs every 30 s for 10 minutes, no wireguard run landing.
    const cycles = (step: number) => Array.from({ length: 20 }, (_, index) => ({ wall: step + (index + 1) * 30_000, elapsed: (index + 1) * 30_000 }));
    const stale = (lines: string[]): string[] => lines.filter((message) => /stale/.test(message));
    expect(stale(await verdictLines(cycles(0)))).toHaveLength(1);
    expect(stale(await verdictLines(cycles(-HOUR)))).toHaveLength(1);
  });

  it('logs the same lines whatever steps the wall clock takes between the runs (property)', async () => {
    const DAY = 24 * HOUR;
    // Runs landing 1 s to 2 minutes apart on the monotonic clock, the wall clock stepped by up to a week either way
    // before any of them (the steps add up: the clock may go forward, back, and forward again).
    const landings = fc.array(fc.record({ gap: fc.integer({ min: 1_000, max: 120_000 }), step: fc.oneof(fc.constant(0), fc.integer({ min: -7 * DAY, max: 7 * DAY })) }), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(landings, async (drawn) => {
        let elapsed = 0;
        let stepped = 0;
        const plain: { wall: number; elapsed: number }[] = [];
        const shifted: { wall: number; elapsed: number }[] = [];
        for (const { gap, step } of drawn) {
          elapsed += gap;
          stepped += step;
          plain.push({ wall: elapsed, elapsed });
          shifted.push({ wall: stepped + elapsed, elapsed });
        }
        expect(await verdictLines(shifted)).toEqual(await verdictLines(plain));
      }),
      { numRuns: 60 },
    );
  });
});
