/** PeerSim counters while no session exists: this side's initiations, the far end's, and the responses to them. */
import { describe, expect, it } from 'vitest';
import { PeerSim, RESPONSE_PER_INITIATION, type PeerSimInit } from '../../src/emulator/sim/peer-sim.js';

const T0 = 1_800_000_000_000;

function sim(overrides: Partial<PeerSimInit>): PeerSim {
  return new PeerSim({
    rxRate: 2_000,
    txRate: 2_000,
    idleTxRate: 0,
    periodMs: 120_000,
    phaseMs: 0,
    // No handshake ever: every millisecond is idle.
    handshakeFrom: Infinity,
    handshakeUntil: Infinity,
    sessionFrom: T0,
    rx: 0,
    tx: 0,
    countersAt: T0,
    disabled: false,
    ...overrides,
  });
}

describe('PeerSim idle counters', () => {
  it('answers each initiation the far end sends: 92 B of tx per 148 B of rx, with no handshake', () => {
    const peer = sim({ idleRxRate: 148 });
    expect(peer.counters(T0 + 10_000)).toEqual({ rx: 1_480, tx: 920 });
    expect(peer.lastHandshakeAt(T0 + 10_000)).toBeUndefined();
    expect(RESPONSE_PER_INITIATION).toBeCloseTo(92 / 148);
  });

  it('adds the responses to this side\'s own initiations to an endpoint', () => {
    const peer = sim({ idleRxRate: 148, idleTxRate: 30 });
    expect(peer.counters(T0 + 10_000)).toEqual({ rx: 1_480, tx: 300 + 920 });
  });

  it('without idleRxRate nothing comes in and nothing is answered', () => {
    expect(sim({ idleTxRate: 30 }).counters(T0 + 10_000)).toEqual({ rx: 0, tx: 300 });
    expect(sim({}).counters(T0 + 10_000)).toEqual({ rx: 0, tx: 0 });
  });

  it('while connected, the session\'s rates count, not the idle ones', () => {
    const peer = sim({ idleRxRate: 148, handshakeFrom: -Infinity, sessionFrom: T0 });
    expect(peer.counters(T0 + 10_000)).toEqual({ rx: 20_000, tx: 20_000 });
  });
});
