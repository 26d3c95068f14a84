/**
 * Counter windows shorter than the daemon's minimum (MIN_COUNTER_WINDOW_SECONDS) are invisible to movement: whatever
 * the gaps between reads (a reload's at-once run, a clock set back, a fast schedule, slow replies then fast ones),
 * the wall-clock steps and the peers that come and go, the daemon's counter memory tells at each read whose window is
 * long enough exactly what a memory shown only those reads tells (its window, movement, whether rx was an answer,
 * the window before), and at a shorter read what it told at the read before. Generated, seeded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CounterMemory } from '../../src/collectors/wireguard-counters.js';
import { MIN_COUNTER_WINDOW_SECONDS } from '../../src/analysis/liveness.js';

const KEYS = ['a', 'b', 'c', 'd'] as const;

/** One read: seconds since the read before on the monotonic clock, the wall clock's offset from it, each peer. */
interface Read {
  gapSeconds: number;
  wallOffsetSeconds: number;
  /** Per peer (KEYS' order): absent (not yet added), or its counters' growth and its handshake's age. */
  peers: ({ rxGrowth: number; txGrowth: number; handshakeAge: number | undefined } | undefined)[];
}

/** What a run tells of one peer: what the verdict reads. */
interface Told {
  rxMoved: boolean;
  txMoved: boolean;
  rxMovedUnknown: boolean;
  txMovedUnknown: boolean;
  rxUnanswered: boolean;
  unansweredBefore: boolean;
}

const growth = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 500 }), weight: 3 }, { arbitrary: fc.constant(-1), weight: 1 });
const peerRead = fc.record({
  rxGrowth: growth,
  txGrowth: growth,
  handshakeAge: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
});
const read: fc.Arbitrary<Read> = fc.record({
  gapSeconds: fc.oneof(fc.double({ min: 0.2, max: 12, noNaN: true }), fc.double({ min: 12, max: 45, noNaN: true })),
  wallOffsetSeconds: fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.integer({ min: -90, max: 90 }), weight: 1 }),
  peers: fc.tuple(peerRead, peerRead, peerRead, peerRead),
});
/** Reads, each peer present from its first appearance on (a peer that leaves a run is another matter: forgotten). */
const reads = fc
  .tuple(fc.array(read, { minLength: 2, maxLength: 14 }), fc.tuple(fc.nat(6), fc.nat(6), fc.nat(10), fc.nat(12)))
  .map(([list, appearAt]) => list.map((each, index) => ({ ...each, peers: each.peers.map((peer, which) => (index >= (appearAt[which] ?? 0) ? peer : undefined)) })));

/** Runs a memory over one read: what it tells of each present peer (by key), and whether the run carried. */
function runOnce(owner: object, elapsedMs: number, wallMs: number, counters: Map<string, { rx: number; tx: number }>, each: Read, min: number) {
  const present = KEYS.filter((_, which) => each.peers[which] !== undefined);
  const memory = new CounterMemory(owner, present.length, elapsedMs, wallMs, min);
  const told = new Map<string, Told>();
  for (const key of present) {
    const peer = each.peers[KEYS.indexOf(key)];
    const { rx, tx } = counters.get(key) as { rx: number; tx: number };
    const movement = memory.moved('wg0', key, rx, tx);
    const rxUnanswered = memory.rxUnanswered(movement, peer?.handshakeAge, false);
    const unansweredBefore = memory.unansweredBefore();
    memory.describe({
      name: key, comment: undefined, disabled: false, handshakeUnreadable: false, factsUnreadable: false, keepaliveSeconds: 0, hasEndpoint: true,
      ...movement, rxUnanswered, unansweredBefore, probe: undefined, probedAt: undefined, probeRttSeconds: undefined, probeLossRatio: undefined,
    });
    memory.noteBad(false);
    told.set(key, { ...movement, rxUnanswered, unansweredBefore });
  }
  memory.finish();
  return { told, carrying: memory.carrying, windowSeconds: memory.windowSeconds };
}

const NOTHING: Told = { rxMoved: false, txMoved: false, rxMovedUnknown: false, txMovedUnknown: false, rxUnanswered: false, unansweredBefore: false };

describe('counter windows shorter than the minimum', () => {
  it('are invisible: the long windows tell what a memory shown only their reads tells, the short ones repeat the read before', () => {
    fc.assert(
      fc.property(reads, (list) => {
        const daemon = {};
        const longOnly = {};
        const counters = new Map<string, { rx: number; tx: number }>();
        let elapsedMs = 7_000_000;
        let previous = new Map<string, Told>();
        for (const [index, each] of list.entries()) {
          elapsedMs += index === 0 ? 0 : each.gapSeconds * 1000;
          const wallMs = Date.UTC(2026, 11, 5) + elapsedMs + each.wallOffsetSeconds * 1000;
          for (const [which, key] of KEYS.entries()) {
            const peer = each.peers[which];
            if (peer === undefined) continue;
            const now = counters.get(key) ?? { rx: 1_000, tx: 1_000 };
            // -1: the counter was reset (a reboot, the peer re-created) and counts a little since.
            const next = (value: number, by: number): number => (by < 0 ? 40 : value + by);
            counters.set(key, { rx: next(now.rx, peer.rxGrowth), tx: next(now.tx, peer.txGrowth) });
          }
          const run = runOnce(daemon, elapsedMs, wallMs, counters, each, MIN_COUNTER_WINDOW_SECONDS);
          if (run.carrying) {
            expect(run.windowSeconds).toBeLessThan(MIN_COUNTER_WINDOW_SECONDS);
            for (const [key, told] of run.told) expect(told, `read ${index}, peer ${key}`).toEqual(previous.get(key) ?? NOTHING);
          } else {
            if (run.windowSeconds !== undefined) expect(run.windowSeconds).toBeGreaterThanOrEqual(MIN_COUNTER_WINDOW_SECONDS);
            const shown = runOnce(longOnly, elapsedMs, wallMs, counters, each, 0);
            expect(run.windowSeconds, `read ${index}`).toBe(shown.windowSeconds);
            expect(run.told, `read ${index}`).toEqual(shown.told);
          }
          previous = run.told;
        }
      }),
      { numRuns: 300 },
    );
  });
});
