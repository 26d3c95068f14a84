/**
 * Every per-router metric family the exporter serves, in exposition order.
 * HELP names the RouterOS path and property a value comes from, so an operator can check it on the router.
 */
import { openMetricsFamilyName, unitOf, type Unit } from './metadata.js';

/** `info`: a gauge of 1 whose labels carry text (OpenMetrics' info type; a gauge in text 0.0.4). */
export type FamilyType = 'gauge' | 'counter' | 'info';

export interface Family {
  readonly name: string;
  readonly type: FamilyType;
  readonly help: string;
  /** The unit its name ends in ('' for none), stated in OpenMetrics' `# UNIT`. */
  readonly unit: Unit | '';
  /** Labels besides `router`, in exposition order. */
  readonly labels: readonly string[];
  /** Position in the exposition; set by the registry below. */
  readonly index: number;
}

const list: Family[] = [];

function family(name: string, type: FamilyType, labels: readonly string[], help: string): Family {
  // The unit follows from the name, so that a new family cannot state one its name does not end in.
  const entry: Family = { name, type, help, unit: unitOf(openMetricsFamilyName(name, type), type), labels, index: list.length };
  list.push(entry);
  return entry;
}

export const F = {
  up: family('routeros_up', 'gauge', [], '1 if the last collection of system/resource from the router succeeded.'),
  collectorSuccess: family('routeros_collector_success', 'gauge', ['collector'], "1 if the collector's last run succeeded (for ping and bandwidth_test: every target's last run)."),
  collectorDuration: family('routeros_collector_duration_seconds', 'gauge', ['collector'], "How long the collector's last run took."),
  collectorLastSuccess: family('routeros_collector_last_success_timestamp_seconds', 'gauge', ['collector'], 'Unix time of the last successful run of the collector (for several targets: the oldest of their last successes).'),
  collectorErrors: family('routeros_collector_errors_total', 'counter', ['collector', 'reason'], 'Failed collector runs by reason.'),
  collectorDecodeErrors: family('routeros_collector_decode_errors_total', 'counter', ['collector'], 'Values from the router that did not decode or were out of range for their field (a negative counter, a load over 100 %, a handshake before 1970, a ping reply without sent/received), summed across runs; their series were left out.'),
  collectorBackoff: family('routeros_collector_backoff_seconds', 'gauge', ['collector'], 'How long the collector waits before its next attempt after repeated failures (0 when not backing off).'),

  systemInfo: family('routeros_system_info', 'info', ['board_name', 'architecture', 'cpu', 'platform', 'version'], 'Router identity from system/resource (board-name, architecture-name, cpu, platform, version); always 1.'),
  cpuLoad: family('routeros_system_cpu_load_ratio', 'gauge', [], 'system/resource cpu-load / 100.'),
  cpuCores: family('routeros_system_cpu_cores', 'gauge', [], 'system/resource cpu-count.'),
  cpuFrequency: family('routeros_system_cpu_frequency_hertz', 'gauge', [], 'system/resource cpu-frequency (MHz on the router) in hertz.'),
  memoryFree: family('routeros_system_memory_free_bytes', 'gauge', [], 'system/resource free-memory.'),
  memoryTotal: family('routeros_system_memory_total_bytes', 'gauge', [], 'system/resource total-memory.'),
  diskFree: family('routeros_system_disk_free_bytes', 'gauge', [], 'system/resource free-hdd-space.'),
  diskTotal: family('routeros_system_disk_total_bytes', 'gauge', [], 'system/resource total-hdd-space.'),
  uptime: family('routeros_system_uptime_seconds', 'gauge', [], 'system/resource uptime.'),

  wgInterfaceInfo: family('routeros_wireguard_interface_info', 'info', ['interface', 'public_key'], 'interface/wireguard name and public-key; always 1.'),
  wgInterfaceRunning: family('routeros_wireguard_interface_running', 'gauge', ['interface'], 'interface/wireguard running (1 true, 0 false).'),
  wgInterfaceDisabled: family('routeros_wireguard_interface_disabled', 'gauge', ['interface'], 'interface/wireguard disabled (1 true, 0 false).'),
  wgInterfaceListenPort: family('routeros_wireguard_interface_listen_port', 'gauge', ['interface'], 'interface/wireguard listen-port.'),
  wgInterfaceMtu: family('routeros_wireguard_interface_mtu_bytes', 'gauge', ['interface'], 'interface/wireguard mtu.'),
  wgInterfaceSetupOk: family('routeros_wireguard_interface_setup_ok', 'gauge', ['interface', 'check'], 'Tunnel set-up audit per check (address: ip/address on the interface; route: ip/route through it for routed peer subnets; firewall_input / firewall_forward: ip/firewall/filter accept before any drop); 1 passes, 0 fails.'),

  wgPeerInfo: family('routeros_wireguard_peer_info', 'info', ['interface', 'public_key', 'name', 'endpoint', 'allowed_address'], 'interface/wireguard/peers endpoint (current-endpoint-address:port, else endpoint-address:port) and allowed-address; always 1.'),
  wgPeerRx: family('routeros_wireguard_peer_receive_bytes_total', 'counter', ['interface', 'public_key', 'name'], 'interface/wireguard/peers rx: bytes received from the peer.'),
  wgPeerTx: family('routeros_wireguard_peer_transmit_bytes_total', 'counter', ['interface', 'public_key', 'name'], 'interface/wireguard/peers tx: bytes sent to the peer.'),
  wgPeerHandshake: family('routeros_wireguard_peer_latest_handshake_timestamp_seconds', 'gauge', ['interface', 'public_key', 'name'], 'Unix time of the latest handshake: collection time minus interface/wireguard/peers last-handshake; 0 if never.'),
  wgPeerDisabled: family('routeros_wireguard_peer_disabled', 'gauge', ['interface', 'public_key', 'name'], 'interface/wireguard/peers disabled (1 true, 0 false).'),
  wgPeerHealthy: family('routeros_wireguard_peer_healthy', 'gauge', ['interface', 'public_key', 'name'], 'Health verdict of an enabled, judged peer: 1 if its latest handshake is within handshake_stale_after, else 0. Disabled and excluded peers, and peers of a disabled interface, have no series.'),

  pingSuccess: family('routeros_ping_success', 'gauge', ['target', 'name'], '1 if the last POST /ping run got any reply.'),
  pingRtt: family('routeros_ping_rtt_seconds', 'gauge', ['target', 'name', 'stat'], 'Round-trip time of the last POST /ping run (min-rtt, avg-rtt, max-rtt).'),
  pingLoss: family('routeros_ping_loss_ratio', 'gauge', ['target', 'name'], 'packet-loss / 100 of the last POST /ping run.'),
  pingSent: family('routeros_ping_packets_sent_total', 'counter', ['target', 'name'], 'POST /ping sent, summed across runs.'),
  pingReceived: family('routeros_ping_packets_received_total', 'counter', ['target', 'name'], 'POST /ping received, summed across runs.'),

  btRx: family('routeros_bandwidth_test_receive_bytes_per_second', 'gauge', ['target', 'name'], 'POST /tool/bandwidth-test rx-total-average (bits/s on the router) of the last run, in bytes per second.'),
  btTx: family('routeros_bandwidth_test_transmit_bytes_per_second', 'gauge', ['target', 'name'], 'POST /tool/bandwidth-test tx-total-average (bits/s on the router) of the last run, in bytes per second.'),
  btLost: family('routeros_bandwidth_test_lost_packets', 'gauge', ['target', 'name'], 'POST /tool/bandwidth-test lost-packets of the last run.'),
  btLastRun: family('routeros_bandwidth_test_last_run_timestamp_seconds', 'gauge', ['target', 'name'], 'Unix time the last bandwidth test finished.'),
  btSuccess: family('routeros_bandwidth_test_success', 'gauge', ['target', 'name'], '1 if the last bandwidth test ended with status "done testing".'),
} as const;

export const FAMILIES: readonly Family[] = list;
