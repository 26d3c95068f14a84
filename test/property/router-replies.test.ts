/**
 * Router-reply fuzz: a hostile or broken router answers every menu the collectors read with random JSON —
 * wrong types (numbers, null, nested objects, arrays where records belong), huge, negative and NaN-like strings,
 * units RouterOS never sends, empty strings, missing keys, duplicated keys and ids. The replies go through the
 * real scheduler and collectors (a client that parses JSON text as the REST client does, no socket) into the
 * store, then out through /metrics (plain and OpenMetrics), /health, the Nagios check's formatting and the
 * verdict-change log, over two rounds so that verdicts change. Nothing may throw, and every figure out must be
 * one the field can be: finite, counters ≥ 0, ratios in [0, 1], timestamps inside the era, ports in range.
 * Bounded in time; prints how many replies it tried.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PROPLIST } from '../../src/collectors/system.js';
import { INTERFACE_PROPLIST, PEER_PROPLIST } from '../../src/collectors/wireguard.js';
import { SETUP_PROPLISTS } from '../../src/collectors/wireguard-setup.js';
import { PACKAGE_UPDATE_PROPLIST, ROUTERBOARD_PROPLIST } from '../../src/collectors/firmware.js';
import { INTERFACE_PROPLIST as LINK_PROPLIST } from '../../src/collectors/interface.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { parseJsonBody } from '../../src/routeros/body.js';
import type { JobContext } from '../../src/collectors/types.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { asRecordList, asSingleRecord, MAX_COMMENT_CHARS, MAX_NAME_CHARS, type RouterRecord } from '../../src/routeros/records.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { evaluateRouters } from '../../src/health/report.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { formatCheck } from '../../src/health/nagios.js';
import { diff, diffPeers, observe, type BadPeers, type Observed, type VerdictState } from '../../src/health/changes.js';
import { watchVerdicts } from '../../src/health/watch.js';
import type { HealthReport } from '../../src/health/types.js';
import { testConfig } from '../helpers/config.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { parseExposition, type ParsedSample } from './exposition-parser.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const ERA_END_SECONDS = NOW / 1000 + 86_400;
/** The longest router text a run may keep: a name or a comment as the record layer reads it. */
const MAX_KEPT_TEXT = Math.max(MAX_NAME_CHARS, MAX_COMMENT_CHARS);
/** The overlong texts are runs of this character (no other generator makes a run of it half as long). */
const OVERLONG_CHAR = 'v';
/** More of one overlong text than a run may keep: kept whole, or cut too late. */
const KEPT_TOO_MUCH = new RegExp(`${OVERLONG_CHAR}{${MAX_KEPT_TEXT + 1}}`);
/** A few seconds in CI; ROUTER_FUZZ_MS=60000 for a deeper run by hand. */
const TIME_BUDGET_MS = Number(process.env['ROUTER_FUZZ_MS'] ?? '') || 4_000;

/** ROUTER_FUZZ_SEED (and ROUTER_FUZZ_PATH) from a failure report replay its runs by hand. */
const REPLAY = process.env['ROUTER_FUZZ_SEED'] === undefined ? {} : { seed: Number(process.env['ROUTER_FUZZ_SEED']), ...(process.env['ROUTER_FUZZ_PATH'] === undefined ? {} : { path: process.env['ROUTER_FUZZ_PATH'] }) };

/** A JSON tree that may hold the same key twice, which JSON.stringify cannot write but a router can. */
type Node = { object: [string, Node][] } | { array: Node[] } | { raw: string };

function toJson(node: Node): string {
  if ('raw' in node) return node.raw;
  if ('array' in node) return `[${node.array.map(toJson).join(',')}]`;
  return `{${node.object.map(([key, value]) => `${JSON.stringify(key)}:${toJson(value)}`).join(',')}}`;
}

const raw = (value: unknown): Node => ({ raw: JSON.stringify(value) });

/** Strings a router might send where a number, duration, boolean or name belongs. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '', ' ', '0', '-0', '-5', '1', '3', '100', '101', '250', '-1420', '65535', '65536', '65537', '13231',
    '18446744073709551615', '18446744073709551616', '1.8e19', '1e308', '-1e308', 'NaN', 'nan', 'Infinity', '-Infinity',
    '0x1F', '017', ' 7 ', '5.3KiB', '35.6MiB', '12%', '50%', '2.5', '0.5', '-0.5',
    '14300000w', '99999999999999999999w', '1w2d3h4m5s', '5s', '2m', '1h', '2h', '56ms639us', '00:01:02', '1d02:03:04',
    '25:99:99', '5y', '-5s', '1.5s', '5 s', 'soon', 'never',
    'true', 'false', 'yes', 'no', 'TRUE', 'maybe',
    'wg0', 'wg1', '*1', '*2', 'done testing', 'can not connect', 'timeout',
    '10.0.0.1/24', '192.168.20.0/24', '0.0.0.0/0', '10.10.0.2/32,192.168.20.0/24', '999.1.1.1/33',
    'input', 'forward', 'accept', 'drop', 'jump', 'udp', '13231,51820', '13000-14000',
    // system/health types and states, firmware and RouterOS versions.
    'C', 'V', 'A', 'W', 'RPM', 'ok', 'fail', '-61', '151', '-40', '24.1', '4500',
    'temperature', 'cpu-temperature', 'fan1-speed', 'psu1-state', 'voltage', 'power-consumption',
    '7.16', '7.15.3', '7.24.4', '7.16rc2', '7.16beta1', '7.23.7', 'stable', 'long-term',
    // /interface types and names, ethernet monitor states and rates (an enum with its unit).
    'ether', 'ether1', 'bridge', 'vlan', 'wg', 'pppoe-in', '<pppoe-alice>', 'loopback', 'link-ok', 'no-link',
    // Names that differ only in what the format cannot carry (each comes out as U+FFFD): one series, never two.
    'wg\r', 'wg\t', 'wg\uFFFD', 'wg\uD800', 'wg0\u0000', 'wg0\u0001',
    '10Mbps', '1Gbps', '2.5Gbps', '100Gbps', 'Gbps', '-1Gbps', '1.5.5Gbps', '99999999999999999999999Tbps', '1Pbps',
  ),
  fc.integer({ min: -1e6, max: 1e6 }).map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double({ noNaN: true }).map(String),
  fc.string({ maxLength: 8 }),
  fc.nat(600).map((n) => '9'.repeat(n)),
  // Longer than any text the exporter keeps of a reply (a name or a comment as read).
  fc.integer({ min: MAX_KEPT_TEXT + 1, max: 4 * MAX_KEPT_TEXT }).map((n) => OVERLONG_CHAR.repeat(n)),
);

/** Any field value: mostly strings, as RouterOS sends, but also what it never sends. */
const fieldValue: fc.Arbitrary<Node> = fc.letrec<{ value: Node }>((tie) => ({
  value: fc.oneof(
    { weight: 12, arbitrary: nastyString.map(raw) },
    { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constant(1e308), fc.constant(-1)).map(raw) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false).map(raw) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.array(tie('value'), { maxLength: 2 }).map((array): Node => ({ array })),
        fc.array(fc.tuple(fc.constantFrom('a', 'name', '.id'), tie('value')), { maxLength: 2 }).map((object): Node => ({ object })),
      ),
    },
  ),
})).value;

/** A record: a random subset of the keys the menu has, some extra keys, sometimes a key twice. */
function record(keys: readonly string[]): fc.Arbitrary<Node> {
  return fc
    .tuple(
      fc.subarray([...keys]),
      fc.array(fc.tuple(fc.string({ maxLength: 6 }), fieldValue), { maxLength: 2 }),
      fc.array(fc.constantFrom(...keys), { maxLength: 2 }),
    )
    .chain(([present, extra, twice]) =>
      fc
        .tuple(fc.array(fieldValue, { minLength: present.length + twice.length, maxLength: present.length + twice.length }))
        .map(([values]): Node => ({
          object: [...present, ...twice].map((key, i): [string, Node] => [key, values[i] ?? raw('')]).concat(extra),
        })),
    );
}

/** A list reply: usually records, sometimes not a list at all or a list of things that are not records. */
function listReply(keys: readonly string[]): fc.Arbitrary<Node> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.array(record(keys), { maxLength: 5 }).map((array): Node => ({ array })) },
    { weight: 1, arbitrary: record(keys) },
    { weight: 1, arbitrary: fc.array(fieldValue, { maxLength: 2 }).map((array): Node => ({ array })) },
    { weight: 1, arbitrary: fieldValue },
  );
}

/** A singleton reply: a record, a list of one or several, or no record at all. */
function singletonReply(keys: readonly string[]): fc.Arbitrary<Node> {
  return fc.oneof(
    { weight: 10, arbitrary: record(keys) },
    { weight: 1, arbitrary: fc.array(record(keys), { maxLength: 2 }).map((array): Node => ({ array })) },
    { weight: 1, arbitrary: fieldValue },
  );
}

const PING_KEYS = ['seq', 'host', 'time', 'sent', 'received', 'packet-loss', 'min-rtt', 'avg-rtt', 'max-rtt', 'status', 'size', 'ttl'];
const BTEST_KEYS = ['.section', 'status', 'rx-total-average', 'tx-total-average', 'lost-packets', 'duration', 'rx-current', 'tx-current'];

/** system/health: RouterOS 7 sensor rows, an object (CHR's settings or older firmware's sensor values), or []. */
const HEALTH_ROW_KEYS = ['.id', 'name', 'type', 'value'];
const HEALTH_OBJECT_KEYS = ['temperature', 'cpu-temperature', 'voltage', 'current', 'power-consumption', 'fan1-speed', 'psu1-state', 'psu2-voltage', 'state', 'state-after-reboot'];
/** A sensor row as RouterOS 7 lists it, from a small set of names (so that some come twice) and real types. */
const healthRow = fc
  .record({
    '.id': fc.constantFrom('*1', '*2', '*3'),
    name: fc.constantFrom('temperature', 'cpu-temperature', 'voltage', 'fan1-speed', 'psu1-state', 'power-consumption', 'cpu\rtemp', 'cpu\ttemp', 'cpu\uFFFDtemp'),
    type: fc.constantFrom('C', 'V', 'A', 'W', 'RPM', '', '%'),
    value: fc.oneof(fc.constantFrom('40', '24.1', '4500', 'ok', 'fail', '0', '-61', '151'), nastyString),
  })
  .map((row): Node => ({ object: Object.entries(row).map(([key, value]): [string, Node] => [key, raw(value)]) }));
const healthReply = fc.oneof(
  { weight: 4, arbitrary: fc.array(healthRow, { maxLength: 6 }).map((array): Node => ({ array })) },
  { weight: 2, arbitrary: listReply(HEALTH_ROW_KEYS) },
  { weight: 2, arbitrary: singletonReply(HEALTH_OBJECT_KEYS) },
  { weight: 1, arbitrary: fc.constant<Node>({ array: [] }) },
);
/** A menu the board lacks (system/routerboard on CHR): the client's error for HTTP 400 "no such command". */
const ABSENT = '"<400 no such command or directory>"';
const routerboardReply = fc.oneof({ weight: 4, arbitrary: singletonReply(ROUTERBOARD_PROPLIST) }, { weight: 1, arbitrary: fc.constant<Node>({ raw: ABSENT }) });

/**
 * A record that half the time is made a running ethernet port named ether1 or ether2 (keys appended last win, as
 * in JSON.parse): random keys alone would almost never make one, and then the monitor would never be asked.
 */
function steered(keys: readonly string[], make: fc.Arbitrary<[string, string][]>): fc.Arbitrary<Node> {
  return fc.tuple(record(keys), fc.option(make, { freq: 2 })).map(([node, extra]): Node => {
    if (extra === null || !('object' in node)) return node;
    return { object: [...node.object, ...extra.map(([key, value]): [string, Node] => [key, raw(value)])] };
  });
}
const portName = fc.constantFrom('ether1', 'ether2');
const runningPort = portName.map((name): [string, string][] => [['name', name], ['type', 'ether'], ['running', 'true'], ['disabled', 'false']]);
const monitorRow = fc.tuple(portName, fc.oneof(nastyString, fc.constantFrom('1Gbps', '10Gbps', '2.5Gbps'))).map(([name, rate]): [string, string][] => [['name', name], ['status', 'link-ok'], ['rate', rate]]);
const MONITOR_KEYS = ['name', 'status', 'rate', 'auto-negotiation', 'full-duplex'];
const steeredList = (keys: readonly string[], make: fc.Arbitrary<[string, string][]>): fc.Arbitrary<Node> =>
  fc.oneof({ weight: 4, arbitrary: fc.array(steered(keys, make), { maxLength: 5 }).map((array): Node => ({ array })) }, { weight: 1, arbitrary: listReply(keys) });

/** A running tunnel wg0 with an address and peers with a /32 tunnel address, so the tunnel probe is asked (health.probe). */
const tunnel = fc.constant<[string, string][]>([['name', 'wg0'], ['disabled', 'false']]);
const probedPeer = fc.tuple(fc.constantFrom('k1', 'k2'), fc.constantFrom('10.0.0.2/32', '10.0.0.3/32,192.168.20.0/24')).map(([key, allowed]): [string, string][] => [['interface', 'wg0'], ['public-key', key], ['allowed-address', allowed], ['disabled', 'false']]);
const tunnelAddress = fc.constant<[string, string][]>([['address', '10.0.0.1/24'], ['interface', 'wg0'], ['disabled', 'false']]);
/**
 * A random list, or (a third of the time) a clean one of such records alone: one odd field in any record fails
 * the whole menu (a shape error), which would leave the probe behind it almost never asked.
 */
const tunnelMenu = (keys: readonly string[], make: fc.Arbitrary<[string, string][]>): fc.Arbitrary<Node> =>
  fc.oneof(
    { weight: 2, arbitrary: steeredList(keys, make) },
    { weight: 1, arbitrary: fc.array(make.map((pairs): Node => ({ object: pairs.map(([key, value]): [string, Node] => [key, raw(value)]) })), { minLength: 1, maxLength: 3 }).map((array): Node => ({ array })) },
  );

const routerReplies = fc.record({
  'system/resource': singletonReply(SYSTEM_PROPLIST),
  interface: steeredList(LINK_PROPLIST, runningPort),
  'interface/ethernet/monitor': steeredList(MONITOR_KEYS, monitorRow),
  'interface/wireguard': tunnelMenu(INTERFACE_PROPLIST, tunnel),
  'interface/wireguard/peers': tunnelMenu([...new Set([...PEER_PROPLIST, ...SETUP_PROPLISTS.peers])], probedPeer),
  'ip/address': tunnelMenu(SETUP_PROPLISTS.addresses, tunnelAddress),
  'ip/route': listReply(SETUP_PROPLISTS.routes),
  'ip/firewall/filter': listReply(SETUP_PROPLISTS.filter),
  'interface/list': fc.oneof({ weight: 4, arbitrary: listReply(SETUP_PROPLISTS.lists) }, { weight: 1, arbitrary: fc.constant<Node>({ raw: ABSENT }) }),
  'interface/list/member': listReply(SETUP_PROPLISTS.listMembers),
  ping: listReply(PING_KEYS),
  'tool/bandwidth-test': listReply(BTEST_KEYS),
  'system/health': healthReply,
  'system/routerboard': routerboardReply,
  'system/package/update': singletonReply(PACKAGE_UPDATE_PROPLIST),
});
type Replies = typeof routerReplies extends fc.Arbitrary<infer T> ? T : never;

/** Answers as the REST client would: the body parsed from JSON text, then the same shape checks. */
class ReplyClient implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  replies: Replies | undefined;
  /** Every request, as `GET menu` or `POST command`: the exporter only reads, and never reaches the outside. */
  readonly asked = new Set<string>();
  #body(menu: keyof Replies): unknown {
    const node = this.replies?.[menu];
    if (node !== undefined && 'raw' in node && node.raw === ABSENT) {
      throw new RouterOsError('ROS_ERR_UNSUPPORTED', `GET /rest/${menu}: the router does not have this menu or command`, { status: 400 });
    }
    // Through the client's own parse: the control-character repair and the value budget as in production.
    return node === undefined ? [] : parseJsonBody(Buffer.from(toJson(node)), `GET /rest/${menu}`);
  }
  list(menu: string, options?: { objectAsList?: boolean }): Promise<RouterRecord[]> {
    this.asked.add(`GET ${menu}`);
    return Promise.resolve().then(() => {
      const body = this.#body(menu as keyof Replies);
      // As the REST client does for menus that answer either form.
      if (options?.objectAsList === true && body !== null && typeof body === 'object' && !Array.isArray(body)) return [asSingleRecord(body, `GET /rest/${menu}`)];
      return asRecordList(body, `GET /rest/${menu}`);
    });
  }
  getSingleton(menu: string): Promise<RouterRecord> {
    this.asked.add(`GET ${menu}`);
    return Promise.resolve().then(() => asSingleRecord(this.#body(menu as keyof Replies), `GET /rest/${menu}`));
  }
  /** Pings through wg0: the tunnel probe's (the ping target has no interface). */
  probes = 0;
  run(command: string, parameters?: Readonly<Record<string, unknown>>): Promise<unknown> {
    this.asked.add(`POST ${command}`);
    if (command === 'ping' && parameters?.['interface'] === 'wg0') this.probes++;
    return Promise.resolve().then(() => this.#body(command as keyof Replies));
  }
}

const config = testConfig({
  defaults: { username: 'u', password: 'p', collectors: { wireguard_setup: true }, health: { exclude_peer_pattern: 'lab-.*', probe_tunnels: true, probe: { wg0: 'on' }, probe_count: 3 } },
  routers: [
    {
      name: 'hq',
      url: 'https://192.0.2.1',
      ping: [{ target: '10.10.0.2', count: 3, name: 'branch-tunnel' }],
      bandwidth_test: [{ target: '10.10.0.2', duration: '2s' }],
    },
  ],
});
const router = config.routers[0];
if (router === undefined) throw new Error('config');

/** One for every run: prom-client's default collectors are costly to set up and say nothing about routers. */
const SELF = new SelfMetrics({ version: 'fuzz' });

/** What each family's values can be, by the shape of its name. */
function checkSample(sample: ParsedSample): void {
  const { name, value, key } = sample;
  // Plain throws, not expect(): this runs for every sample of every run, and expect() is most of the time.
  if (!Number.isFinite(value)) throw new Error(`${key} = ${value} is not finite`);
  const within = (min: number, max: number): void => {
    if (!(value >= min && value <= max)) throw new Error(`${key} = ${value} not in [${min}, ${max}]`);
  };
  if (name.endsWith('_total')) within(0, 2 ** 64);
  if (name.includes('_ratio')) within(0, 1);
  if (name.endsWith('_timestamp_seconds')) within(0, ERA_END_SECONDS);
  if (name.endsWith('_listen_port')) within(0, 65_535);
  if (name.endsWith('_mtu_bytes')) within(0, 65_536);
  if (/_(bytes|bytes_per_second|seconds|hertz|cores|lost_packets)$/.test(name)) within(0, Number.MAX_VALUE);
  if (/_(up|success|healthy|running|disabled|setup_ok|info|state_ok|upgrade_pending|update_available)$/.test(name)) within(0, 1);
  if (name.endsWith('_celsius')) within(-60, 150);
  if (/_(volts|amperes|watts|rpm)$/.test(name)) within(0, Number.MAX_VALUE);
}

/** Every number anywhere in a value is finite (JSON would print NaN and Infinity as null, hiding them). */
function checkNumbers(value: unknown, where: string): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${where} is ${value}`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) checkNumbers(inner, `${where}.${key}`);
  }
}

function checkReport(report: HealthReport): void {
  checkNumbers(report, 'report');
  expect(() => JSON.stringify(report)).not.toThrow();
  for (const health of report.routers) {
    for (const peer of health.peers) {
      if (peer.latestHandshake !== null) {
        const at = Date.parse(peer.latestHandshake);
        expect(at >= 0 && at <= ERA_END_SECONDS * 1000, peer.latestHandshake).toBe(true);
      }
      if (peer.handshakeAgeSeconds !== null) expect(peer.handshakeAgeSeconds).toBeGreaterThanOrEqual(0);
      if (peer.probeLossRatio !== undefined) expect(peer.probeLossRatio >= 0 && peer.probeLossRatio <= 1, String(peer.probeLossRatio)).toBe(true);
      if (peer.probeRttSeconds !== undefined) expect(peer.probeRttSeconds >= 0 && peer.probeRttSeconds <= 3_600).toBe(true);
    }
    for (const ping of health.pings) {
      if (ping.lossRatio !== null) expect(ping.lossRatio >= 0 && ping.lossRatio <= 1, String(ping.lossRatio)).toBe(true);
      for (const rtt of Object.values(ping.rttSeconds)) if (rtt !== null) expect(rtt >= 0 && rtt <= 3_600).toBe(true);
    }
  }
}

/** Every performance-data value is a number with a unit, or U. */
function checkPerfdata(text: string): void {
  const perf = text.split('\n').find((line) => line.startsWith('| '));
  if (perf === undefined) return;
  for (const match of perf.matchAll(/'=([^;]*);/g)) expect(match[1], perf).toMatch(/^(?:U|\d+(?:\.\d+)?(?:s|%|ms))$/);
}

/** A logger that words every line (so every message is made) and drops it. */
function countingLogger(): { logger: pino.Logger; lines: () => number; errors: () => string[] } {
  let lines = 0;
  const errors: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines++;
      const line = JSON.parse(chunk.toString('utf8')) as { level: number; msg: string };
      if (line.level >= 50) errors.push(line.msg);
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines: () => lines, errors: () => errors };
}

/** Runs whose /interface reply made the collector ask the ethernet monitor (printed: the path is exercised). */
let monitored = 0;
/** Runs whose wireguard replies made the job probe a tunnel (random /ping replies through the probe path). */
let probed = 0;

/** How long the run of overlong text starting at `from` is. */
function longestRun(text: string, from: number): number {
  let end = from;
  while (text[end] === OVERLONG_CHAR) end += 1;
  return end - from;
}

/** Every string reachable from a run's data: through objects, arrays, maps, sets and other iterables (a peer table). */
function* keptStrings(value: unknown, seen = new Set<object>()): Generator<string> {
  if (typeof value === 'string') {
    yield value;
    return;
  }
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (value instanceof Map) {
    for (const [key, item] of value) {
      yield* keptStrings(key, seen);
      yield* keptStrings(item, seen);
    }
    return;
  }
  if (Symbol.iterator in value) {
    for (const item of value as Iterable<unknown>) yield* keptStrings(item, seen);
    if (Array.isArray(value)) return;
  }
  for (const item of Object.values(value)) yield* keptStrings(item, seen);
}

async function oneRouter(rounds: readonly Replies[]): Promise<void> {
  const store = new SnapshotStore();
  const client = new ReplyClient();
  const silent = pino({ level: 'silent' });
  const scheduler = new Scheduler({
    store,
    logger: silent,
    clientFor: () => client as unknown as JobContext['client'],
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    now: () => NOW,
  });
  scheduler.load(config);
  const watcher = countingLogger();
  const verdictWatch = watchVerdicts({ store, config: () => config, logger: watcher.logger, now: () => NOW });
  const exposition = new Exposition(store, SELF);
  let states: Observed | undefined;
  try {
    for (const [round, replies] of rounds.entries()) {
      client.replies = replies;
      await scheduler.runAllOnce();
      // The verdict log judges a large router's runs in slices: all of them judged, none failing.
      await verdictWatch.settled();
      expect(watcher.errors()).toEqual([]);
      const at = NOW + round * 600_000;

      for (const format of ['text', 'openmetrics'] as const) {
        // The router part as a scrape lays it out (the process metrics say nothing about routers and cost most of the time).
        const body = exposition.routerText(format) + (format === 'openmetrics' ? '# EOF\n' : '');
        const parsed = parseExposition(body, format);
        for (const sample of parsed.samples) if (sample.name.startsWith('routeros_') && !sample.name.startsWith('routeros_exporter_')) checkSample(sample);
        // One sample per series: a router listing a name twice (a sensor, an interface) must not make two.
        const keys = new Set<string>();
        for (const sample of parsed.samples) {
          if (keys.has(sample.key)) throw new Error(`${sample.key} twice in one exposition`);
          keys.add(sample.key);
        }
        const value = (name: string): number | undefined => parsed.samples.find((sample) => sample.name === name)?.value;
        for (const [free, total] of [['memory_free', 'memory_total'], ['disk_free', 'disk_total']] as const) {
          const f = value(`routeros_system_${free}_bytes`);
          const t = value(`routeros_system_${total}_bytes`);
          if (f !== undefined && t !== undefined) expect(f).toBeLessThanOrEqual(t);
        }
      }

      const evaluated = evaluateRouters(config.routers, store, at);
      checkReport(evaluated.report);
      const check = formatCheck(evaluated, config.routers);
      expect(check.text).toMatch(/^ROUTEROS (OK|WARNING|CRITICAL|UNKNOWN) - /);
      checkPerfdata(check.text);

      // The store keeps a listener's throw from a collection; here it must not happen at all.
      const evaluation = evaluateRouter(router as NonNullable<typeof router>, store.snapshots('hq'), at);
      const observations = observe(evaluation, router as NonNullable<typeof router>);
      for (const observation of observations.values()) {
        const { message, fields } = observation.describe();
        expect(typeof message).toBe('string');
        checkNumbers(fields, message);
      }
      const { lines, next } = diff(states, observations, evaluation.seen, 'hq');
      states = next;
      for (const line of lines) expect(line.message).not.toMatch(/Invalid Date/);
      // Every peer's log line, whatever its state: as if each had been bad under another reason before.
      const everyPeerBad = new Map<string, Map<string, VerdictState>>();
      for (const { peer } of evaluation.judgements) {
        const kept = everyPeerBad.get(peer.interface) ?? new Map<string, VerdictState>();
        kept.set(peer.publicKey, { state: '(before)', bad: true });
        everyPeerBad.set(peer.interface, kept);
      }
      for (const line of diffPeers(everyPeerBad as BadPeers, evaluation.judgements, true, 'hq').lines) {
        expect(typeof line.message).toBe('string');
        expect(line.message).not.toMatch(/Invalid Date/);
        checkNumbers(line.fields, line.message);
      }
      // Peers kept between runs are read back with one shape whatever the reply (a field added to some moves every
      // peer's fields out of the object, for as long as a verdict holds them).
      const kept = store.snapshots('hq').find((snapshot) => snapshot.job === 'wireguard' && snapshot.ok)?.data as { peers?: Iterable<object> } | undefined;
      expect(new Set([...(kept?.peers ?? [])].map((peer) => Object.keys(peer).join())).size).toBeLessThanOrEqual(1);
      // What a run keeps until the next holds no router text longer than the exporter reads of it: a run's data
      // lives as long as the router answers, and a hostile reply's text (up to a record's 1 MiB) would live with it.
      // Asked of the router's text, not of whole strings: a set-up fix is made of several names read in full (one
      // interface name twice in `/ip address add … interface=X comment="WireGuard X"`), each within the bound.
      for (const snapshot of store.snapshots('hq')) {
        for (const text of keptStrings(snapshot.data)) {
          const run = KEPT_TOO_MUCH.exec(text);
          if (run !== null) throw new Error(`${snapshot.job} keeps ${longestRun(text, run.index)} characters of one router text: ${text.slice(0, 40)}…`);
        }
      }
    }
  } finally {
    verdictWatch.stop();
    await scheduler.stop();
  }
  // Read only: the only commands are the measurements the config asks for; nothing that checks for updates,
  // downloads, installs or upgrades firmware (which would make the router reach the outside or change itself).
  for (const request of client.asked) {
    // interface/ethernet/monitor with `once` only reads the port's state.
    if (request.startsWith('POST ')) expect(['POST ping', 'POST tool/bandwidth-test', 'POST interface/ethernet/monitor']).toContain(request);
    expect(request).not.toMatch(/check-for-updates|download|install|upgrade/);
  }
  expect(client.asked).toContain('GET system/health');
  expect(client.asked).toContain('GET system/routerboard');
  expect(client.asked).toContain('GET interface');
  if (client.asked.has('POST interface/ethernet/monitor')) monitored++;
  if (client.probes > 0) probed++;
}

describe('router-reply fuzz', () => {
  it('random replies to every menu never throw and never make an impossible figure', async () => {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(fc.array(routerReplies, { minLength: 1, maxLength: 2 }), async (rounds) => {
        await oneRouter(rounds);
      }),
      { numRuns: 1_000_000, interruptAfterTimeLimit: TIME_BUDGET_MS, ...REPLAY },
    );
    const elapsed = Math.round(performance.now() - started);
    // One router reply set is 13 menus; a run has one or two rounds of them.
    console.log(`router-reply fuzz: ${result.numRuns} runs (${result.numRuns * 13}+ menu replies) in ${elapsed} ms${result.interrupted ? ' (time budget reached)' : ''}; ${monitored} asked the ethernet monitor, ${probed} probed a tunnel`);
    // The counterexample can be long (600-digit strings): the start of the report says enough to reproduce it.
    if (result.failed) {
      const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      throw new Error(`${cause.slice(0, 2_000)}\n${(fc.defaultReportMessage(result) ?? '').slice(0, 8_000)}`);
    }
    // A few seconds on a busy machine still try dozens of runs; an idle one, hundreds.
    expect(result.numRuns).toBeGreaterThanOrEqual(10);
  }, TIME_BUDGET_MS + 60_000);
});
