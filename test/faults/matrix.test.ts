/**
 * The fault matrix: one daemon (app + HTTP server, in-process) polling many emulated routers at once, each with
 * its own fault. For every row: the right `reason`, exactly one `collector failed` line per collector that
 * says what is wrong and what to do, no data series left for it; across all rows: nothing counted against
 * any other router, the healthy control router's series identical to a run where it is alone, /metrics fast
 * while the faults are live, the output strictly valid and accepted by promtool, the daemon still serving.
 * Both clocks are frozen, so every value is deterministic and backoff does not expire between the two runs.
 * The emulators run in a child process, so the scrape timings are the exporter's alone.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { Faults, RouterSeed } from '../../src/emulator/index.js';
import type { ErrorReason } from '../../src/routeros/errors.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { testConfig } from '../helpers/config.js';
import { tempFile } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition, type ParsedExposition } from '../property/exposition-parser.js';
import { makeCert } from '../security/tls-helpers.js';
import { EmulatorProcess } from './emulator-process.js';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';

/** The matrix judges system and wireguard runs (counts, logs, left-over series): every other collector off. */
const MATRIX_COLLECTORS = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system' || name === 'wireguard']));

const PASSWORD = 'matrix-monitor-password';
const EMULATOR_START = Date.UTC(2026, 2, 1, 12, 0, 0);
const EXPORTER_NOW = EMULATOR_START + 5_000;
type Collector = 'system' | 'wireguard';

interface FailingRow {
  /** Router name (and label). */
  router: string;
  /** The fault, in the words. */
  fault: string;
  reason: ErrorReason;
  /** What the one log line must say: what is wrong and what to do. */
  hint: RegExp;
  faults?: Faults | Faults[];
  /** Config keys for this router (password, tls, url, timeout). */
  config?: Record<string, unknown>;
  seed?: Partial<RouterSeed>;
  /** Which of its collectors fail (both unless said). */
  fails?: Collector[];
}

const AUTH_HINT = /refused: wrong username or password, or the user's group lacks the rest-api policy \(HTTP 401\); check the password, and that the group has read, api and rest-api/;
const POLICY_HINT = /give the group read, api and rest-api \(and test for ping and bandwidth tests\): \/user group set GROUP policy=read,api,rest-api,test/;
const NOT_DATA_HINT = /the reply is not data and nothing was believed: check that nothing \(a proxy, a captive portal\) answers in the router's place/;
const TIMEOUT_HINT = /the router may be overloaded, or a firewall drops the traffic: check the router, or raise timeout/;

const FAILING: FailingRow[] = [
  { router: 'refused', fault: 'connection refused', reason: 'connect', hint: /cannot connect to the router \(ECONNREFUSED\); is www-ssl enabled and reachable\?/ },
  { router: 'dns', fault: 'DNS failure', reason: 'connect', config: { url: 'https://router-fault-matrix.invalid' }, hint: /cannot resolve the router's host name \(\w+\); check the host in url/ },
  { router: 'tls-untrusted', fault: 'TLS: untrusted certificate', reason: 'tls', config: { tls: {} }, hint: /not trusted: put its CA \(or the self-signed certificate itself\) in tls\.ca_file/ },
  { router: 'tls-wrongname', fault: 'TLS: certificate for another name', reason: 'tls', hint: /ERR_TLS_CERT_ALTNAME_INVALID.*does not name the host in url: set tls\.server_name/ },
  { router: 'tls-expired', fault: 'TLS: expired certificate', reason: 'tls', hint: /CERT_HAS_EXPIRED.*outside its validity period: renew it on the router/ },
  { router: 'hang', fault: 'hang after connect', reason: 'timeout', faults: { hang: true }, config: { timeout: '1s' }, hint: TIMEOUT_HINT },
  { router: 'slow-body', fault: 'slow body', reason: 'timeout', faults: { slowBodyMs: 5_000 }, config: { timeout: '1s' }, hint: TIMEOUT_HINT },
  { router: 'http-401', fault: '401', reason: 'auth', faults: { status: { '/': 401 } }, hint: AUTH_HINT },
  { router: 'wrong-password', fault: '401 from a wrong password', reason: 'auth', config: { password: 'not-the-password' }, hint: AUTH_HINT },
  {
    router: 'http-403', fault: '403', reason: 'auth', faults: { status: { '/': 403 } },
    hint: new RegExp(`refused: the user's group lacks the read policy \\(HTTP 403: Forbidden\\); ${POLICY_HINT.source}`),
  },
  { router: 'http-404', fault: '404', reason: 'http_4xx', faults: { status: { '/': 404 } }, hint: /HTTP 404: Not Found; check that url is the router itself \(no path\)/ },
  {
    router: 'http-406', fault: '406', reason: 'unsupported', faults: { status: { '/': { code: 406, detail: 'no such command or directory (print)' } } },
    hint: /does not have this menu or command.*upgrade RouterOS, or turn this collector off/,
  },
  {
    router: 'no-menu', fault: '400 for a menu this router lacks', reason: 'unsupported', seed: { missingMenus: ['interface/wireguard'] }, fails: ['wireguard'],
    hint: /does not have this menu or command: Bad Request \(no such command or directory/,
  },
  {
    router: 'http-500', fault: '500 (user without the api policy)', reason: 'auth', faults: { status: { '/': { code: 500, detail: 'std failure: not allowed (9)' } } },
    hint: new RegExp(`refused: the user's group lacks the api policy \\(HTTP 500: Internal Server Error \\(std failure: not allowed \\(9\\)\\)\\); ${POLICY_HINT.source}`),
  },
  {
    router: 'no-read-policy', fault: '500 (user without the read policy)', reason: 'auth', faults: { status: { '/': { code: 500, detail: 'not enough permissions (9)' } } },
    hint: new RegExp(`refused: the user's group lacks the read policy \\(HTTP 500: Internal Server Error \\(not enough permissions \\(9\\)\\)\\); ${POLICY_HINT.source}`),
  },
  { router: 'http-503', fault: '503', reason: 'http_5xx', faults: { status: { '/': 503 } }, hint: /HTTP 503, a status RouterOS does not answer with: something between the exporter and the router answered \(what it said is not shown\)/ },
  { router: 'broken-json', fault: 'broken JSON', reason: 'parse', faults: { brokenJson: true }, hint: /not valid JSON .*check that nothing \(a proxy\) alters replies/ },
  { router: 'truncated', fault: 'truncated body', reason: 'parse', faults: { truncated: true }, hint: /cut off while reading its body .*check the network path and the router's load/ },
  { router: 'oversized', fault: 'oversized body', reason: 'parse', faults: { oversizedBytes: 33 * 1024 * 1024 }, hint: /larger than 33554432 bytes; the read was stopped: check the router for runaway entries/ },
  {
    router: 'value-flood', fault: 'a flood of empty records (millions of values)', reason: 'parse', faults: { valueFloodBytes: 4 * 1024 * 1024 },
    hint: /holds more JSON values than RouterOS writes \(more than one per 3 of its \d+ bytes\) and was not parsed; check that nothing \(a proxy\) alters replies/,
  },
  // A singleton menu as a one-element list is a form RouterOS really uses, so only the list menus fail.
  { router: 'wrong-shape', fault: 'JSON of the wrong shape', reason: 'parse', faults: { wrongShape: true }, fails: ['wireguard'], hint: /expected a list of records, got an object; .*report it with the RouterOS version/ },
  { router: 'html', fault: 'an HTML page instead of JSON', reason: 'parse', faults: { html: true }, hint: /answered HTML \(text\/html\), not JSON \(is the URL the router itself/ },
  {
    router: 'redirect-302', fault: 'a 302 with an empty body', reason: 'redirect', faults: { reply: { status: 302, location: 'https://127.0.0.1:1/login' } },
    hint: /HTTP 302 redirect to another host over https \(not shown\), not followed \(it would carry the credentials elsewhere\): set url to the router's own https:\/\/ address/,
  },
  {
    router: 'redirect-json', fault: 'a 301 with a JSON body', reason: 'redirect', faults: { reply: { status: 301, body: 'data', location: '/rest/elsewhere' } },
    hint: /HTTP 301 redirect to a path on the router itself \(not shown\), not followed/,
  },
  { router: 'not-modified', fault: 'a 304', reason: 'redirect', faults: { reply: { status: 304 } }, hint: /HTTP 304 Not Modified to a request that set no condition: .*point url at the router itself/ },
  { router: 'empty-200', fault: 'a 200 with an empty body', reason: 'parse', faults: { reply: { status: 200 } }, hint: new RegExp(`HTTP 200 with an empty body where data was expected; ${NOT_DATA_HINT.source}`) },
  { router: 'no-content', fault: 'a 204', reason: 'parse', faults: { reply: { status: 204 } }, hint: new RegExp(`HTTP 204 with an empty body where data was expected; ${NOT_DATA_HINT.source}`) },
  {
    // The case: the peers menu answers an empty 200, which once read as "no peers" with /health ok.
    router: 'wg-empty', fault: 'an empty 200 for the peers menu only', reason: 'parse', faults: { path: 'interface/wireguard/peers', reply: { status: 200 } }, fails: ['wireguard'],
    hint: /GET \/rest\/interface\/wireguard\/peers: HTTP 200 with an empty body where data was expected/,
  },
  {
    router: 'text-plain', fault: 'JSON sent as text/plain', reason: 'parse', faults: { reply: { status: 200, body: 'data', contentType: 'text/plain' } },
    hint: new RegExp(`HTTP 200 with Content-Type text/plain, not JSON; ${NOT_DATA_HINT.source}`),
  },
];

/** A RouterOS before 7.15: peers have no name, so the `name` label is the comment, where the odd bytes go. */
const GARBLED: Partial<RouterSeed> = {
  version: '7.14.3',
  peers: [{ interface: 'wg0', comment: 'branch "north"\\office', life: 'live', allowedAddress: ['10.0.0.2/32'] }],
};

/**
 * Routers that must keep working: the control, odd-but-valid bytes, unknown value forms, a reboot, and one that
 * drops every kept connection as the next request arrives (as a router whose idle timeout is shorter than the
 * client thinks, or a NAT that forgot the flow).
 */
const WORKING = ['control', 'garbled', 'unknown-formats', 'reboot', 'kept-closed'];

const emulators = new EmulatorProcess();
let app: App;
let server: Server;
let base: string;
const scrapeMs: number[] = [];
/** Scrapes with no collection running: how fast this machine answers at the moment, for comparison. */
const idleMs: number[] = [];
/** By run: scrapes answered before the run ended (it lasts at least the hung router's 1 s timeout). */
const answeredWhileRunning: number[] = [];
let afterRuns: ParsedExposition;
let afterRunsText: string;
let controlAlone: string[];
const logs = captureLogs();

function seed(name: string, extra: Partial<RouterSeed> = {}): RouterSeed {
  return {
    name,
    interfaces: [{ name: 'wg0' }],
    peers: [
      { interface: 'wg0', name: 'p1', life: 'live', allowedAddress: ['10.0.0.2/32'], rx: 5_000_000_000, tx: 7_000_000_000, rxRate: 1000, txRate: 2000 },
      { interface: 'wg0', name: 'p2', comment: 'branch "north"\\office', life: 'stale', allowedAddress: ['10.0.0.3/32'] },
    ],
    ...extra,
  };
}

async function metricsText(): Promise<string> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

const routerLines = (text: string, router: string): string[] =>
  text.split('\n').filter((line) => line.includes(`router="${router}"`) && !line.startsWith('routeros_collector_duration_seconds'));

function failures(router: string, collector: Collector): Record<string, unknown>[] {
  return logs.lines().filter((line) => line['router'] === router && line['collector'] === collector && String(line['msg']).startsWith('collector failed'));
}

beforeAll(async () => {
  const users = [{ name: 'monitor', password: PASSWORD }];
  const rows = new Map(FAILING.map((row) => [row.router, row]));
  const mainRouters = [...FAILING.filter((row) => !row.router.startsWith('tls-') || row.router === 'tls-untrusted').map((row) => row.router), ...WORKING];
  const seeds = new Map<string, Partial<RouterSeed>>([...FAILING.map((row) => [row.router, row.seed ?? {}] as const), ['garbled', GARBLED]]);
  const day = 86_400_000;
  const [expired, wrongName] = await Promise.all([
    makeCert({ notBefore: new Date(Date.now() - 30 * day), notAfter: new Date(Date.now() - day) }),
    makeCert({ dns: ['router.other.example'] }),
  ]);
  const [main, ...tls] = await emulators.start(EMULATOR_START, [
    { users, routers: mainRouters.map((name) => seed(name, seeds.get(name))) },
    { users, tls: expired, routers: [seed('tls-expired')] },
    { users, tls: wrongName, routers: [seed('tls-wrongname')] },
  ]);
  const started = [main, ...tls].filter((e) => e !== undefined);
  const caFiles = new Map<string, string>([
    ['tls-expired', tempFile('expired.pem', expired.cert)],
    ['tls-wrongname', tempFile('wrongname.pem', wrongName.cert)],
  ]);
  const mainCa = tempFile('ca.pem', main?.ca ?? '');
  const urlOf = (name: string): string => started.flatMap((e) => e.routers).find((r) => r.name === name)?.url ?? '';
  const routerConfig = (name: string): Record<string, unknown> => ({
    name,
    url: urlOf(name),
    tls: { ca_file: caFiles.get(name) ?? mainCa },
    ...rows.get(name)?.config,
  });
  const configOf = (names: string[]) =>
    testConfig({ listen: '127.0.0.1:0', defaults: { username: 'monitor', password: PASSWORD, timeout: '5s', collectors: MATRIX_COLLECTORS }, routers: names.map(routerConfig) });

  // Baseline: the control router alone, same clocks.
  const alone = createApp(configOf(['control']), { logger: captureLogs().logger, jitter: false, now: () => EXPORTER_NOW });
  await alone.collectOnce();
  controlAlone = routerLines(Buffer.concat((await alone.exposition.render('text', false)).parts).toString(), 'control');
  await alone.stop();

  for (const row of FAILING) if (row.faults !== undefined) await emulators.setFaults(row.router, row.faults);
  await emulators.setFaults('garbled', [{ invalidUtf8: true }, { controlChars: true }]);
  await emulators.setFaults('unknown-formats', { unknownFormats: true });
  await emulators.setFaults('kept-closed', { closeKept: true });
  await emulators.stop('refused');

  const config = configOf([...FAILING.map((row) => row.router), ...WORKING]);
  app = createApp(config, { logger: logs.logger, jitter: false, now: () => EXPORTER_NOW });
  server = await startServer(app, config.listen);
  base = serverUrl(server);

  // Two runs, with scrapes timed the whole time the faults (hangs and slow bodies included) are live. One
  // scrape before, as a warm-up: the first scrape of a process compiles its code paths once.
  await metricsText();
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    await metricsText();
    idleMs.push(performance.now() - started);
  }
  for (let run = 0; run < 2; run++) {
    let running = true;
    const collected = app.collectOnce().finally(() => (running = false));
    let answered = 0;
    while (running) {
      const started = performance.now();
      await metricsText();
      scrapeMs.push(performance.now() - started);
      if (running) answered++;
    }
    answeredWhileRunning.push(answered);
    await collected;
  }
  afterRunsText = await metricsText();
  afterRuns = parseExposition(afterRunsText);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1000);
  await emulators.close();
});

describe.each(FAILING)('$fault ($router)', (row) => {
  const collectors = row.fails ?? ['system', 'wireguard'];

  it(`counts reason ${row.reason} for ${collectors.join(' and ')}, once per run that was not backed off`, () => {
    for (const collector of collectors) {
      const key = `routeros_collector_errors_total{router="${row.router}",collector="${collector}",reason="${row.reason}"}`;
      // Authentication failures back off after the first one, so the second run skips the router.
      expect(afterRuns.byKey.get(key), key).toBe(row.reason === 'auth' ? 1 : 2);
      expect(afterRuns.byKey.get(`routeros_collector_success{router="${row.router}",collector="${collector}"}`)).toBe(0);
    }
    expect(afterRuns.byKey.get(`routeros_up{router="${row.router}"}`)).toBe(collectors.includes('system') ? 0 : 1);
  });

  it('logs exactly one line per failing collector that says what is wrong and what to do', () => {
    for (const collector of collectors) {
      const lines = failures(row.router, collector);
      expect(lines, collector).toHaveLength(1);
      expect(lines[0]?.['reason']).toBe(row.reason);
      expect(String(lines[0]?.['msg'])).toMatch(row.hint);
    }
  });

  it('leaves no data series of the failing collectors behind', () => {
    const data = routerLines(afterRunsText, row.router).filter((line) => !/^routeros_(up|collector_)/.test(line));
    if (collectors.includes('system')) expect(data.filter((line) => line.startsWith('routeros_system_'))).toEqual([]);
    if (collectors.includes('wireguard')) expect(data.filter((line) => line.startsWith('routeros_wireguard_'))).toEqual([]);
  });
});

describe('the rest of the daemon, while the faults are live', () => {
  it('counts no error against any router but the faulty ones', () => {
    const counted = afterRuns.samples
      .filter((sample) => sample.name === 'routeros_collector_errors_total' && sample.value > 0)
      .map((sample) => `${sample.labels['router']}/${sample.labels['collector']}/${sample.labels['reason']}`)
      .sort();
    const expected = FAILING.flatMap((row) => (row.fails ?? ['system', 'wireguard']).map((c) => `${row.router}/${c}/${row.reason}`)).sort();
    expect(counted).toEqual(expected);
  });

  it("leaves the control router's series exactly as when it is polled alone", () => {
    expect(controlAlone.length).toBeGreaterThan(15);
    expect(routerLines(afterRunsText, 'control')).toEqual(controlAlone);
  });

  it('answers /metrics fast throughout: p95 under 100 ms, and scrapes while a run waits on the hung router', () => {
    const p95 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Infinity;
    expect(scrapeMs.length).toBeGreaterThanOrEqual(20);
    // The emulators run in their own process, so these are the exporter's timings. On a machine other work
    // keeps busy (CI runs suites side by side) every scrape is slower, faults or not: there the bound is four
    // times the p95 of scrapes with nothing being collected, measured just before.
    expect(p95(scrapeMs)).toBeLessThan(Math.max(100, 4 * p95(idleMs)));
    // A scrape that waited on the hung router would end with the run: none answered while it ran. Counted, not timed
    // (a bound of 1 s on the slowest of ~50 scrapes sat on the hang timeout itself).
    expect(answeredWhileRunning).toHaveLength(2);
    for (const answered of answeredWhileRunning) expect(answered).toBeGreaterThanOrEqual(3);
  });

  it('serves strictly valid output that promtool accepts, and keeps serving', async () => {
    const check = await promtoolCheckMetrics(afterRunsText);
    expect(check.output).toBe('');
    expect(check.code).toBe(0);
    parseExposition(await (await fetch(`${base}/metrics`, { headers: { accept: 'application/openmetrics-text' } })).text(), 'openmetrics');
    expect((await fetch(`${base}/-/healthy`)).status).toBe(200);
    expect((await fetch(`${base}/-/ready`)).status).toBe(200);
    expect((await fetch(`${base}/health`)).status).toBe(503);
  });
});

describe('replies that are not data, in /health', () => {
  it('a peers menu that answers an empty 200 is not "no peers": the router is degraded, its wireguard collector failed', async () => {
    const response = await fetch(`${base}/health?router=wg-empty`);
    const health = (await response.json()) as { status: string; routers: { status: string; reasons: string[]; peers: unknown[] }[] };
    const [router] = health.routers;
    expect(router?.status).toBe('degraded');
    expect(router?.peers).toEqual([]);
    expect(router?.reasons.join('\n')).toMatch(/wg-empty\/wireguard: collector failed \(parse\)/);
  });
});

describe('routers that send odd but usable replies', () => {
  it('invalid UTF-8 and raw control characters: collected, label values escaped', () => {
    expect(afterRuns.byKey.get('routeros_up{router="garbled"}')).toBe(1);
    expect(afterRuns.byKey.get('routeros_collector_success{router="garbled",collector="wireguard"}')).toBe(1);
    const names = afterRuns.samples.filter((s) => s.name === 'routeros_wireguard_peer_info' && s.labels['router'] === 'garbled').map((s) => s.labels['name']);
    // ESC has no escape in the format and becomes U+FFFD; bytes that are not UTF-8 are read as windows-1252.
    expect(names).toContain('branch "north"\\office Café \u201cquote\u201d \uFFFD[31mred\uFFFD[0m');
  });

  it('values in unknown formats: the run succeeds, those samples are left out (never NaN), one warning per collector', () => {
    for (const collector of ['system', 'wireguard']) {
      expect(afterRuns.byKey.get(`routeros_collector_success{router="unknown-formats",collector="${collector}"}`)).toBe(1);
    }
    const lines = routerLines(afterRunsText, 'unknown-formats');
    expect(lines.some((line) => line.startsWith('routeros_system_uptime_seconds'))).toBe(false);
    expect(lines.some((line) => line.startsWith('routeros_wireguard_peer_receive_bytes_total'))).toBe(false);
    expect(lines.some((line) => line.startsWith('routeros_wireguard_peer_info'))).toBe(true);
    expect(afterRuns.samples.filter((sample) => sample.name.startsWith('routeros_') && !Number.isFinite(sample.value))).toEqual([]);
    const warnings = logs.lines().filter((line) => line['router'] === 'unknown-formats' && String(line['msg']).startsWith('some values from the router did not decode'));
    expect(warnings.map((line) => line['collector']).sort()).toEqual(['system', 'wireguard']);
    expect(JSON.stringify(warnings)).toMatch(/uptime.*3 days/);
  });

  it('a router that drops every kept connection: collected like the control, each dropped read sent once more on a new connection', () => {
    for (const collector of ['system', 'wireguard'] as const) {
      expect(afterRuns.byKey.get(`routeros_collector_success{router="kept-closed",collector="${collector}"}`)).toBe(1);
      expect(failures('kept-closed', collector)).toEqual([]);
    }
    expect(afterRuns.byKey.get('routeros_up{router="kept-closed"}')).toBe(1);
    const families = (router: string): string[] => routerLines(afterRunsText, router).map((line) => line.slice(0, line.indexOf('{'))).sort();
    expect(families('kept-closed')).toEqual(families('control'));
    // No other router of the matrix has a read resent: a reply that began, or a connection never kept, is not.
    expect(afterRuns.byKey.get('routeros_exporter_reads_resent_total{}')).toBeGreaterThan(0);
  });

  it('a router that reboots: counters fall, the exporter reports the lower values, uptime restarts', async () => {
    const rx = 'routeros_wireguard_peer_receive_bytes_total';
    const peer = afterRuns.samples.find((s) => s.name === rx && s.labels['router'] === 'reboot' && s.labels['name'] === 'p1');
    const uptimeBefore = afterRuns.byKey.get('routeros_system_uptime_seconds{router="reboot"}') ?? 0;
    expect(peer?.value).toBeGreaterThanOrEqual(5_000_000_000);
    await emulators.reboot('reboot');
    await emulators.advance(30_000);
    await app.collectOnce();
    const after = parseExposition(await metricsText());
    const rebooted = after.samples.find((s) => s.name === rx && s.labels['router'] === 'reboot' && s.labels['name'] === 'p1');
    expect(rebooted?.value).toBeLessThan(peer?.value ?? 0);
    expect(after.byKey.get('routeros_system_uptime_seconds{router="reboot"}')).toBe(30);
    expect(uptimeBefore).toBeGreaterThan(30);
    expect(after.byKey.get('routeros_collector_success{router="reboot",collector="wireguard"}')).toBe(1);
  });
});
