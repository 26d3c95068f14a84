/**
 * The peer verdict, a pure function: an enabled peer is healthy when its latest handshake is no older than
 * `handshake_stale_after`; a peer that never shook hands is unhealthy (`never`). Disabled peers and peers
 * excluded by config are reported but not judged.
 */
import type { HealthConfig } from '../config/types.js';

/**
 * The one peer verdict, used by the wireguard collector (routeros_wireguard_peer_healthy, at collection time) and
 * by /health (with its own clock): both call judgePeer, so they cannot disagree.
 * `interface_disabled`: peers of a disabled interface cannot shake hands, and whoever disabled the interface does
 * not want them judged.
 */
export type PeerReason = 'ok' | 'stale' | 'never' | 'disabled' | 'excluded' | 'interface_disabled' | 'handshake_unreadable';

export interface PeerVerdict {
  judged: boolean;
  healthy: boolean;
  reason: PeerReason;
}

export interface JudgedPeerInput {
  /** The peer's name (7.15+), else its comment, else ''. */
  name: string;
  comment: string | undefined;
  disabled: boolean;
  /** Seconds since the latest handshake; undefined when never. */
  handshakeAgeSeconds: number | undefined;
  /** The router sent a last-handshake this exporter could not read: neither fresh, stale nor never. */
  handshakeUnreadable?: boolean;
  /** The peer's interface is disabled. */
  interfaceDisabled?: boolean;
}

/**
 * The peer label of the contract: its `name` (RouterOS 7.15+), else its `comment`, else ''. An empty name counts
 * as none: RouterOS sends `"name":""` for a peer whose name was cleared, and its comment is then what people use.
 */
export function peerLabel(name: string | undefined, comment: string | undefined): string {
  return name !== undefined && name !== '' ? name : comment ?? '';
}

export function isExcluded(peer: Pick<JudgedPeerInput, 'name' | 'comment'>, health: HealthConfig): boolean {
  const names = [peer.name, peer.comment].filter((value): value is string => value !== undefined && value !== '');
  if (names.some((name) => health.excludePeers.includes(name))) return true;
  const pattern = health.excludePeerPattern;
  return pattern !== undefined && names.some((name) => pattern.test(name));
}

export function judgePeer(peer: JudgedPeerInput, health: HealthConfig): PeerVerdict {
  if (peer.disabled) return { judged: false, healthy: true, reason: 'disabled' };
  if (peer.interfaceDisabled === true) return { judged: false, healthy: true, reason: 'interface_disabled' };
  if (isExcluded(peer, health)) return { judged: false, healthy: true, reason: 'excluded' };
  if (peer.handshakeUnreadable === true) return { judged: false, healthy: true, reason: 'handshake_unreadable' };
  if (peer.handshakeAgeSeconds === undefined) return { judged: true, healthy: false, reason: 'never' };
  if (peer.handshakeAgeSeconds > health.handshakeStaleAfterSeconds) return { judged: true, healthy: false, reason: 'stale' };
  return { judged: true, healthy: true, reason: 'ok' };
}
