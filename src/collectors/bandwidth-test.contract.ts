/** `bandwidth_test`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const BANDWIDTH_TEST_FAMILIES = {
  btRx: defineFamily('routeros_bandwidth_test_receive_bytes_per_second', 'gauge', ['target', 'name'], 'POST /tool/bandwidth-test rx-total-average (bits/s on the router) of the last run, in bytes per second.'),
  btTx: defineFamily('routeros_bandwidth_test_transmit_bytes_per_second', 'gauge', ['target', 'name'], 'POST /tool/bandwidth-test tx-total-average (bits/s on the router) of the last run, in bytes per second.'),
  btLost: defineFamily('routeros_bandwidth_test_lost_packets', 'gauge', ['target', 'name'], 'Packets lost in the last run of POST /tool/bandwidth-test (UDP): the sum of its sections\' lost-packets.'),
  btLastRun: defineFamily('routeros_bandwidth_test_last_run_timestamp_seconds', 'gauge', ['target', 'name'], 'Unix time the last bandwidth test finished.'),
  btSuccess: defineFamily('routeros_bandwidth_test_success', 'gauge', ['target', 'name'], '1 if the last bandwidth test ended with status "done testing".'),
} as const;

export const BANDWIDTH_TEST = {
  name: 'bandwidth_test',
  description: 'Bandwidth tests run on the router (POST /tool/bandwidth-test) to configured btest servers',
  defaultEnabled: true,
  defaultSchedule: '0 0 3 * * *',
  jobsPer: 'targets',
  healthParts: [],
  families: Object.values(BANDWIDTH_TEST_FAMILIES),
} as const satisfies CollectorDescriptor;
