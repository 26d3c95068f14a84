/**
 * A counter window shorter than two of WireGuard's handshake retries (MIN_COUNTER_WINDOW_SECONDS) cannot tell a
 * handshake in flight on a healthy tunnel from a dead link: a reload that replaced the wireguard job (it runs at once),
 * a wall clock set back that re-ran a slot, or a schedule faster than 11 s made such windows, and a healthy link read
 * `down` for a run, or a dead one `idle` (a recovery logged, paged again a run later). Found by review (stop 71's
 * note). The daemon's runs carry the movement of the last window long enough across a shorter one, and the next
 * window runs from where that one ended; `check` (minimum 0) still judges every window as it is.
 */
import { describe, expect, it } from 'vitest';
import { MIN_COUNTER_WINDOW_SECONDS } from '../../src/analysis/liveness.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { peerVerdict, wireguardJob } from './wireguard-job.js';

const T0 = Date.UTC(2026, 11, 5, 3, 0, 0);
const IFACE: RouterRecord = { name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };
/** The tunnel's last handshake, long before the reads: an idle tunnel (world seconds). */
const OLD_HANDSHAKE = -1_000;

/** A peer as one read gives it: its counters and, when any, its handshake's world time. */
interface PeerRead {
  key: string;
  rx: number;
  tx: number;
  handshakeAt?: number;
}

/** One read: world time `at` (s) on both clocks, or a wall clock `wallOffset` s off (a step). */
interface Read {
  at: number;
  peers: PeerRead[];
  wallOffset?: number;
}

function record(read: Read, peer: PeerRead): RouterRecord {
  return {
    interface: 'wg0',
    'public-key': `${peer.key.repeat(43)}=`,
    name: peer.key,
    'endpoint-address': '203.0.113.7',
    'endpoint-port': '13231',
    'allowed-address': '10.9.0.2/32',
    rx: String(peer.rx),
    tx: String(peer.tx),
    'last-handshake': formatSeconds(read.at - (peer.handshakeAt ?? OLD_HANDSHAKE)),
  };
}

/** Each read's state of every peer, `key:state`, through the real wireguard job with one memory. */
async function states(reads: Read[], minCounterWindowSeconds?: number): Promise<string[]> {
  const read = wireguardJob(minCounterWindowSeconds);
  const out: string[] = [];
  for (const each of reads) {
    const text = await read({
      interfaces: [IFACE],
      peers: each.peers.map((peer) => record(each, peer)),
      wallMs: T0 + (each.at + (each.wallOffset ?? 0)) * 1000,
      elapsedMs: 9_000_000 + each.at * 1000,
    });
    out.push(each.peers.map((peer) => `${peer.key}:${peerVerdict(text, peer.key).split('/')[0] ?? ''}`).join(' '));
  }
  return out;
}

/** An initiation is 148 bytes, a response 92: WireGuard's handshake messages. */
const INITIATION = 148;
const RESPONSE = 92;

describe('a counter window shorter than two handshake retries', () => {
  it('is the constant the daemon uses: 11 s', () => {
    expect(MIN_COUNTER_WINDOW_SECONDS).toBe(11);
  });

  it('a reload re-running the job 3 s after a read: the far end waking a healthy idle tunnel, its response lost twice, does not read down', async () => {
    // The far end initiates at 10 s and again at 15.3 s; both responses are lost; the third completes at 20 s.
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000 + INITIATION, tx: 1_000 + RESPONSE }] },
      { at: 18, peers: [{ key: 'a', rx: 1_000 + 2 * INITIATION, tx: 1_000 + 2 * RESPONSE }] },
      { at: 30, peers: [{ key: 'a', rx: 1_000 + 3 * INITIATION + 500, tx: 1_000 + 3 * RESPONSE + 500, handshakeAt: 20 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
    // Judged window by window (check's way), the 3 s window confirms what the 15 s one showed: the false page.
    expect(await states(reads, 0)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:up']);
  });

  it('this side starting a handshake just before a short read (its response not back yet) does not read down', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 18, peers: [{ key: 'a', rx: 1_000, tx: 1_000 + INITIATION }] },
      { at: 30, peers: [{ key: 'a', rx: 1_000 + RESPONSE + 200, tx: 1_000 + INITIATION + 200, handshakeAt: 18 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
  });

  it('a dead link both sides keep trying stays down through a short window with no retry in it: no recovery between', async () => {
    const trying = (at: number, tries: number): Read => ({ at, peers: [{ key: 'a', rx: 1_000 + tries * INITIATION, tx: 1_000 + tries * (RESPONSE + INITIATION) }] });
    const reads = [trying(0, 0), trying(15, 3), trying(30, 6), trying(33, 6), trying(45, 9)];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:down', 'a:down']);
    // Judged as it is, the 3 s window with nothing sent read idle, and broke the two windows in a row the 15 s window
    // after it needed: a recovery for two runs.
    expect(await states(reads, 0)).toEqual(['a:idle', 'a:idle', 'a:down', 'a:idle', 'a:idle']);
  });

  it('a wall clock set back 2 s re-running a slot is a short window too (the monotonic clock tells it)', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000 }] },
      { at: 15, peers: [{ key: 'a', rx: 1_000 + INITIATION, tx: 1_000 + RESPONSE }] },
      { at: 17, wallOffset: -2, peers: [{ key: 'a', rx: 1_000 + 2 * INITIATION, tx: 1_000 + 2 * RESPONSE }] },
      { at: 32, wallOffset: -2, peers: [{ key: 'a', rx: 1_000 + 3 * INITIATION + 500, tx: 1_000 + 3 * RESPONSE + 500, handshakeAt: 20 }] },
    ];
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:up']);
  });

  it('read every 5 s, a dead link this side keeps sending to is down once a window reaches 11 s, and stays down', async () => {
    const reads: Read[] = [0, 5, 10, 15, 20, 25, 30].map((at) => ({ at, peers: [{ key: 'a', rx: 1_000, tx: 1_000 + (at / 5) * INITIATION }] }));
    expect(await states(reads)).toEqual(['a:idle', 'a:idle', 'a:idle', 'a:down', 'a:down', 'a:down', 'a:down']);
    // Judged as it is, the first 5 s window already paged: no room for the retry that completes a healthy handshake.
    expect((await states(reads, 0))[1]).toBe('a:down');
  });

  it('a peer new in a short window is new to the next run too: its first window starts at its own read', async () => {
    const reads: Read[] = [
      { at: 0, peers: [{ key: 'a', rx: 1_000, tx: 1_000, handshakeAt: -10 }] },
      { at: 3, peers: [{ key: 'a', rx: 1_100, tx: 1_100, handshakeAt: -10 }, { key: 'n', rx: 0, tx: INITIATION }] },
      { at: 15, peers: [{ key: 'a', rx: 1_200, tx: 1_200, handshakeAt: -10 }, { key: 'n', rx: 0, tx: 4 * INITIATION }] },
      { at: 30, peers: [{ key: 'a', rx: 1_300, tx: 1_300, handshakeAt: -10 }, { key: 'n', rx: 0, tx: 7 * INITIATION }] },
    ];
    // n never shook hands (its last-handshake says 1,000 s ago here, before it existed: the router's idea).
    expect(await states(reads)).toEqual(['a:up', 'a:up n:idle', 'a:up n:idle', 'a:up n:down']);
  });
});
