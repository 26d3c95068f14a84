/** `interface`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/**
 * Every series carries `interface` and `type`: RouterOS never changes an interface's type, so `type` adds no
 * series, and it lets a query or alert pick ethernet uplinks or WireGuard tunnels without a join. The comment,
 * which users edit, lives only on the info series; the MAC address is left out (a bridge's follows its ports).
 * HELP names the RouterOS path and property a value comes from, so an operator can check it on the router.
 */
const LABELS = ['interface', 'type'] as const;

export const INTERFACE_FAMILIES = {
  info: defineFamily('routeros_interface_info', 'info', [...LABELS, 'comment'], 'interface name, type and comment (empty when unset); always 1.'),
  running: defineFamily('routeros_interface_running', 'gauge', LABELS, 'interface running (1 true, 0 false): enabled and the link up.'),
  disabled: defineFamily('routeros_interface_disabled', 'gauge', LABELS, 'interface disabled (1 true, 0 false).'),
  rxBytes: defineFamily('routeros_interface_receive_bytes_total', 'counter', LABELS, 'interface rx-byte: bytes received.'),
  txBytes: defineFamily('routeros_interface_transmit_bytes_total', 'counter', LABELS, 'interface tx-byte: bytes sent.'),
  rxPackets: defineFamily('routeros_interface_receive_packets_total', 'counter', LABELS, 'interface rx-packet: packets received.'),
  txPackets: defineFamily('routeros_interface_transmit_packets_total', 'counter', LABELS, 'interface tx-packet: packets sent.'),
  rxErrors: defineFamily('routeros_interface_receive_errors_total', 'counter', LABELS, 'interface rx-error: received packets with errors.'),
  txErrors: defineFamily('routeros_interface_transmit_errors_total', 'counter', LABELS, 'interface tx-error: packets that failed to send.'),
  rxDrops: defineFamily('routeros_interface_receive_drops_total', 'counter', LABELS, 'interface rx-drop: received packets dropped.'),
  txDrops: defineFamily('routeros_interface_transmit_drops_total', 'counter', LABELS, 'interface tx-drop: packets dropped before sending.'),
  txQueueDrops: defineFamily('routeros_interface_transmit_queue_drops_total', 'counter', LABELS, 'interface tx-queue-drop: packets dropped by the transmit queue (where RouterOS reports it).'),
  linkDowns: defineFamily('routeros_interface_link_downs_total', 'counter', LABELS, 'interface link-downs: times the link went down since the router booted.'),
  linkSpeed: defineFamily('routeros_interface_link_speed_bytes_per_second', 'gauge', LABELS, 'interface/ethernet/monitor rate (the negotiated link rate, e.g. 1Gbps) in bytes per second; running ethernet ports only.'),
} as const;

export const INTERFACE = {
  name: 'interface',
  description: 'Interface traffic, packets, errors, drops, link-downs, state and ethernet link rate',
  defaultEnabled: true,
  defaultSchedule: '*/15 * * * * *',
  jobsPer: 'router',
  healthParts: [],
  families: Object.values(INTERFACE_FAMILIES),
} as const satisfies CollectorDescriptor;
