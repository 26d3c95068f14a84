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
  wgPeerHandshake: defineFamily('routeros_wireguard_peer_latest_handshake_timestamp_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Unix time of the latest handshake: collection time minus interface/wireguard/peers last-handshake (whole seconds, so one handshake keeps the time first written for it); 0 if never.'),
  wgPeerDisabled: defineFamily('routeros_wireguard_peer_disabled', 'gauge', ['interface', 'public_key', 'name'], 'interface/wireguard/peers disabled (1 true, 0 false).'),
  wgPeerKeepalive: defineFamily('routeros_wireguard_peer_persistent_keepalive_seconds', 'gauge', ['interface', 'public_key', 'name'], 'interface/wireguard/peers persistent-keepalive; no series when off (0).'),
  wgPeerHealthy: defineFamily('routeros_wireguard_peer_healthy', 'gauge', ['interface', 'public_key', 'name'], 'Health verdict of an enabled, judged peer: 0 if a session is expected (keepalive, traffic being sent, or expect: always) and it is down, blocked (a fresh handshake, every tunnel probe lost) or never shook hands (a keepalive or expect: always peer only once its bound has passed since the router started: a reboot forgets every handshake), else 1 (idle peers are healthy). Disabled and excluded peers, and peers of a disabled or not running interface, have no series.'),
  wgPeerState: defineFamily('routeros_wireguard_peer_state', 'gauge', ['interface', 'public_key', 'name', 'state'], 'Liveness state of the peer (up, idle, down, never, blocked, unknown, disabled; docs/health.md): one series per peer, labelled by its current state, always 1.'),
  wgPeerProbe: defineFamily('routeros_wireguard_peer_probe_success', 'gauge', ['interface', 'public_key', 'name'], 'Data-plane probe of the peer (health.probe, health.probe_tunnels): 1 if a ping from the router through the tunnel (POST /ping interface=, src-address=, count=health.probe_count) to the peer\'s tunnel address was answered at least once, else 0. Series only for probed peers.'),
  wgPeerProbeRtt: defineFamily('routeros_wireguard_peer_probe_rtt_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Data-plane probe round trip: avg-rtt of the POST /ping reply through the tunnel. Series only for probed peers that answered.'),
  wgPeerProbeLoss: defineFamily('routeros_wireguard_peer_probe_loss_ratio', 'gauge', ['interface', 'public_key', 'name'], 'Data-plane probe loss, 0 to 1: POST /ping sent minus received over sent, through the tunnel. Series only for probed peers.'),
  wgProbeSkipped: defineFamily('routeros_wireguard_probe_skipped_peers', 'gauge', ['interface', 'reason'], 'Peers of the interface the probe settings select but not probed this run, by reason: no_tunnel_address (no /32 IPv4 in interface/wireguard/peers allowed-address), no_source_address (no ip/address on the interface), over_cap (past 16 per run). Series only for interfaces where the settings select a peer.'),
  wgPeerExpectedBy: defineFamily('routeros_wireguard_peer_handshake_expected_by_timestamp_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Unix time by which the next handshake is due for a peer expected up: latest handshake (or an answered tunnel probe after it; without a handshake since the router started, its start) plus the bound (180 s + persistent-keepalive + 5 s, or handshake_stale_after for expect: always without keepalive). No series when nothing is expected, or the peer has no handshake and is not in its grace after a restart (the router\'s start not read, or the bound since it passed).'),
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
