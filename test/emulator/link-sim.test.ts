/** LinkSim properties: counters and link-downs never go back between reboots, whatever happens. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinkSim } from '../../src/emulator/sim/link-sim.js';

type Op = { kind: 'wait'; s: number } | { kind: 'link'; up: boolean } | { kind: 'disable' } | { kind: 'enable' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('wait' as const), s: fc.integer({ min: 0, max: 100_000 }) }),
  fc.record({ kind: fc.constant('link' as const), up: fc.boolean() }),
  fc.record({ kind: fc.constant('disable' as const) }),
  fc.record({ kind: fc.constant('enable' as const) }),
);

describe('LinkSim', () => {
  it('counters, packets and link-downs are monotonic; no traffic while down or disabled', () => {
    let runs = 0;
    const started = Date.now();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.array(fc.tuple(fc.integer({ min: -1000, max: 100_000 }), fc.integer({ min: 1, max: 5000 })), { maxLength: 5 }),
        fc.array(op, { maxLength: 40 }),
        (rate, downs, ops) => {
          runs++;
          const boot = 1_000_000;
          const sim = new LinkSim(
            { rxRate: rate, txRate: rate, rxPacketSize: 900, txPacketSize: 600, errorsPerMillion: 5, upDelayMs: 2000, downs: downs.map(([at, len]) => [boot + at * 1000, boot + (at + len) * 1000]) },
            boot,
          );
          let t = boot;
          let prev = sim.counters(t);
          let prevDowns = sim.linkDowns(t);
          let disabled = false;
          for (const o of ops) {
            if (o.kind === 'wait') {
              const upBefore = sim.up(t);
              t += o.s * 1000;
              const c = sim.counters(t);
              if (o.s > 0 && upBefore && !disabled && sim.up(t) && sim.linkDowns(t) === prevDowns && rate >= 1000) expect(c.rxByte).toBeGreaterThan(prev.rxByte);
              if (disabled) expect(c.rxByte).toBe(prev.rxByte);
            } else if (o.kind === 'link') sim.setLink(o.up, t);
            else if (o.kind === 'disable') {
              sim.disable(t);
              disabled = true;
            } else {
              sim.enable(t);
              disabled = false;
            }
            const c = sim.counters(t);
            for (const k of ['rxByte', 'txByte', 'rxPacket', 'txPacket', 'rxError', 'rxDrop', 'txQueueDrop'] as const) expect(c[k]).toBeGreaterThanOrEqual(prev[k]);
            expect(sim.linkDowns(t)).toBeGreaterThanOrEqual(prevDowns);
            if (!sim.up(t)) expect(sim.lastUpAt(t) === undefined || sim.lastUpAt(t)! <= t).toBe(true);
            prev = c;
            prevDowns = sim.linkDowns(t);
          }
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: 5_000 },
    );
    console.log(`LinkSim property: ${runs} op sequences tried in ${Date.now() - started} ms`);
  });

  it('a reboot zeroes counters and link-downs; a link still down stays down', () => {
    const sim = new LinkSim({ rxRate: 1000, txRate: 1000, rxPacketSize: 900, txPacketSize: 600, errorsPerMillion: 0, upDelayMs: 0, downs: [] }, 0);
    sim.setLink(false, 10_000);
    expect(sim.linkDowns(20_000)).toBe(1);
    sim.reboot(30_000);
    expect(sim.counters(30_000).rxByte).toBe(0);
    expect(sim.linkDowns(40_000)).toBe(0);
    expect(sim.up(40_000)).toBe(false);
    expect(sim.lastUpAt(40_000)).toBeUndefined();
    sim.setLink(true, 50_000);
    expect(sim.counters(60_000).rxByte).toBe(10_000);
  });
});
