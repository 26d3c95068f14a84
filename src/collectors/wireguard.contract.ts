/** `wireguard`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const WIREGUARD_FAMILIES = {
  wgInterfaceInfo: defineFamily('routeros_wireguard_interface_info', 'info', ['interface', 'public_key'], 'interface/wireguard name and public-key; always 1.'),
  wgInterfaceRunning: defineFamily('routeros_wireguard_interface_running', 'gauge', ['interface'], 'interface/wireguard running (1 true, 0 false).'),
  wgInterfaceDisabled: defineFamily('routeros_wireguard_interface_disabled', 'gauge', ['interface'], 'interface/wireguard disabled (1 true, 0 false).'),
  wgInterfaceListenPort: defineFamily('routeros_wireguard_interface_listen_port', 'gauge', ['interface'], 'interface/wireguard listen-port.'),
  wgInterfaceMtu: defineFamily('routeros_wireguard_interface_mtu_bytes', 'gauge', ['interface'], 'interface/wireguard mtu.'),
  wgPeerInfo: defineFamily('routeros_wireguard_peer_info', 'info', ['interface', 'public_key', 'name', 'endpoint', 'allowed_address'], 'interface/wireguard/peers endpoint (current-endpoint-address:port, else endpoint-address:port) and allowed-address; always 1.'),
  wgPeerRx: defineFamily('routeros_wireguard_peer_receive_bytes_total', 'counter', ['interface', 'public_key', 'name'], 'interface/wireguard/peers rx: bytes received from the peer.'),
  wgPeerTx: defineFamily('routeros_wireguard_peer_transmit_bytes_total', 'counter', ['interface', 'public_key', 'name'], 'interface/wireguard/peers tx: bytes sent to the peer.'),
  wgPeerHandshake: defineFamily('routeros_wireguard_peer_latest_handshake_timestamp_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Unix time of the latest handshake: collection time minus interface/wireguard/peers last-handshake; 0 if never.'),
  wgPeerDisabled: defineFamily('routeros_wireguard_peer_disabled', 'gauge', ['interface', 'public_key', 'name'], 'interface/wireguard/peers disabled (1 true, 0 false).'),
  wgPeerKeepalive: defineFamily('routeros_wireguard_peer_persistent_keepalive_seconds', 'gauge', ['interface', 'public_key', 'name'], 'interface/wireguard/peers persistent-keepalive; 0 when off.'),
  wgPeerHealthy: defineFamily('routeros_wireguard_peer_healthy', 'gauge', ['interface', 'public_key', 'name'], 'Health verdict of an enabled, judged peer: 0 if a session is expected (keepalive, traffic being sent, or expect: always) and it is down or never shook hands, else 1 (idle peers are healthy). Disabled and excluded peers, and peers of a disabled or not running interface, have no series.'),
  wgPeerState: defineFamily('routeros_wireguard_peer_state', 'gauge', ['interface', 'public_key', 'name', 'state'], 'Liveness state of the peer (up, idle, down, never, unknown, disabled; docs/health.md): one series per peer, labelled by its current state, always 1.'),
  wgPeerProbe: defineFamily('routeros_wireguard_peer_probe_success', 'gauge', ['interface', 'public_key', 'name'], 'Data-plane probe of this collection (health.probe_tunnels): 1 if a ping from the router through the tunnel (POST /ping interface=, src-address=, count=1) to the peer\'s tunnel address was answered, else 0. No series when not probed.'),
  wgPeerExpectedBy: defineFamily('routeros_wireguard_peer_handshake_expected_by_timestamp_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Unix time by which the next handshake is due for a peer expected up: latest handshake plus the bound (180 s + persistent-keepalive + 5 s, or handshake_stale_after for expect: always without keepalive). No series when nothing is expected or it never shook hands.'),
} as const;

export const WIREGUARD = {
  name: 'wireguard',
  description: 'WireGuard interfaces and peers: state, traffic counters, handshakes and peer health',
  defaultEnabled: true,
  defaultSchedule: '*/15 * * * * *',
  jobsPer: 'router',
  healthParts: ['wireguard'],
  families: Object.values(WIREGUARD_FAMILIES),
} as const satisfies CollectorDescriptor;
