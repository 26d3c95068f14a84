/**
 * `interface`: GET /rest/interface (every kind: ethernet, bridge, vlan, WireGuard, PPP…) → routeros_interface_*,
 * and, for the running ethernet ports it exports, POST interface/ethernet/monitor once → their negotiated link
 * rate. RouterOS gives the link rate only there: interface/ethernet `speed` is the configured speed, which
 * auto-negotiation overrides, so exporting it would claim a rate the port may not run at.
 *
 * WireGuard interfaces are exported here too: their interface counters (all peers together) sit beside the
 * uplink's on the capacity dashboard, while the wireguard collector exports what /interface lacks (keys, ports,
 * peers); no family of it repeats these counters.
 *
 * Left out on purpose: `last-link-up-time`/`last-link-down-time` are router-local dates without a zone (the
 * rise of link-downs says when, in Prometheus' own time), the fast-path `fp-*` counters (a subset of the ones
 * exported) and `mtu` (`auto` on bridges; the wireguard collector has the tunnels').
 */
import { saysTrue } from '../routeros/decode.js';
import { RouterOsError } from '../routeros/errors.js';
import { describeJson, type RouterRecord } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type Family, type RouterLabel } from '../metrics/family.js';
import { INTERFACE, INTERFACE_FAMILIES as F } from './interface.contract.js';
import { FieldReader, problemsOf } from '../analysis/decoding.js';
import type { InterfaceFilter } from '../config/interfaces.js';
import { keepsInterface } from './interface-filter.js';
import type { Collector, JobContext, JobResult, OptionalRead } from './types.js';
import { readUnlessFailed } from './optional-read.js';
import { quoteRouterText } from '../util/text.js';
import { chosenTwinRowsSteps, type RowOrder } from '../analysis/twin-rows.js';
import { finish, finishInSlices, type Steps } from '../util/slices.js';

export const INTERFACE_PROPLIST = [
  '.id',
  'name',
  'type',
  'comment',
  'dynamic',
  'running',
  'disabled',
  'rx-byte',
  'tx-byte',
  'rx-packet',
  'tx-packet',
  'rx-error',
  'tx-error',
  'rx-drop',
  'tx-drop',
  'tx-queue-drop',
  'link-downs',
] as const;

/** Counter families and the /interface property each reads; absent properties (older or reduced replies) are skipped. */
const COUNTERS: readonly [Family<readonly ['interface', 'type']>, string][] = [
  [F.rxBytes, 'rx-byte'],
  [F.txBytes, 'tx-byte'],
  [F.rxPackets, 'rx-packet'],
  [F.txPackets, 'tx-packet'],
  [F.rxErrors, 'rx-error'],
  [F.txErrors, 'tx-error'],
  [F.rxDrops, 'rx-drop'],
  [F.txDrops, 'tx-drop'],
  [F.txQueueDrops, 'tx-queue-drop'],
  [F.linkDowns, 'link-downs'],
];

/** RouterOS's type of an ethernet port in /interface. */
const ETHERNET = 'ether';

/** The filter a run applies, as data (patterns count by their text; type lists are sets, so sorted). */
function filterSettings(filter: InterfaceFilter): unknown[] {
  const includeTypes = filter.includeTypes === undefined ? null : [...filter.includeTypes].sort();
  return [filter.includePattern?.source ?? null, filter.excludePattern?.source ?? null, includeTypes, [...filter.excludeTypes].sort(), filter.includeDynamic];
}

export interface InterfaceData {
  /** How many interfaces the router listed, and how many the filter kept (the cardinality actually exported). */
  listed: number;
  exported: number;
}

export interface InterfaceMapping extends JobResult<InterfaceData> {
  /** Running ethernet ports among the exported ones, name → id: what the monitor is asked about. */
  ethernetUp: Map<string, string>;
}

/** Pure mapping of the /interface reply to samples, keeping only what the filter allows. */
export function mapInterfaces(records: readonly RouterRecord[], routerLabel: RouterLabel, filter: InterfaceFilter): InterfaceMapping {
  return finish(mapInterfacesSteps(records, routerLabel, filter));
}

/**
 * Running ethernet ports whose link rate one run asks for at most. The largest chassis have tens; the monitor's
 * request names every port and its reply is mapped by name, so a router that lists hundreds of thousands (no
 * router does) would make a request of megabytes and a reply mapped in seconds (300,000 held the loop 1.3 s).
 */
export const MAX_MONITORED_PORTS = 1024;

/** Interfaces mapped between two places where the mapping may give the event loop back. */
const INTERFACES_PER_STEP = 256;
/** What makes a record an interface (FieldReader.keyed). */
const INTERFACE_KEYS = ['name', 'type'] as const;

/** mapInterfaces as steps (util/slices.ts): a router with thousands of VLANs and tunnels lists them all. */
export function* mapInterfacesSteps(records: readonly RouterRecord[], routerLabel: RouterLabel, filter: InterfaceFilter): Steps<InterfaceMapping> {
  // The whole menu, unfiltered (the filter applies below): every router lists some interface (a port, `lo`), so an
  // empty list is not this menu's data but an answer from something else, a failure rather than "no interfaces"
  // (found by review: the run succeeded with no series and no problem).
  if (records.length === 0) throw new RouterOsError('ROS_ERR_SHAPE', 'interface: the list is empty; every router lists its interfaces, so the reply is not this menu\'s data');
  const read = new FieldReader('interface');
  const samples = new SampleSet();
  const seen = new Set<string>();
  const ethernetUp = new Map<string, string>();
  let ethernetMore = 0;
  let exported = 0;
  let count = 0;
  // A name alone makes no interface: a just-booted router answered its /user list (`name` and `group`) for every menu,
  // and it was read as interfaces named after its users (found by review). Every interface row has its type.
  const named = yield* read.keyedSteps(records, INTERFACE_KEYS);
  const chosen = yield* chosenRowsSteps(named, read, (record) => {
    const name = record['name'] as string;
    const type = record['type'] ?? '';
    // Read as the loop below reads it (`yes` too), without counting: the loop counts what does not decode, once.
    const dynamic = saysTrue(record['dynamic']);
    // As written out, among the rows the filter keeps: names that differ only where the format cannot carry them
    // (`lan\u0001`, `lan\u0002`) are one series too, and a dynamic twin left out is no choice (found by review).
    return keepsInterface(filter, { name, type, dynamic }) ? seriesLabels(F.running, routerLabel, [name, type]) : undefined;
  });
  for (const record of named) {
    if (++count % INTERFACES_PER_STEP === 0) yield;
    if (chosen !== undefined && !chosen.has(record)) continue;
    const name = record['name'] as string;
    const type = record['type'] ?? '';
    // Absent `dynamic` is false: RouterOS prints it only on some rows (docs/emulator.md, the 7.23.7 capture).
    const dynamic = read.bool(record, 'dynamic') ?? false;
    if (!keepsInterface(filter, { name, type, dynamic })) continue;
    // Unique as written out: a repeated name (the 7.16 capture has two ether2 rows) would make duplicate series.
    const labels = seriesLabels(F.running, routerLabel, [name, type]);
    if (seen.has(labels)) continue;
    seen.add(labels);
    exported++;
    samples.addExtended(F.info, labels, [record['comment'] ?? ''], 1);
    const running = read.bool(record, 'running');
    const disabled = read.bool(record, 'disabled');
    if (running !== undefined) samples.add(F.running, labels, running ? 1 : 0);
    if (disabled !== undefined) samples.add(F.disabled, labels, disabled ? 1 : 0);
    for (const [family, key] of COUNTERS) {
      const value = read.counter(record, key);
      if (value !== undefined) samples.add(family, labels, value);
    }
    if (type === ETHERNET && running === true && disabled !== true) {
      if (ethernetUp.size < MAX_MONITORED_PORTS) ethernetUp.set(name, record['.id'] ?? name);
      else ethernetMore++;
    }
  }
  if (ethernetMore > 0) {
    read.problem(`${MAX_MONITORED_PORTS + ethernetMore} running ethernet ports: the link rate is asked for the first ${MAX_MONITORED_PORTS} only`);
  }
  return {
    samples,
    ...problemsOf(read),
    data: { listed: records.length, exported },
    ethernetUp,
  };
}

/** What names an interface row apart from what changes between runs, and its traffic (twin-rows.ts). */
const INTERFACE_ROWS: RowOrder = {
  identityKeys: ['name', 'type', 'default-name', 'mac-address', 'comment', 'mtu', 'disabled', 'dynamic'],
  trafficKeys: ['rx-byte', 'tx-byte'],
};

/**
 * The row each name and type is exported from when a reply lists one twice (the 7.16 capture has two `ether2`
 * rows): the one with the lowest `.id`, whatever the reply's order (twin-rows.ts). Undefined when no row repeats
 * (every row is exported); the repeats are counted as a problem.
 */
function* chosenRowsSteps(
  records: readonly RouterRecord[],
  read: FieldReader,
  keyOf: (record: RouterRecord) => string | undefined,
): Steps<Set<RouterRecord> | undefined> {
  const chosen = yield* chosenTwinRowsSteps(records, keyOf, INTERFACE_ROWS, INTERFACES_PER_STEP);
  if (chosen === undefined) return undefined;
  read.problem(`${chosen.repeats} rows repeat the name and type of another; each is exported from its row with the lowest .id`);
  return chosen.rows;
}

const RATE_FORM = /^(\d+(?:\.\d+)?)(k|M|G|T)bps$/;
const RATE_UNIT = { k: 1e3, M: 1e6, G: 1e9, T: 1e12 } as const;

/**
 * The monitor's `rate` (`10Mbps` … `2.5Gbps` … `100Gbps`, an enum with its unit) in bits per second, as the
 * decimal text the bit-rate field kind reads (so its range rule applies); undefined when it is no rate.
 */
export function linkRateBits(rate: string): string | undefined {
  const match = RATE_FORM.exec(rate);
  if (match === null) return undefined;
  const [, amount = '', unit = 'k'] = match;
  return String(Math.round(Number(amount) * RATE_UNIT[unit as keyof typeof RATE_UNIT]));
}

/** Adds the link rate of each monitored port that reports a link (`status` link-ok). */
export function mapLinkRates(rows: unknown, ports: ReadonlySet<string>, routerLabel: RouterLabel, samples: SampleSet): FieldReader {
  return finish(mapLinkRatesSteps(rows, ports, routerLabel, samples));
}

/** Monitor rows read between two places where mapLinkRatesSteps may give the event loop back. */
const ROWS_PER_STEP = 1024;

/** mapLinkRates as steps: the reply is the router's, and may hold up to a million rows (1 s in one go). */
export function* mapLinkRatesSteps(rows: unknown, ports: ReadonlySet<string>, routerLabel: RouterLabel, samples: SampleSet): Steps<FieldReader> {
  const read = new FieldReader('interface/ethernet/monitor');
  // One port's row may come as an object; anything else that is no list (null, a string, a number) is not data,
  // and must not pass for "no port has a link".
  if (!Array.isArray(rows) && (typeof rows !== 'object' || rows === null)) {
    read.problem(`reply: not a list of ports but ${describeJson(rows)}`);
    return read;
  }
  const list = Array.isArray(rows) ? rows : [rows];
  // A port reported twice would make a duplicate series, which Prometheus rejects: the first row counts.
  const seen = new Set<string>();
  // Ports some row names, rate or not: one asked for and not named is missing from the reply.
  const named = new Set<string>();
  // The command's reply is not shape-checked like a menu's: anything that is not a string is no name or rate.
  for (const [index, row] of (list as unknown[]).entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      read.problem(() => `reply: a row that is no record but ${describeJson(row)}`);
      continue;
    }
    const { name, rate, status } = row as Record<string, unknown>;
    if (typeof name === 'string' && ports.has(name)) named.add(name);
    if (typeof name !== 'string' || !ports.has(name) || seen.has(name) || rate === undefined || rate === '') continue;
    seen.add(name);
    // A rate is the link's: a port whose status says anything but link-ok has none, whatever rate the row carries
    // (a `no-link` row with a rate was exported as a link speed: found by a hostile tester). RouterOS writes the
    // status on every row; one left out leaves the rate as it is.
    if (status !== undefined && status !== 'link-ok') {
      read.problem(() => `rate given for a port whose status is ${typeof status === 'string' ? quoteRouterText(status, 32) : describeJson(status)}, not link-ok; left out`);
      continue;
    }
    const bits = typeof rate === 'string' ? linkRateBits(rate) : undefined;
    if (bits === undefined) {
      // Worded only while problems are kept, and a rate that is no string by its kind: a list of 11 million
      // items as one port's rate took 1.2 s to write out as JSON (a hostile-router review).
      read.problem(() => `rate: not a link rate: ${typeof rate === 'string' ? quoteRouterText(rate, 32) : describeJson(rate)}`);
      continue;
    }
    const value = read.value('bitsPerSecond', { rate: bits }, 'rate');
    if (value !== undefined) samples.add(F.linkSpeed, seriesLabels(F.linkSpeed, routerLabel, [name, ETHERNET]), value / 8);
  }
  // `[]`, `{}` or a proxy's `{"status":"ok"}` name no port: not "no port has a link", but ports not reported.
  const missing = ports.size - named.size;
  if (missing > 0) read.problem(`reply: ${missing} of the ${ports.size} running ethernet ports asked for are missing`);
  return read;
}

export const interfaceCollector: Collector<InterfaceData, 'interface'> = {
  ...INTERFACE,
  name: 'interface',
  jobs: (router) => [
    {
      collector: 'interface',
      job: 'interface',
      schedule: router.schedules.interface,
      // Two requests in a row (the list, then one monitor for every running ethernet port), each with the timeout.
      deadlineSeconds: router.timeoutSeconds * 2,
      connection: 'reads',
      // The run filters interfaces with `interfaces:`; patterns count by their text.
      settings: filterSettings(router.interfaces),
      async run(context: JobContext) {
        const records = await context.client.list('interface', { proplist: INTERFACE_PROPLIST, signal: context.signal });
        const { ethernetUp, ...result } = await finishInSlices(mapInterfacesSteps(records, context.routerLabel, context.router.interfaces), { signal: context.signal });
        if (ethernetUp.size === 0) return result;
        // `once`: without it the command never ends. Ids, not names: a name may hold a comma.
        // The link rates only add to the list read whole: their read failing leaves them out (optional-read.ts).
        const optionalReads: OptionalRead[] = [];
        const rows = await readUnlessFailed(
          context,
          () => context.client.run('interface/ethernet/monitor', { numbers: [...ethernetUp.values()].join(','), once: '' }, { signal: context.signal }),
          'the ethernet link rates (interface/ethernet/monitor)',
          optionalReads,
        );
        if (rows === undefined) return { ...result, optionalReads };
        const rates = await finishInSlices(mapLinkRatesSteps(rows, new Set(ethernetUp.keys()), context.routerLabel, result.samples), { signal: context.signal });
        const monitor = problemsOf(rates);
        // The list's problems first; bounded like any run's (problemsOf keeps 20).
        const problems = [...result.problems, ...monitor.problems].slice(0, 20);
        return { ...result, problems, decodeErrors: result.decodeErrors + monitor.decodeErrors, optionalReads };
      },
    },
  ],
};
