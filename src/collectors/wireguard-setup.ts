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

/**
 * What makes a record one of each menu's (FieldReader.keyed): a reply of records none of which holds them is not
 * that menu's data but a shape error. A just-booted router answered its /user list (`name`, `group`) for every
 * menu, and the audit found a set-up fault on an interface named after a user (found by review).
 */
const SETUP_KEYS = {
  interfaces: ['name', 'listen-port'],
  peers: ['interface', 'public-key'],
  addresses: ['address', 'interface'],
  routes: ['dst-address'],
  filter: ['chain'],
} as const satisfies Record<keyof SetupRecords, readonly string[]>;

/** The menus the audit reads, in the order they are read (and their readers' problems are told). */
const MENUS: Record<keyof SetupRecords, string> = {
  interfaces: 'interface/wireguard',
  peers: 'interface/wireguard/peers',
  addresses: 'ip/address',
  routes: 'ip/route',
  filter: 'ip/firewall/filter',
};

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
  const menus = Object.keys(MENUS) as (keyof SetupRecords)[];
  const readers = menus.map((menu) => new FieldReader(MENUS[menu]));
  const keyed = {} as Record<keyof SetupRecords, readonly RouterRecord[]>;
  for (const [index, menu] of menus.entries()) keyed[menu] = yield* (readers[index] as FieldReader).keyedSteps(records[menu], SETUP_KEYS[menu]);
  // The audit's own problems (ports, addresses that do not decode) are the interfaces reader's, as before.
  for (const setup of yield* auditSetupSteps(keyed, readers[0] as FieldReader)) {
    // Unique as written out: names that differ only in what the format cannot carry come out alike.
    const labels = seriesLabels(WIREGUARD_FAMILIES.wgInterfaceRunning, routerLabel, [setup.interface]);
    if (seen.has(labels)) continue;
    seen.add(labels);
    // Its checks alone: the routed subnets they were made from are the audit's, not kept (AuditedInterface).
    interfaces.push({ interface: setup.interface, listenPort: setup.listenPort, checks: setup.checks });
    for (const check of setup.checks) samples.addExtended(F.wgInterfaceSetupOk, labels, [check.check], check.ok ? 1 : 0);
  }
  return { samples, data: { collectedAt: now, interfaces }, ...problemsOf(...readers) };
}

async function fetchRecords(context: JobContext): Promise<SetupRecords> {
  const list = (menu: string, proplist: readonly string[]): Promise<RouterRecord[]> =>
    context.client.list(menu, { proplist, signal: context.signal });
  // Sequential on purpose, like the wireguard collector: routers answer slower under parallel REST calls.
  const interfaces = await list(MENUS.interfaces, SETUP_PROPLISTS.interfaces);
  const peers = await list(MENUS.peers, SETUP_PROPLISTS.peers);
  const addresses = await list(MENUS.addresses, SETUP_PROPLISTS.addresses);
  const routes = await list(MENUS.routes, SETUP_PROPLISTS.routes);
  const filter = await list(MENUS.filter, SETUP_PROPLISTS.filter);
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
