/**
 * A router's connections taken in turn (src/routeros/turns.ts), by random sequences of requests that take, give
 * back and give up: never more lent than there are, never one lent twice, waiters served in order, the lowest free
 * connection first, and a request that gave up never served; and, with connections opening and closing and keep-warm
 * reads holding some, lent by the open-connection rule with nobody left waiting while the rule would lend one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Turns, type Waiter } from '../../src/routeros/turns.js';

/** `giveUpAlso`: a waiter gives up in the same tick as the connection is given back, before the turn is seen. */
type Step = { kind: 'take' } | { kind: 'give'; pick: number; giveUpAlso: number | undefined } | { kind: 'giveUp'; pick: number };

const steps = fc.array(
  fc.oneof(
    fc.constant<Step>({ kind: 'take' }),
    fc.record({ pick: fc.nat(20), giveUpAlso: fc.option(fc.nat(20), { nil: undefined }) }).map<Step>(({ pick, giveUpAlso }) => ({ kind: 'give', pick, giveUpAlso })),
    fc.nat(20).map<Step>((pick) => ({ kind: 'giveUp', pick })),
  ),
  { maxLength: 60 },
);

/** The connections `turns` has lent out, lowest first. */
function lentOut(turns: Turns, slots: number): number[] {
  return Array.from({ length: slots }, (_, slot) => slot).filter((slot) => turns.isLent(slot));
}

/** A connection lent out, and whether to a keep-warm read. */
interface Held {
  slot: number;
  warm: boolean;
}

interface Request {
  id: number;
  waiter: Waiter;
  slot: number | undefined;
  gaveUp: boolean;
}

describe('turns on a router’s connections', () => {
  it('lend each connection to one request at a time, in the order requests came, lowest free first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), steps, async (slots, plan) => {
        const turns = new Turns(slots);
        const holding: Request[] = [];
        const waiting: Request[] = [];
        const served: number[] = [];
        const gaveUp = new Set<number>();
        let next = 0;
        for (const step of plan) {
          if (step.kind === 'take') {
            const request: Request = { id: next++, waiter: { notify: undefined }, slot: undefined, gaveUp: false };
            const taken = turns.take(request.waiter);
            if (typeof taken === 'number') {
              // Lent at once only while nothing waits, and the lowest number not held.
              expect(waiting).toHaveLength(0);
              const held = new Set(holding.map((entry) => entry.slot));
              const lowest = Array.from({ length: slots }, (_, slot) => slot).find((slot) => !held.has(slot));
              expect(taken).toBe(lowest);
              request.slot = taken;
              holding.push(request);
            } else {
              expect(holding).toHaveLength(slots);
              waiting.push(request);
              taken.then(
                (slot) => {
                  request.slot = slot;
                  served.push(request.id);
                },
                () => undefined,
              );
            }
          } else if (step.kind === 'give' && holding.length > 0) {
            const [done] = holding.splice(step.pick % holding.length, 1);
            turns.give(done?.slot as number);
            const first = waiting.shift();
            if (first !== undefined && step.giveUpAlso !== undefined) {
              // Too late: the turn is its own; giving up now changes nothing (its notify was cleared).
              first.waiter.notify?.(new Error('timed out'));
            }
            await Promise.resolve();
            if (first !== undefined) {
              // The connection given back goes to the request waiting longest.
              expect(first.slot).toBe(done?.slot);
              expect(first.waiter.notify).toBeUndefined();
              holding.push(first);
            }
          } else if (step.kind === 'giveUp' && waiting.length > 0) {
            const [quitter] = waiting.splice(step.pick % waiting.length, 1);
            (quitter as Request).gaveUp = true;
            gaveUp.add((quitter as Request).id);
            (quitter as Request).waiter.notify?.(new Error('timed out'));
          }
          // Never more lent than there are, never one lent twice; lent exactly the ones held.
          const lent = holding.map((entry) => entry.slot);
          expect(new Set(lent).size).toBe(lent.length);
          expect(lent.every((slot) => slot !== undefined && slot >= 0 && slot < slots)).toBe(true);
          expect(lentOut(turns, slots)).toEqual(lent.sort((a, b) => (a as number) - (b as number)));
        }
        await Promise.resolve();
        // Served in the order they came, and no request that gave up was served.
        expect(served).toEqual([...served].sort((a, b) => a - b));
        expect(served.filter((id) => gaveUp.has(id))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('leave a connection given back that was not lent alone: it is not lent twice after', async () => {
    const turns = new Turns(1);
    expect(turns.take({ notify: undefined })).toBe(0);
    turns.give(0);
    turns.give(0);
    expect(lentOut(turns, 1)).toEqual([]);
    expect(turns.take({ notify: undefined })).toBe(0);
    const next = turns.take({ notify: undefined });
    expect(next).toBeInstanceOf(Promise);
    turns.give(0);
    expect(await next).toBe(0);
    expect(lentOut(turns, 1)).toEqual([0]);
  });

  it('lend an open connection first, and wait the round trip for one a keep-warm read holds rather than open another', async () => {
    // Connection 0 is open, 1 is not (never made, or expired).
    const open = new Set([0]);
    const turns = new Turns(2, (slot) => open.has(slot));
    expect(turns.takeIf(0)).toBe(true);
    const first = turns.take({ notify: undefined });
    const second = turns.take({ notify: undefined });
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    // The keep-warm read is answered: the first request gets its connection, the second (two commands at the tick)
    // no longer waits for anything held so and takes the other.
    turns.give(0);
    expect(await first).toBe(0);
    expect(await second).toBe(1);
    turns.give(0);
    turns.give(1);
    // An open connection free beside the held one is taken at once, whatever its number.
    open.add(1);
    expect(turns.takeIf(0)).toBe(true);
    expect(turns.take({ notify: undefined })).toBe(1);
    // With none open and none held by a keep-warm read, the lowest free one.
    turns.give(0);
    turns.give(1);
    open.clear();
    expect(turns.take({ notify: undefined })).toBe(0);
  });

  it('with connections opening and closing and keep-warm reads holding some: lend by the rule, in order, and leave no request waiting once a connection is given back while the rule would lend one', async () => {
    // The rule, stated apart from the code: the lowest free open connection; if none, none while a keep-warm read
    // holds an open one (it comes back within a round trip); else the lowest free one; none when all are lent.
    // Waiters are looked at again when a connection is given back, not when one opens or closes: a connection that
    // closes under a keep-warm read ends that read at once, and its give serves them.
    const rule = (slots: number, held: readonly Held[], open: ReadonlySet<number>): number | undefined => {
      const lent = new Set(held.map((entry) => entry.slot));
      const free = Array.from({ length: slots }, (_, slot) => slot).filter((slot) => !lent.has(slot));
      const freeOpen = free.find((slot) => open.has(slot));
      if (freeOpen !== undefined) return freeOpen;
      if (held.some((entry) => entry.warm && open.has(entry.slot))) return undefined;
      return free[0];
    };
    type WarmStep = Step | { kind: 'warm'; slot: number } | { kind: 'toggle'; slot: number };
    const warmSteps = fc.array(
      fc.oneof(
        fc.constant<WarmStep>({ kind: 'take' }),
        fc.record({ pick: fc.nat(20), giveUpAlso: fc.option(fc.nat(20), { nil: undefined }) }).map<WarmStep>(({ pick, giveUpAlso }) => ({ kind: 'give', pick, giveUpAlso })),
        fc.nat(20).map<WarmStep>((pick) => ({ kind: 'giveUp', pick })),
        fc.nat(3).map<WarmStep>((slot) => ({ kind: 'warm', slot })),
        fc.nat(3).map<WarmStep>((slot) => ({ kind: 'toggle', slot })),
      ),
      { maxLength: 80 },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(3), { maxLength: 4 }), warmSteps, async (slots, initiallyOpen, plan) => {
        const open = new Set(initiallyOpen.filter((slot) => slot < slots));
        const turns = new Turns(slots, (slot) => open.has(slot));
        const held: Held[] = [];
        const waiting: (Request & { got?: number })[] = [];
        const served: number[] = [];
        let next = 0;
        for (const step of plan) {
          if (step.kind === 'take') {
            const request: Request & { got?: number } = { id: next++, waiter: { notify: undefined }, slot: undefined, gaveUp: false };
            const expected = waiting.length === 0 ? rule(slots, held, open) : undefined;
            const taken = turns.take(request.waiter);
            if (expected !== undefined) {
              expect(taken).toBe(expected);
              held.push({ slot: expected, warm: false });
            } else {
              expect(taken).toBeInstanceOf(Promise);
              waiting.push(request);
              (taken as Promise<number>).then(
                (slot) => {
                  request.got = slot;
                  served.push(request.id);
                },
                () => undefined,
              );
            }
          } else if (step.kind === 'warm') {
            const slot = step.slot % slots;
            const free = !held.some((entry) => entry.slot === slot);
            expect(turns.takeIf(slot)).toBe(free);
            if (free) held.push({ slot, warm: true });
          } else if (step.kind === 'toggle') {
            // A connection opens (connected) or closes underneath (the router's keep-alive, a reset).
            const slot = step.slot % slots;
            if (!open.delete(slot)) open.add(slot);
          } else if (step.kind === 'give' && held.length > 0) {
            const [done] = held.splice(step.pick % held.length, 1) as [Held];
            turns.give(done.slot);
            const before = [...waiting];
            // The request waiting longest was served in the give itself: giving up now is too late and changes nothing.
            expect(waiting[0]?.waiter.notify).toBeUndefined();
            if (step.giveUpAlso !== undefined) waiting[0]?.waiter.notify?.(new Error('timed out'));
            await Promise.resolve();
            // The connection given back goes to the request waiting longest; then the requests still waiting take,
            // in order, what the rule lends, until it lends nothing.
            let expectedSlot: number | undefined = done.slot;
            for (const request of before) {
              if (expectedSlot === undefined) break;
              expect(request.got).toBe(expectedSlot);
              waiting.shift();
              held.push({ slot: expectedSlot, warm: false });
              expectedSlot = rule(slots, held, open);
            }
            // Nobody is left waiting while the rule would lend a connection.
            if (waiting.length > 0) expect(rule(slots, held, open)).toBeUndefined();
            expect(waiting.every((request) => request.got === undefined)).toBe(true);
          } else if (step.kind === 'giveUp' && waiting.length > 0) {
            const [quitter] = waiting.splice(step.pick % waiting.length, 1) as [Request];
            quitter.waiter.notify?.(new Error('timed out'));
          }
          expect(lentOut(turns, slots)).toEqual(held.map((entry) => entry.slot).sort((a, b) => a - b));
        }
        await Promise.resolve();
        expect(served).toEqual([...served].sort((a, b) => a - b));
      }),
      { numRuns: 500 },
    );
  });

  it('refuse a router without a connection', () => {
    expect(() => new Turns(0)).toThrow(RangeError);
    expect(() => new Turns(1.5)).toThrow(RangeError);
  });
});
