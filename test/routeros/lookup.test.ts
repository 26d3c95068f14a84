/**
 * The host-name lookup queue (src/routeros/lookup.ts): one lookup per name at a time, no more running than
 * libuv would run, and nothing looked up for connects that have given up. Before it, a silent resolver let every
 * cycle queue a lookup per router and job in libuv, where nothing could drop them.
 */
import fc from 'fast-check';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { HostLookups, libuvLookupShare, type LookupFunction } from '../../src/routeros/lookup.js';

type Answer = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A resolver that answers only when told, and a clock that moves only when told. */
function harness(maxRunning = 2) {
  let now = 0;
  const calls: { hostname: string; options: LookupOptions; answer: Answer }[] = [];
  const resolve: LookupFunction = (hostname, options, answer) => {
    calls.push({ hostname, options, answer });
  };
  const lookups = new HostLookups({ resolve, maxRunning, now: () => now });
  const results: { hostname: string; error: string | undefined; address: unknown }[] = [];
  const ask = (hostname: string, patienceMs = 1_000, options: LookupOptions = {}): void =>
    lookups.lookup(hostname, options, (error, address) => results.push({ hostname, error: error?.code, address }), patienceMs);
  return {
    lookups,
    calls,
    results,
    ask,
    advance: (ms: number) => (now += ms),
  };
}

describe('the host-name lookup queue', () => {
  it('looks a name up once for every connect that asks while it waits or runs', () => {
    const h = harness();
    h.ask('a.example');
    h.ask('a.example');
    h.ask('a.example');
    expect(h.calls.map((call) => call.hostname)).toEqual(['a.example']);
    h.calls[0]?.answer(null, '192.0.2.1', 4);
    expect(h.results).toEqual(Array.from({ length: 3 }, () => ({ hostname: 'a.example', error: undefined, address: '192.0.2.1' })));
    expect(h.lookups.counts).toEqual({ waiting: 0, running: 0 });
    // The answer is not kept: the next connect looks the name up again.
    h.ask('a.example');
    expect(h.calls).toHaveLength(2);
  });

  it('looks a name up apart for options that change the answer (one address, or all of them)', () => {
    const h = harness();
    h.ask('a.example', 1_000, { all: true });
    h.ask('a.example', 1_000, {});
    expect(h.calls.map((call) => call.options.all)).toEqual([true, undefined]);
  });

  it('runs no more lookups at once than it is given, and starts the next as one ends, in the order asked', () => {
    const h = harness(2);
    for (const name of ['a', 'b', 'c', 'd']) h.ask(`${name}.example`);
    expect(h.calls.map((call) => call.hostname)).toEqual(['a.example', 'b.example']);
    expect(h.lookups.counts).toEqual({ waiting: 2, running: 2 });
    h.calls[1]?.answer(Object.assign(new Error('no such name'), { code: 'ENOTFOUND' }), '');
    expect(h.calls.map((call) => call.hostname)).toEqual(['a.example', 'b.example', 'c.example']);
    expect(h.results).toEqual([{ hostname: 'b.example', error: 'ENOTFOUND', address: '' }]);
  });

  it('looks nothing up for connects that have given up while they waited, and tells them', () => {
    const h = harness(1);
    h.ask('hung.example', 10_000);
    // Cycle after cycle, while the resolver does not answer: the same three names asked again each time.
    for (let cycle = 0; cycle < 50; cycle++) {
      for (const name of ['a', 'b', 'c']) h.ask(`${name}.example`, 4_000);
      h.advance(5_000);
    }
    // One waiting entry per name, however many cycles asked.
    expect(h.lookups.counts).toEqual({ waiting: 3, running: 1 });
    h.ask('a.example', 4_000);
    h.calls[0]?.answer(null, '192.0.2.9', 4);
    expect(h.calls.map((call) => call.hostname)).toEqual(['hung.example', 'a.example']);
    h.calls[1]?.answer(null, '192.0.2.10', 4);
    // Only the name a connect still waits for was looked up; b and c leave at their turn without a lookup.
    expect(h.calls.map((call) => call.hostname)).toEqual(['hung.example', 'a.example']);
    expect(h.lookups.counts).toEqual({ waiting: 0, running: 0 });
    const timedOut = h.results.filter((result) => result.error === 'EAI_AGAIN');
    expect(timedOut).toHaveLength(150);
    // The connect that asked 'hung' had waited 250 s: it is answered, like any waiter, when the lookup ends.
    expect(h.results.filter((result) => result.hostname === 'hung.example')).toEqual([{ hostname: 'hung.example', error: undefined, address: '192.0.2.9' }]);
  });

  it('drops connects that have given up from a lookup that hangs, as new ones join it', () => {
    const h = harness(1);
    for (let cycle = 0; cycle < 100; cycle++) {
      h.ask('hung.example', 4_000);
      h.advance(5_000);
    }
    expect(h.calls).toHaveLength(1);
    expect(h.results.filter((result) => result.error === 'EAI_AGAIN')).toHaveLength(99);
  });

  it('goes on when a waiter throws, and throws its error after answering the others', () => {
    const h = harness(1);
    h.lookups.lookup('a.example', {}, () => {
      throw new Error('listener failed');
    }, 1_000);
    h.ask('a.example');
    h.ask('b.example');
    expect(() => h.calls[0]?.answer(null, '192.0.2.1', 4)).toThrow('listener failed');
    expect(h.results.map((result) => result.hostname)).toEqual(['a.example']);
    expect(h.calls.map((call) => call.hostname)).toEqual(['a.example', 'b.example']);
  });

  it('takes a resolver that throws or answers twice as one answer', () => {
    const results: string[] = [];
    let calls = 0;
    const lookups = new HostLookups({
      maxRunning: 1,
      resolve: (_hostname, _options, answer) => {
        calls++;
        if (calls === 1) throw Object.assign(new TypeError('invalid hostname'), { code: 'ERR_INVALID_ARG_VALUE' });
        answer(null, '192.0.2.1', 4);
        answer(null, '192.0.2.2', 4);
      },
    });
    lookups.lookup('a', {}, (error, address) => results.push(error?.code ?? String(address)), 1_000);
    lookups.lookup('b', {}, (error, address) => results.push(error?.code ?? String(address)), 1_000);
    expect(results).toEqual(['ERR_INVALID_ARG_VALUE', '192.0.2.1']);
    expect(lookups.counts).toEqual({ waiting: 0, running: 0 });
  });

  it('runs as many lookups at once as libuv does: half its pool, rounded up', () => {
    expect(libuvLookupShare(undefined)).toBe(2);
    expect(libuvLookupShare('4')).toBe(2);
    expect(libuvLookupShare('1')).toBe(1);
    expect(libuvLookupShare('5')).toBe(3);
    expect(libuvLookupShare('128')).toBe(64);
    expect(libuvLookupShare('100000')).toBe(512);
    expect(libuvLookupShare('0')).toBe(2);
    expect(libuvLookupShare('many')).toBe(2);
  });

  it('holds, for any order of asks, answers and time: bounded, one lookup per name at a time, every connect answered once', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('ask' as const), name: fc.integer({ min: 0, max: 5 }), patience: fc.integer({ min: 1, max: 10_000 }), all: fc.boolean() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 6_000 }) }),
      fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(), fails: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 120 }), (maxRunning, steps) => {
        let now = 0;
        const pending: { key: string; answer: Answer }[] = [];
        const answered = new Map<number, number>();
        const asked: { id: number; until: number }[] = [];
        const lookups = new HostLookups({
          maxRunning,
          now: () => now,
          resolve: (hostname, options, answer) => {
            const key = `${hostname}|${String(options.all)}`;
            // One lookup per name and options at a time.
            expect(pending.some((p) => p.key === key)).toBe(false);
            pending.push({ key, answer });
          },
        });
        let id = 0;
        for (const s of steps) {
          if (s.kind === 'ask') {
            const mine = id++;
            asked.push({ id: mine, until: now + s.patience });
            lookups.lookup(`n${s.name}`, s.all ? { all: true } : {}, (error) => {
              answered.set(mine, (answered.get(mine) ?? 0) + 1);
              // Told it timed out only once its patience is spent.
              if (error?.code === 'EAI_AGAIN' && error.message.includes('no lookup slot')) expect(now).toBeGreaterThanOrEqual(asked[mine]?.until ?? Infinity);
            }, s.patience);
          } else if (s.kind === 'advance') {
            now += s.ms;
          } else if (pending.length > 0) {
            const [p] = pending.splice(s.pick % pending.length, 1);
            p?.answer(s.fails ? Object.assign(new Error('x'), { code: 'ENOTFOUND' }) : null, '192.0.2.1', 4);
          }
          expect(pending.length).toBeLessThanOrEqual(maxRunning);
          expect(lookups.counts.running).toBe(pending.length);
          expect(lookups.counts.waiting).toBeLessThanOrEqual(12);
        }
        // Answer everything still running (the rest start as slots free up): every connect hears once.
        while (pending.length > 0) pending.shift()?.answer(null, '192.0.2.1', 4);
        expect(lookups.counts).toEqual({ waiting: 0, running: 0 });
        for (let i = 0; i < id; i++) expect(answered.get(i)).toBe(1);
      }),
      { numRuns: 300 },
    );
  });
});
