/** `ping`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const PING_FAMILIES = {
  pingSuccess: defineFamily('routeros_ping_success', 'gauge', ['target', 'name'], '1 if the last POST /ping run got any reply.'),
  pingRtt: defineFamily('routeros_ping_rtt_seconds', 'gauge', ['target', 'name', 'stat'], 'Round-trip time of the last POST /ping run (min-rtt, avg-rtt, max-rtt).'),
  pingLoss: defineFamily('routeros_ping_loss_ratio', 'gauge', ['target', 'name'], 'Lost over sent probes of the last POST /ping run (from its sent and received totals; packet-loss / 100 when it has none).'),
  pingSent: defineFamily('routeros_ping_packets_sent_total', 'counter', ['target', 'name'], 'POST /ping sent, summed across runs.'),
  pingReceived: defineFamily('routeros_ping_packets_received_total', 'counter', ['target', 'name'], 'POST /ping received, summed across runs.'),
} as const;

export const PING = {
  name: 'ping',
  description: 'Bounded pings run on the router (POST /ping) to configured targets',
  // On, but it only runs for routers with targets configured.
  defaultEnabled: true,
  defaultSchedule: '*/30 * * * * *',
  jobsPer: 'targets',
  healthParts: ['pings'],
  families: Object.values(PING_FAMILIES),
} as const satisfies CollectorDescriptor;
