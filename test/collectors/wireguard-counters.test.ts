/**
 * The wireguard job's rx/tx memory (collectors/wireguard-counters.ts): movement is told against the same peer's
 * previous values wherever it sits in the list, and the job's memory map no longer holds two string-keyed
 * entries per peer (~33 MB at 100 × 1,000).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CounterMemory, type Movement } from '../../src/collectors/wireguard-counters.js';
import { peerKey, type KeptPeers } from '../../src/collectors/wireguard-peers.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { sampleText } from './sample-text.js';
import { heapAfterCollection } from '../helpers/gc.js';

type Peer = [iface: string, key: string, rx: number | undefined, tx: number | undefined];

function run(owner: object, peers: readonly Peer[]): { rxMoved: boolean; txMoved: boolean }[] {
  return told(owner, peers).map(({ rxMoved, txMoved }) => ({ rxMoved, txMoved }));
}

function told(owner: object, peers: readonly Peer[]): Movement[] {
  const memory = new CounterMemory(owner, peers.length);
  const out = peers.map(([iface, key, rx, tx]) => memory.moved(iface, key, rx, tx));
  memory.finish();
  return out;
}

describe('CounterMemory', () => {
  it('says nothing moved on the first run and without an owner', () => {
    expect(run({}, [['wg0', 'a', 1, 1]])).toEqual([{ rxMoved: false, txMoved: false }]);
    const none = new CounterMemory(undefined, 1);
    expect(none.moved('wg0', 'a', 5, 5)).toEqual({ rxMoved: false, txMoved: false, rxMovedUnknown: false, txMovedUnknown: false });
  });

  it('compares each peer with its own previous values, in place or moved in the list', () => {
    const owner = {};
    run(owner, [['wg0', 'a', 10, 10], ['wg0', 'b', 20, 20], ['wg1', 'a', 30, 30]]);
    // Same order: a grew rx, b grew tx, wg1/a did not move.
    expect(run(owner, [['wg0', 'a', 11, 10], ['wg0', 'b', 20, 21], ['wg1', 'a', 30, 30]])).toEqual([
      { rxMoved: true, txMoved: false },
      { rxMoved: false, txMoved: true },
      { rxMoved: false, txMoved: false },
    ]);
    // Reordered, one new: found by (interface, key), not by position; the same key on another interface is another peer.
    expect(run(owner, [['wg1', 'a', 31, 30], ['wg0', 'c', 1, 1], ['wg0', 'a', 11, 12]])).toEqual([
      { rxMoved: true, txMoved: false },
      { rxMoved: false, txMoved: false },
      { rxMoved: false, txMoved: true },
    ]);
    // b is gone from the previous run: coming back, it has no baseline.
    expect(run(owner, [['wg0', 'b', 99, 99]])).toEqual([{ rxMoved: false, txMoved: false }]);
  });

  it('never takes one peer for another, whatever text the router sends for interface and key (found by review: `w` + `x\\ny` was `w\\nx` + `y`)', () => {
    const text = fc.string({ unit: fc.constantFrom('w', 'x', '\n', '|', ':', '1'), maxLength: 5 });
    fc.assert(
      fc.property(
        // Pairs that run together the same way: one text cut at each of its separators, and any others beside.
        fc
          .tuple(fc.array(text, { minLength: 2, maxLength: 4 }), fc.constantFrom('\n', '|', ':'), fc.array(fc.tuple(text, text), { maxLength: 2 }))
          .map(([parts, separator, others]) => {
            const cuts = parts.slice(1).map((_, at) => [parts.slice(0, at + 1).join(separator), parts.slice(at + 1).join(separator)] as [string, string]);
            const all = [...cuts, ...others];
            return all.filter(([i, k], index) => all.findIndex(([i2, k2]) => i2 === i && k2 === k) === index);
          })
          .filter((peers) => peers.length >= 2),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (peers, grew) => {
          const owner = {};
          run(owner, peers.map(([iface, key], index): Peer => [iface, key, 100 + index * 10, 0]));
          // Listed the other way round, some grew by one: exactly those moved. Taken for another peer, a peer is compared
          // with that one's count (10 apart) and reads as moved when it did not, or not when it did.
          const again = peers.map(([iface, key], index): Peer => [iface, key, 100 + index * 10 + (grew[index] === true ? 1 : 0), 0]).reverse();
          const expected = peers.map((_, index) => grew[index] === true).reverse();
          expect(run(owner, again).map((moved) => moved.rxMoved)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
    expect(peerKey('w', 'x\ny')).not.toBe(peerKey('w\nx', 'y'));
  });

  it('a counter that fell was reset in the window: grew unless it is 0; one that does not decode did not; a fallen one is the new baseline', () => {
    const owner = {};
    run(owner, [['wg0', 'a', 100, 100]]);
    expect(run(owner, [['wg0', 'a', 5, undefined]])).toEqual([{ rxMoved: true, txMoved: false }]);
    expect(run(owner, [['wg0', 'a', 6, 100]])).toEqual([{ rxMoved: true, txMoved: false }]);
    expect(run(owner, [['wg0', 'a', 0, 100]])).toEqual([{ rxMoved: false, txMoved: false }]);
    expect(run(owner, [['wg0', 'a', 0, 0]])).toEqual([{ rxMoved: false, txMoved: false }]);
  });
});

describe('CounterMemory: growth that cannot be told', () => {
  it('says so when a counter is unread now or was in the run before, and not for a peer new to the run', () => {
    const owner = {};
    expect(told(owner, [['wg0', 'a', 5, undefined]])).toEqual([{ rxMoved: false, txMoved: false, rxMovedUnknown: false, txMovedUnknown: false }]);
    expect(told(owner, [['wg0', 'a', 6, 100]])).toEqual([{ rxMoved: true, txMoved: false, rxMovedUnknown: false, txMovedUnknown: true }]);
    expect(told(owner, [['wg0', 'a', undefined, 101]])).toEqual([{ rxMoved: false, txMoved: true, rxMovedUnknown: true, txMovedUnknown: false }]);
    expect(told(owner, [['wg0', 'a', 7, 101]])).toEqual([{ rxMoved: false, txMoved: false, rxMovedUnknown: true, txMovedUnknown: false }]);
    expect(told(owner, [['wg0', 'a', 7, 101]])).toEqual([{ rxMoved: false, txMoved: false, rxMovedUnknown: false, txMovedUnknown: false }]);
  });
});

describe('CounterMemory: the window rx and tx grew in, on the monotonic clock', () => {
  it('runs from the previous run\'s read to this one, kept through a trimmed table; undefined on a first run', () => {
    const owner = {};
    const first = new CounterMemory(owner, 40, 1_000);
    expect(first.windowSeconds).toBeUndefined();
    first.moved('wg0', 'a', 1, 1);
    // 39 rows of 40 unused: finish keeps a trimmed copy, which must keep the time too.
    expect(first.finish()).not.toBe(first.table);
    const second = new CounterMemory(owner, 1, 31_000);
    expect(second.windowSeconds).toBe(30);
    second.moved('wg0', 'a', 2, 2);
    second.finish();
    // A run that failed (it kept nothing: no finish) leaves the window to span the gap from the last successful read.
    const failed = new CounterMemory(owner, 1, 61_000);
    failed.moved('wg0', 'a', 3, 3);
    expect(new CounterMemory(owner, 1, 91_000).windowSeconds).toBe(60);
  });

  it('is the longer of the monotonic and the wall-clock difference (a suspend stops the one, a stepped clock moves the other), the wall reading kept through a trimmed table', () => {
    const owner = {};
    const first = new CounterMemory(owner, 40, 1_000, 5_000_000);
    first.moved('wg0', 'a', 1, 1);
    expect(first.finish()).not.toBe(first.table);
    // Suspended an hour: 15 s on the monotonic clock, 3,615 s on the wall clock.
    const resumed = new CounterMemory(owner, 1, 16_000, 5_000_000 + 3_615_000);
    expect(resumed.windowSeconds).toBe(3_615);
    resumed.moved('wg0', 'a', 2, 2);
    resumed.finish();
    // The wall clock stepped back an hour: the monotonic 30 s stand.
    const stepped = new CounterMemory(owner, 1, 46_000, 5_000_000 + 3_615_000 - 3_570_000);
    expect(stepped.windowSeconds).toBe(30);
    stepped.moved('wg0', 'a', 3, 3);
    stepped.finish();
    // No monotonic reading: no window, whatever the wall clock says.
    expect(new CounterMemory(owner, 1, undefined, 9_000_000).windowSeconds).toBeUndefined();
  });

  it('the window before: the previous run\'s row, sending unanswered when tx grew and rx did not or grew with no session', () => {
    const owner = {};
    const facts = (rxMoved: boolean, txMoved: boolean, rxUnanswered: boolean) => ({
      name: '', comment: undefined, disabled: false, handshakeUnreadable: false, factsUnreadable: false, keepaliveSeconds: 0, hasEndpoint: true,
      rxMoved, txMoved, rxUnanswered, probe: undefined, probedAt: undefined, probeRttSeconds: undefined, probeLossRatio: undefined,
    });
    const cases: [boolean, boolean, boolean, boolean][] = [
      [false, false, false, false],
      [true, false, false, false],
      [false, true, false, true],
      [true, true, false, false],
      [true, true, true, true],
    ];
    for (const [rxMoved, txMoved, rxUnanswered, before] of cases) {
      const run = new CounterMemory(owner, 1, 0);
      run.moved('wg0', 'a', 1, 1);
      run.describe(facts(rxMoved, txMoved, rxUnanswered));
      run.finish();
      const next = new CounterMemory(owner, 1, 30_000);
      next.moved('wg0', 'a', 1, 1);
      expect({ rxMoved, txMoved, rxUnanswered, before: next.unansweredBefore() }).toEqual({ rxMoved, txMoved, rxUnanswered, before });
    }
  });
});

describe('mapWireguard job memory', () => {
  it('keeps no string-keyed entry per peer in the job memory, and still tells traffic that moved', () => {
    const health = testRouter().health;
    const peer = (index: number, rx: number): RouterRecord => ({
      interface: 'wg0',
      'public-key': `${String(index).padStart(43, 'K')}=`,
      rx: String(rx),
      tx: '5',
      'last-handshake': '1m',
    });
    const memory = new Map<string, number>();
    const interfaces: RouterRecord[] = [{ name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' }];
    const first = mapWireguard(interfaces, Array.from({ length: 1000 }, (_, i) => peer(i, 100)), routerLabel('hq'), health, 1_800_000_000_000, memory);
    expect([...first.data.peers].every((p) => !p.rxMoved)).toBe(true);
    const second = mapWireguard(interfaces, Array.from({ length: 1000 }, (_, i) => peer(i, i % 2 === 0 ? 200 : 100)), routerLabel('hq'), health, 1_800_000_030_000, memory);
    expect([...second.data.peers].filter((p) => p.rxMoved)).toHaveLength(500);
    expect([...second.data.peers].some((p) => p.txMoved)).toBe(false);
    // Before: 2,000 entries (`rx interface="wg0",public_key="…"` and its tx twin).
    expect(memory.size).toBe(0);
  });

  it("keeps one copy of a peer's strings across runs that read them the same, not one per run", () => {
    const health = testRouter().health;
    // Each reply's strings its own, as a parse makes them: interface, key, name and a comment of 1,000 characters.
    const reply = (): RouterRecord[] =>
      JSON.parse(
        JSON.stringify(
          Array.from({ length: 4000 }, (_, i) => ({
            interface: `wg${i % 4}`,
            'public-key': `${String(i).padStart(43, 'K')}=`,
            name: `branch-${i}`,
            comment: `${i} `.padEnd(1000, 'c'),
            rx: '1',
            tx: '1',
            'last-handshake': '1m',
          })),
        ),
      ) as RouterRecord[];
    const interfaces: RouterRecord[] = [0, 1, 2, 3].map((i) => ({ name: `wg${i}`, 'public-key': 'S3rv3r', running: 'true', disabled: 'false' }));
    const memory = new Map<string, number>();
    // A run in a function of its own, so that nothing of its reply is left in this test's frame.
    const run = (now: number): KeptPeers => mapWireguard(interfaces, reply(), routerLabel('hq'), health, now, memory).data.peers;
    const first = run(1_800_000_000_000);
    const before = heapAfterCollection();
    // The second run's table is kept beside the first: it holds ~4 MB of strings of its own unless it shares them.
    const second = run(1_800_000_030_000);
    const added = heapAfterCollection() - before;
    const strings = (peer: ReturnType<typeof first.at>): unknown[] => [peer?.interface, peer?.publicKey, peer?.name, peer?.comment];
    expect(strings(second.at(17))).toEqual(strings(first.at(17)));
    expect(second.at(17)?.comment).toBe(`17 `.padEnd(1000, 'c'));
    expect(added).toBeLessThan(1.5 * 1024 * 1024);
  });
});

describe('one handshake, one written time (found by review: RouterOS gives ages in whole seconds)', () => {
  const health = testRouter().health;
  const interfaces: RouterRecord[] = [{ name: 'wg-sites', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231' }];
  const peer = (lastHandshake: string): RouterRecord[] => [
    { interface: 'wg-sites', 'public-key': 'K'.repeat(43) + '=', name: 'site', 'last-handshake': lastHandshake, rx: '10', tx: '10', 'persistent-keepalive': '25s' },
  ];
  const handshakeOf = (text: string): number => Number(/routeros_wireguard_peer_latest_handshake_timestamp_seconds\{[^}]*\} (\d+)/.exec(text)?.[1]);

  it('writes the same time for one handshake read in runs whose now - age lands either side of a second', () => {
    const memory = new Map<string, number>();
    // A handshake at 1800000000.2, collected at .4 / .6 / .5 past the second: now - age gives …000, …001, …001.
    const times = [
      [1_800_000_065_400, '1m5s'],
      [1_800_000_080_600, '1m20s'],
      [1_800_000_095_500, '1m35s'],
    ] as const;
    const written = times.map(([now, age]) => handshakeOf(sampleText(mapWireguard(interfaces, peer(age), routerLabel('hq'), health, now, memory).samples)));
    expect(written).toEqual([1_800_000_000, 1_800_000_000, 1_800_000_000]);
    // A new handshake (a rekey two minutes on) is written as itself.
    expect(handshakeOf(sampleText(mapWireguard(interfaces, peer('5s'), routerLabel('hq'), health, 1_800_000_125_500, memory).samples))).toBe(1_800_000_121);
  });
});
