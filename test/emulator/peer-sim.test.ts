/** PeerSim counters while no session exists: this side's initiations, the far end's, and the responses to them. */
import { describe, expect, it } from 'vitest';
import { INITIATION_BYTES, PeerSim, RESPONSE_BYTES, RESPONSE_PER_INITIATION, WAKE_RTT_MS, type PeerSimInit } from '../../src/emulator/sim/peer-sim.js';

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

describe('PeerSim wake (a healthy idle tunnel this side wakes)', () => {
  // Initiations at 2 s (its response lost) and 7 s (answered 50 ms later): the handshake then, live from there.
  const woken = (): PeerSim => sim({ handshakeFrom: T0 - 3_600_000, handshakeUntil: T0 - 3_600_000, sessionFrom: T0 - 86_400_000, wakeInitiations: [T0 + 2_000, T0 + 7_000] });

  it('sends nothing before the wake, one initiation at it, the retry 5 s later, and is answered a round trip after', () => {
    const peer = woken();
    expect(peer.counters(T0 + 1_000)).toEqual({ rx: 0, tx: 0 });
    expect(peer.counters(T0 + 6_000)).toEqual({ rx: 0, tx: INITIATION_BYTES });
    expect(peer.lastHandshakeAt(T0 + 6_000)).toBe(T0 - 3_600_000);
    expect(peer.lastHandshakeAt(T0 + 7_000 + WAKE_RTT_MS)).toBe(T0 + 7_000 + WAKE_RTT_MS);
    // 10 s after the handshake: the response and the peer's rates since it.
    const later = T0 + 7_000 + WAKE_RTT_MS + 10_000;
    expect(peer.counters(later)).toEqual({ rx: RESPONSE_BYTES + 20_000, tx: 2 * INITIATION_BYTES + 20_000 });
  });

  it('rekeys every period once woken', () => {
    const at = T0 + 7_000 + WAKE_RTT_MS;
    expect(woken().lastHandshakeAt(at + 130_000)).toBe(at + 120_000);
  });
});
