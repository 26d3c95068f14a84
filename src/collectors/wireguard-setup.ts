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
import { auditSetupSteps, type InterfaceSetup, type SetupCheckName, type SetupCheckResult, type SetupRecords } from '../analysis/setup-audit.js';
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

/**
 * The flags the audit reads of each menu's records, and the checks a flag that does not decode leaves unjudged. The
 * audit reads a flag that is not `true` as RouterOS's default (enabled, valid, in use), which is right for a flag
 * left out; a flag given that does not decode (`disabled: "maybe"`) passed `firewall_input` on the only accept rule,
 * `address` on the only address and `route` on every route, with nothing counted (found by a hostile tester).
 */
const FLAGS: Readonly<Record<keyof SetupRecords, { keys: readonly string[]; checks: readonly SetupCheckName[] }>> = {
  interfaces: { keys: [], checks: [] },
  peers: { keys: ['disabled'], checks: ['address', 'route', 'firewall_forward'] },
  addresses: { keys: ['disabled', 'invalid'], checks: ['address', 'route'] },
  routes: { keys: ['disabled', 'active', 'inactive'], checks: ['route'] },
  filter: { keys: ['disabled'], checks: ['firewall_input', 'firewall_forward'] },
};

/** Records whose flags are read between two places where the mapping may give the event loop back. */
const FLAGS_PER_STEP = 4096;

/**
 * The checks that cannot be judged, each with why: the menus of whose records some flag did not decode (counted by
 * the menu's reader, as any value that does not decode is).
 */
function* unjudgedChecks(records: SetupRecords, readers: Readonly<Record<keyof SetupRecords, FieldReader>>): Steps<Map<SetupCheckName, string>> {
  const unjudged = new Map<SetupCheckName, string>();
  for (const menu of Object.keys(FLAGS) as (keyof SetupRecords)[]) {
    const { keys, checks } = FLAGS[menu];
    const reader = readers[menu];
    let unreadable = 0;
    for (const [index, record] of records[menu].entries()) {
      if (index % FLAGS_PER_STEP === FLAGS_PER_STEP - 1) yield;
      const before = reader.errors;
      for (const key of keys) reader.bool(record, key);
      if (reader.errors > before) unreadable++;
    }
    if (unreadable === 0) continue;
    const why = `cannot be judged: ${unreadable} record(s) of ${MENUS[menu]} have a ${keys.join(', ')} that does not decode`;
    for (const check of checks) if (!unjudged.has(check)) unjudged.set(check, why);
  }
  return unjudged;
}

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
  const unjudged = yield* unjudgedChecks(keyed, Object.fromEntries(menus.map((menu, index) => [menu, readers[index] as FieldReader])) as Record<keyof SetupRecords, FieldReader>);
  // The audit's own problems (ports, addresses that do not decode) are the interfaces reader's, as before.
  for (const audited of yield* auditSetupSteps(keyed, readers[0] as FieldReader)) {
    const setup = unjudged.size === 0 ? audited : { ...audited, checks: audited.checks.map((check) => withUnjudged(check, unjudged)) };
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

/** A check that cannot be judged fails, saying why (as a tunnel whose state cannot be told is degraded). */
function withUnjudged(check: SetupCheckResult, unjudged: ReadonlyMap<SetupCheckName, string>): SetupCheckResult {
  const why = unjudged.get(check.check);
  return why === undefined ? check : { check: check.check, ok: false, detail: why };
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
