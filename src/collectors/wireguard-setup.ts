/**
 * `wireguard_setup`: the tunnel set-up audit (src/analysis/setup-audit.ts) → routeros_wireguard_interface_setup_ok.
 * Read-only GETs, always with .proplist (never a key). Off by default: it needs read access to routes and the
 * firewall, and those change rarely, so it runs every 5 minutes.
 */
import type { RouterRecord } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { WIREGUARD_FAMILIES } from './wireguard.contract.js';
import { WIREGUARD_SETUP, WIREGUARD_SETUP_FAMILIES as F } from './wireguard-setup.contract.js';
import { auditSetupSteps, type InterfaceSetup, type SetupRecords } from '../analysis/setup-audit.js';
import { finish, finishInSlices, type Steps } from '../util/slices.js';
import { FILTER_PROPLIST } from '../analysis/firewall.js';
import type { Collector, JobContext, JobResult } from './types.js';
import { FieldReader, problemsOf } from '../analysis/decoding.js';

export const SETUP_PROPLISTS = {
  interfaces: ['.id', 'name', 'listen-port', 'disabled'],
  peers: ['.id', 'interface', 'name', 'comment', 'public-key', 'allowed-address', 'disabled'],
  addresses: ['.id', 'address', 'interface', 'actual-interface', 'disabled', 'invalid'],
  routes: ['.id', 'dst-address', 'gateway', 'immediate-gw', 'distance', 'routing-table', 'disabled', 'inactive', 'active'],
  filter: FILTER_PROPLIST,
} as const;

export interface WireguardSetupData {
  /** Unix ms. */
  collectedAt: number;
  interfaces: InterfaceSetup[];
}

/** Pure mapping of the five replies to samples and the audit's findings. */
export function mapWireguardSetup(records: SetupRecords, routerLabel: RouterLabel, now: number): JobResult<WireguardSetupData> {
  return finish(mapWireguardSetupSteps(records, routerLabel, now));
}

/** mapWireguardSetup as steps (util/slices.ts): the audit goes an interface at a time. */
export function* mapWireguardSetupSteps(records: SetupRecords, routerLabel: RouterLabel, now: number): Steps<JobResult<WireguardSetupData>> {
  const samples = new SampleSet();
  const interfaces: InterfaceSetup[] = [];
  const seen = new Set<string>();
  const read = new FieldReader('interface/wireguard');
  for (const setup of yield* auditSetupSteps(records, read)) {
    // Unique as written out: names that differ only in what the format cannot carry come out alike.
    const labels = seriesLabels(WIREGUARD_FAMILIES.wgInterfaceRunning, routerLabel, [setup.interface]);
    if (seen.has(labels)) continue;
    seen.add(labels);
    interfaces.push(setup);
    for (const check of setup.checks) samples.addExtended(F.wgInterfaceSetupOk, labels, [check.check], check.ok ? 1 : 0);
  }
  return { samples, data: { collectedAt: now, interfaces }, ...problemsOf(read) };
}

async function fetchRecords(context: JobContext): Promise<SetupRecords> {
  const list = (menu: string, proplist: readonly string[]): Promise<RouterRecord[]> =>
    context.client.list(menu, { proplist, signal: context.signal });
  // Sequential on purpose, like the wireguard collector: routers answer slower under parallel REST calls.
  const interfaces = await list('interface/wireguard', SETUP_PROPLISTS.interfaces);
  const peers = await list('interface/wireguard/peers', SETUP_PROPLISTS.peers);
  const addresses = await list('ip/address', SETUP_PROPLISTS.addresses);
  const routes = await list('ip/route', SETUP_PROPLISTS.routes);
  const filter = await list('ip/firewall/filter', SETUP_PROPLISTS.filter);
  return { interfaces, peers, addresses, routes, filter };
}

export const wireguardSetupCollector: Collector<WireguardSetupData, 'wireguard_setup'> = {
  ...WIREGUARD_SETUP,
  name: 'wireguard_setup',
  jobs: (router) => [
    {
      collector: 'wireguard_setup',
      job: 'wireguard_setup',
      schedule: router.schedules.wireguard_setup,
      // Five requests in a row, each with the router's timeout.
      deadlineSeconds: router.timeoutSeconds * 5,
      connection: 'reads',
      settings: null,
      async run(context: JobContext) {
        return finishInSlices(mapWireguardSetupSteps(await fetchRecords(context), context.routerLabel, context.now()), { signal: context.signal });
      },
    },
  ],
};
