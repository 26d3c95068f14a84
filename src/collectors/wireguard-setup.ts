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
import { auditSetupSteps, type InterfaceSetup, type ListRecords, type SetupCheckName, type SetupCheckResult, type SetupRecords } from '../analysis/setup-audit.js';
import { finish, finishInSlices, type Steps } from '../util/slices.js';
import { FILTER_PROPLIST } from '../analysis/firewall.js';
import { inMainTable } from '../analysis/setup-routes.js';
import type { Collector, JobContext, JobResult, OptionalRead } from './types.js';
import { FieldReader, problemsOf } from '../analysis/decoding.js';
import { readUnlessFailed } from './optional-read.js';
import { RouterOsError } from '../routeros/errors.js';
import { withDecodingOf } from '../routeros/reply-text.js';

export const SETUP_PROPLISTS = {
  interfaces: ['.id', 'name', 'listen-port', 'disabled'],
  peers: ['.id', 'interface', 'name', 'comment', 'public-key', 'allowed-address', 'disabled'],
  addresses: ['.id', 'address', 'interface', 'actual-interface', 'disabled', 'invalid'],
  routes: ['.id', 'dst-address', 'gateway', 'immediate-gw', 'distance', 'routing-table', 'disabled', 'inactive', 'active', 'dynamic'],
  filter: FILTER_PROPLIST,
  // Optional (LIST_MENUS): what makes a list's members known, or not (built in, made of other lists).
  lists: ['.id', 'name', 'builtin', 'include', 'exclude'],
  listMembers: ['.id', 'list', 'interface', 'disabled'],
} as const;

/**
 * The interface lists and their members: read when the user may (an optional read, optional-read.ts), so that a
 * rule's `in-interface-list` is judged by its members; failed, lists are judged by their names, as before they were
 * read.
 */
const LIST_MENUS = { lists: 'interface/list', listMembers: 'interface/list/member' } as const;
const LIST_KEYS = { lists: ['name'], listMembers: ['list', 'interface'] } as const;

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
 * The flags the audit reads of each menu's records, and the checks a flag that does not decode leaves unjudged: for
 * the record's own interface (`own`), or every interface (`all`). The audit reads a flag that is not `true` as
 * RouterOS's default (enabled, valid, in use), which is right for a flag left out; a flag given that does not
 * decode (`disabled: "maybe"`) passed `firewall_input` on the only accept rule, `address` on the only address and
 * `route` on every route, with nothing counted (found by a hostile tester).
 */
const FLAGS: Readonly<Record<keyof SetupRecords, { keys: readonly string[]; own: readonly SetupCheckName[]; all: readonly SetupCheckName[] }>> = {
  interfaces: { keys: [], own: [], all: [] },
  // A peer's routed subnets are its interface's (the address check reads them only for a hint).
  peers: { keys: ['disabled'], own: ['route', 'firewall_forward'], all: [] },
  // An address is its interface's, and a connected network any route lookup may take.
  addresses: { keys: ['disabled', 'invalid'], own: ['address'], all: ['route'] },
  routes: { keys: ['disabled', 'active', 'inactive'], own: [], all: ['route'] },
  filter: { keys: ['disabled'], own: [], all: ['firewall_input', 'firewall_forward'] },
};

/** Records whose flags are read between two places where the mapping may give the event loop back. */
const FLAGS_PER_STEP = 4096;

/**
 * A record the audit leaves out whatever its unreadable flag would say: another of its flags excludes it, or it is
 * in no place the audit looks (a rule of no chain or of `output`, a route of another table). Left unjudged on their
 * account, the checks went further than the reply's fault (found by review).
 */
function ignoredByAudit(menu: keyof SetupRecords, record: RouterRecord, read: ReadonlyMap<string, boolean | undefined>): boolean {
  if (read.get('disabled') === true || read.get('invalid') === true || read.get('inactive') === true || read.get('active') === false) return true;
  if (menu === 'filter') return record['chain'] === undefined || record['chain'] === 'output';
  if (menu === 'routes') return !inMainTable(record);
  return false;
}

/** Checks that cannot be judged, each with why, on the interfaces named (undefined: on every interface). */
type Unjudged = Map<SetupCheckName, { why: string; interfaces: Set<string> | undefined }>;

/** The menus of whose records some flag did not decode (counted by the menu's reader, as any such value is). */
function* unjudgedChecks(records: SetupRecords, readers: Readonly<Record<keyof SetupRecords, FieldReader>>): Steps<Unjudged> {
  const unjudged: Unjudged = new Map();
  const mark = (check: SetupCheckName, why: string, iface: string | undefined): void => {
    const entry = unjudged.get(check) ?? { why, interfaces: new Set<string>() };
    unjudged.set(check, entry);
    if (iface === undefined) entry.interfaces = undefined;
    else entry.interfaces?.add(iface);
  };
  for (const menu of Object.keys(FLAGS) as (keyof SetupRecords)[]) {
    const { keys, own, all } = FLAGS[menu];
    if (keys.length === 0) continue;
    const reader = readers[menu];
    const why = `cannot be judged: a record of ${MENUS[menu]} has a ${keys.join(', ')} that does not decode`;
    for (const [index, record] of records[menu].entries()) {
      if (index % FLAGS_PER_STEP === FLAGS_PER_STEP - 1) yield;
      const before = reader.errors;
      const read = new Map<string, boolean | undefined>();
      for (const key of keys) read.set(key, reader.bool(record, key));
      if (reader.errors === before || ignoredByAudit(menu, record, read)) continue;
      const iface = record['interface'] ?? record['actual-interface'];
      for (const check of all) mark(check, why, undefined);
      if (iface !== undefined) for (const check of own) mark(check, why, iface);
    }
  }
  return unjudged;
}

export interface WireguardSetupData {
  /** Unix ms. */
  collectedAt: number;
  interfaces: InterfaceSetup[];
}

/** Pure mapping of the five replies (and the interface lists', when read) to samples and the audit's findings. */
export function mapWireguardSetup(records: SetupRecords, routerLabel: RouterLabel, now: number, lists?: ListRecords): JobResult<WireguardSetupData> {
  return finish(mapWireguardSetupSteps(records, routerLabel, now, lists));
}

/** mapWireguardSetup as steps (util/slices.ts): the audit goes an interface at a time. */
export function* mapWireguardSetupSteps(records: SetupRecords, routerLabel: RouterLabel, now: number, lists?: ListRecords): Steps<JobResult<WireguardSetupData>> {
  const samples = new SampleSet();
  const interfaces: InterfaceSetup[] = [];
  const seen = new Set<string>();
  const menus = Object.keys(MENUS) as (keyof SetupRecords)[];
  const readers = menus.map((menu) => new FieldReader(MENUS[menu]));
  const keyed = {} as Record<keyof SetupRecords, readonly RouterRecord[]>;
  // Marked as the reply was read (routeros/reply-text.ts), so a fix writes a name outside ASCII as the router's bytes.
  for (const [index, menu] of menus.entries()) keyed[menu] = withDecodingOf(records[menu], yield* (readers[index] as FieldReader).keyedSteps(records[menu], SETUP_KEYS[menu]));
  const listReaders = { lists: new FieldReader(LIST_MENUS.lists), listMembers: new FieldReader(LIST_MENUS.listMembers) };
  const keyedLists = lists === undefined ? undefined : yield* keyedListSteps(lists, listReaders);
  const unjudged = yield* unjudgedChecks(keyed, Object.fromEntries(menus.map((menu, index) => [menu, readers[index] as FieldReader])) as Record<keyof SetupRecords, FieldReader>);
  // The audit's own problems (ports, addresses that do not decode) are the interfaces reader's, as before.
  for (const audited of yield* auditSetupSteps(keyed, readers[0] as FieldReader, keyedLists)) {
    const setup = unjudged.size === 0 ? audited : { ...audited, checks: audited.checks.map((check) => withUnjudged(check, audited.interface, unjudged)) };
    // Unique as written out: names that differ only in what the format cannot carry come out alike.
    const labels = seriesLabels(WIREGUARD_FAMILIES.wgInterfaceRunning, routerLabel, [setup.interface]);
    if (seen.has(labels)) continue;
    seen.add(labels);
    // Its checks alone: the routed subnets they were made from are the audit's, not kept (AuditedInterface).
    interfaces.push({ interface: setup.interface, listenPort: setup.listenPort, checks: setup.checks });
    for (const check of setup.checks) samples.addExtended(F.wgInterfaceSetupOk, labels, [check.check], check.ok ? 1 : 0);
  }
  return { samples, data: { collectedAt: now, interfaces }, ...problemsOf(...readers, listReaders.lists, listReaders.listMembers) };
}

/**
 * The lists' replies kept to records of their menus; a reply none of whose records is one (a shape error) leaves
 * the lists unknown, told as a problem, rather than fail the audit over a part that only adds to it. A list's
 * `builtin` or a member's `disabled` that does not decode is counted here, and leaves its list unknown
 * (setup-audit.ts: interfaceListsSteps).
 */
function* keyedListSteps(lists: ListRecords, readers: Record<keyof typeof LIST_MENUS, FieldReader>): Steps<ListRecords | undefined> {
  try {
    const kept = yield* keyedWithFlagSteps(readers.lists, lists.lists, LIST_KEYS.lists, 'builtin');
    const members = yield* keyedWithFlagSteps(readers.listMembers, lists.members, LIST_KEYS.listMembers, 'disabled');
    return { lists: kept, members };
  } catch (error) {
    if (!(error instanceof RouterOsError) || error.code !== 'ROS_ERR_SHAPE') throw error;
    readers.lists.problem(`or its members are not read: ${error.message}`);
    return undefined;
  }
}

/** A reply kept to its menu's records (FieldReader.keyedSteps), with each record's `flag` read, so one that does not decode is counted. */
function* keyedWithFlagSteps(reader: FieldReader, records: readonly RouterRecord[], keys: readonly string[], flag: string): Steps<readonly RouterRecord[]> {
  const kept = yield* reader.keyedSteps(records, keys);
  for (let index = 0; index < kept.length; index++) {
    if (index % FLAGS_PER_STEP === FLAGS_PER_STEP - 1) yield;
    reader.bool(kept[index] as RouterRecord, flag);
  }
  return kept;
}

/** A check that cannot be judged on `iface` fails, saying why (as a tunnel whose state cannot be told is degraded). */
function withUnjudged(check: SetupCheckResult, iface: string, unjudged: Unjudged): SetupCheckResult {
  const entry = unjudged.get(check.check);
  if (entry === undefined || (entry.interfaces !== undefined && !entry.interfaces.has(iface))) return check;
  return { check: check.check, ok: false, detail: entry.why };
}

async function fetchRecords(context: JobContext, optionalReads: OptionalRead[]): Promise<{ records: SetupRecords; lists: ListRecords | undefined }> {
  const list = (menu: string, proplist: readonly string[]): Promise<RouterRecord[]> =>
    context.client.list(menu, { proplist, signal: context.signal });
  // Sequential on purpose, like the wireguard collector: routers answer slower under parallel REST calls.
  const interfaces = await list(MENUS.interfaces, SETUP_PROPLISTS.interfaces);
  const peers = await list(MENUS.peers, SETUP_PROPLISTS.peers);
  const addresses = await list(MENUS.addresses, SETUP_PROPLISTS.addresses);
  const routes = await list(MENUS.routes, SETUP_PROPLISTS.routes);
  const filter = await list(MENUS.filter, SETUP_PROPLISTS.filter);
  const records = { interfaces, peers, addresses, routes, filter };
  const lists = await readUnlessFailed(context, () => list(LIST_MENUS.lists, SETUP_PROPLISTS.lists), 'the interface lists (interface/list)', optionalReads);
  // Without the lists a member tells nothing: not asked.
  const members =
    lists === undefined
      ? undefined
      : await readUnlessFailed(context, () => list(LIST_MENUS.listMembers, SETUP_PROPLISTS.listMembers), "the interface lists' members (interface/list/member)", optionalReads);
  return { records, lists: lists === undefined || members === undefined ? undefined : { lists, members } };
}

export const wireguardSetupCollector: Collector<WireguardSetupData, 'wireguard_setup'> = {
  ...WIREGUARD_SETUP,
  name: 'wireguard_setup',
  jobs: (router) => [
    {
      collector: 'wireguard_setup',
      job: 'wireguard_setup',
      schedule: router.schedules.wireguard_setup,
      // Seven requests in a row, each with the router's timeout.
      deadlineSeconds: router.timeoutSeconds * 7,
      connection: 'reads',
      settings: null,
      async run(context: JobContext) {
        const optionalReads: OptionalRead[] = [];
        const { records, lists } = await fetchRecords(context, optionalReads);
        const result = await finishInSlices(mapWireguardSetupSteps(records, context.routerLabel, context.now(), lists), { signal: context.signal });
        return { ...result, optionalReads };
      },
    },
  ],
};
