/**
 * The wireguard run's peer table (collectors/wireguard-peers.ts): peers kept as rows read back exactly as they
 * were described, whatever the facts; the counters' columns (rx, tx, handshake, bad) are the same rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PeerTable, type PeerFacts, type WireguardPeer } from '../../src/collectors/wireguard-peers.js';
import { PROBE_OUTCOMES } from '../../src/analysis/liveness.js';

const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
const text = fc.string({ maxLength: 12 });
const seconds = fc.oneof(fc.integer({ min: 0, max: 2 ** 33 }), fc.double({ min: 0, max: 1e12, noNaN: true }));

const facts = fc.record<PeerFacts>({
  name: text,
  comment: optional(text),
  disabled: fc.boolean(),
  handshakeUnreadable: fc.boolean(),
  factsUnreadable: fc.boolean(),
  keepaliveSeconds: fc.oneof(fc.integer({ min: 0, max: 65_535 }), seconds),
  hasEndpoint: fc.boolean(),
  rxMoved: fc.boolean(),
  txMoved: fc.boolean(),
  rxMovedUnknown: fc.boolean(),
  txMovedUnknown: fc.boolean(),
  probe: optional(fc.constantFrom(...PROBE_OUTCOMES)),
  probedAt: optional(seconds),
  probeRttSeconds: optional(fc.double({ min: 0, max: 10, noNaN: true })),
  probeLossRatio: optional(fc.double({ min: 0, max: 1, noNaN: true })),
});

const row = fc.record({
  iface: text,
  publicKey: text,
  rx: fc.oneof(seconds, fc.constant(Number.NaN)),
  tx: fc.oneof(seconds, fc.constant(Number.NaN)),
  handshake: optional(seconds),
  bad: fc.boolean(),
  facts,
  /** Facts described first and then replaced (a row described twice reads as the last). */
  earlier: optional(facts),
});

type Row = typeof row extends fc.Arbitrary<infer T> ? T : never;

/** The peer a row describes, as the object per peer kept before the table. */
function expected(r: Row): WireguardPeer {
  const { facts } = r;
  return {
    interface: r.iface,
    publicKey: r.publicKey,
    name: facts.name,
    comment: facts.comment,
    disabled: facts.disabled,
    latestHandshake: r.handshake,
    handshakeUnreadable: facts.handshakeUnreadable,
    factsUnreadable: facts.factsUnreadable,
    keepaliveSeconds: facts.keepaliveSeconds,
    hasEndpoint: facts.hasEndpoint,
    rxMoved: facts.rxMoved,
    txMoved: facts.txMoved,
    rxMovedUnknown: facts.rxMovedUnknown,
    txMovedUnknown: facts.txMovedUnknown,
    rxUnanswered: facts.rxUnanswered === true,
    unansweredBefore: facts.unansweredBefore === true,
    // Set by check's marking alone, never by describe.
    unansweredUnconfirmed: false,
    probe: facts.probe,
    probedAt: facts.probedAt,
    probeRttSeconds: facts.probedAt === undefined ? undefined : facts.probeRttSeconds,
    probeLossRatio: facts.probedAt === undefined ? undefined : facts.probeLossRatio,
  };
}

describe('PeerTable', () => {
  it('reads every row back as described, in order, and the counters their own columns', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), fc.oneof(fc.nat(3), fc.nat(200)), fc.boolean(), fc.boolean(), (rows, spare, badAfter, trim) => {
        const written = new PeerTable(rows.length + spare);
        for (const r of rows) {
          const at = written.append(r.iface, r.publicKey, r.rx, r.tx);
          written.setHandshake(at, r.handshake ?? Number.NaN);
          // The bad flag is noted before or after the rest is described (wireguard.ts notes it before); either keeps it.
          if (!badAfter) written.setBad(at, r.bad);
          if (r.earlier !== undefined) written.describe(at, r.earlier);
          written.describe(at, r.facts);
          if (badAfter) written.setBad(at, r.bad);
        }
        // As kept for the next run: its rows alone once much of it went unused (repeats in a reply take no row).
        const table = trim ? written.trimmed() : written;
        if (trim) expect(table.capacity).toBeLessThanOrEqual(rows.length + 16 + rows.length / 8);
        expect(table.length).toBe(rows.length);
        expect([...table]).toEqual(rows.map(expected));
        expect([...table.entries()].map(([index]) => index)).toEqual(rows.map((_, index) => index));
        for (const [index, r] of rows.entries()) {
          expect(table.interfaceAt(index)).toBe(r.iface);
          expect(table.keyAt(index)).toBe(r.publicKey);
          expect(table.rxAt(index)).toBe(r.rx);
          expect(table.txAt(index)).toBe(r.tx);
          expect(table.handshakeAt(index)).toBe(r.handshake ?? Number.NaN);
          expect(table.badAt(index)).toBe(r.bad);
          expect(table.at(index - rows.length)).toEqual(expected(r));
        }
        // Past the rows, nothing: not the spare capacity's zeros.
        for (const index of [rows.length, table.capacity, 0.5, Number.NaN, -rows.length - 1]) expect(table.at(index)).toBeUndefined();
        expect(table.keyAt(rows.length)).toBeUndefined();
        expect(table.badAt(rows.length)).toBe(false);
        expect(table.rxAt(rows.length)).toBeNaN();
        expect(table.some((peer) => peer.disabled)).toBe(rows.some((r) => r.facts.disabled));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a row past its capacity rather than growing or overwriting', () => {
    const table = new PeerTable(1);
    table.append('wg0', 'a', 1, 1);
    expect(() => table.append('wg0', 'b', 1, 1)).toThrow(RangeError);
    expect(table.length).toBe(1);
    expect(table.keyAt(0)).toBe('a');
  });

  it('reads a described row back as one literal of fixed shape', () => {
    const table = new PeerTable(2);
    for (const key of ['a', 'b']) table.append('wg0', key, 0, 0);
    const base: PeerFacts = { name: '', comment: undefined, disabled: false, handshakeUnreadable: false, factsUnreadable: false, keepaliveSeconds: 0, hasEndpoint: false, rxMoved: false, txMoved: false, probe: undefined, probedAt: undefined, probeRttSeconds: undefined, probeLossRatio: undefined };
    table.describe(0, base);
    table.describe(1, { ...base, probe: 'ok', probedAt: 1, probeRttSeconds: 0.01, probeLossRatio: 0 });
    expect(new Set([...table].map((peer) => Object.keys(peer).join())).size).toBe(1);
  });
});
