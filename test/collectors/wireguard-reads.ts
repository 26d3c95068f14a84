/**
 * Reads of one WireGuard peer list driven through the real wireguard job with one memory and a clock per read (both
 * the wall and the monotonic clock at world time `at`), for tests of what a sequence of counter windows is judged:
 * each read's state of every peer.
 */
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { peerVerdict, wireguardJob } from './wireguard-job.js';

const T0 = Date.UTC(2026, 11, 5, 3, 0, 0);
const IFACE: RouterRecord = { name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };
/** The tunnel's last handshake, long before the reads: an idle tunnel (world seconds). */
export const OLD_HANDSHAKE = -1_000;

/** A peer as one read gives it: its counters and, when any, its handshake's world time. */
export interface PeerRead {
  key: string;
  /** undefined: left out of the reply (a hostile router). */
  rx: number | undefined;
  tx: number | undefined;
  handshakeAt?: number;
}

/** One read: world time `at` (s) on both clocks, or a wall clock `wallOffset` s off (a step). */
export interface Read {
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
    ...(peer.rx === undefined ? {} : { rx: String(peer.rx) }),
    ...(peer.tx === undefined ? {} : { tx: String(peer.tx) }),
    'last-handshake': formatSeconds(read.at - (peer.handshakeAt ?? OLD_HANDSHAKE)),
  };
}

/** Each read's state of every peer, `key:state`, through the real wireguard job with one memory. */
export async function states(reads: Read[], minCounterWindowSeconds?: number): Promise<string[]> {
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
export const INITIATION = 148;
export const RESPONSE = 92;
