/**
 * No secret leaves the exporter: a representative slice of the system runs (the daemon in-process with a
 * least-privilege user, a wrong password, a btest password, a web config with Basic users; the built CLI's
 * daemon with a failed reload, `once`, `check` and `check-config`), routers hold WireGuard private and preshared
 * keys, and every log line, /metrics, /health and other answer, error and command output is scanned for the
 * passwords, their Basic encodings and the keys. The requests the exporter made are checked too: WireGuard
 * menus are only ever read with a .proplist that names no key. Three hostile routers take part: one whose errors
 * echo the Authorization header back, one whose errors carry 100 KB of text laced with terminal escapes, C1
 * controls and bidi overrides, and one that puts the password where a parser rewrites or quotes a part of it (a
 * redirect's host name, broken JSON); no output may carry a control character or an unbounded line either, nor
 * the passwords in another case or eight characters of them in a row.
 */
import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../src/cli/daemon.js';
import { startEmulator, type Emulator, type RouterSeed } from '../../src/emulator/index.js';
import { finished, runCli, startCli } from '../helpers/cli.js';
import { testConfig } from '../helpers/config.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { waitFor } from '../helpers/wait.js';
import { httpsGet, makeCert } from './tls-helpers.js';

const ROUTER_PASSWORD = 'Rtr-pw-9f2c71e0';
const WRONG_PASSWORD = 'Wrong-pw-5d8a33b4';
const BTEST_PASSWORD = 'Btest-pw-c04e1a97';
const WEB_PASSWORD = 'Web-pw-71aa0c5e';
const WEB_WRONG = 'Web-wrong-2b9d4f10';
const PRIVATE_KEY = randomBytes(32).toString('base64');
const PRESHARED_KEY = randomBytes(32).toString('base64');

const basic = (user: string, password: string): string => Buffer.from(`${user}:${password}`).toString('base64');
const SECRETS: Record<string, string> = {
  'router password': ROUTER_PASSWORD,
  'wrong password': WRONG_PASSWORD,
  'btest password': BTEST_PASSWORD,
  'web password': WEB_PASSWORD,
  'wrong web password': WEB_WRONG,
  'router Basic credentials': basic('monitor', ROUTER_PASSWORD),
  'admin Basic credentials': basic('admin', ROUTER_PASSWORD),
  'wrong Basic credentials': basic('monitor', WRONG_PASSWORD),
  'web Basic credentials': basic('prometheus', WEB_PASSWORD),
  'private key': PRIVATE_KEY,
  'preshared key': PRESHARED_KEY,
};

/** Raw or JSON-escaped characters that steer a terminal or reorder text (tab, LF and CR aside). */
// eslint-disable-next-line no-control-regex
const UNSAFE_RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const UNSAFE_ESCAPED = /(?<!\\)(?:\\\\)*\\(u00[01][0-9a-f]|u00[89][0-9a-f]|u007f|u202[a-e]|u206[6-9])/i;
/** The longest line any log may have (the noisy router's 100 KB detail is cut to a few hundred characters). */
const LOG_LINE_LIMIT = 6_000;

/** Everything the exporter said anywhere, by where it said it. */
const outputs: { where: string; text: string }[] = [];
/** Requests the in-process exporter sent to routers: method, path with query, body. */
const requests: { origin: string; method: string; path: string; body: string }[] = [];
const routerOrigins = new Set<string>();
const onRequest = (message: unknown): void => {
  const { request } = message as { request: { origin: string | URL; method: string; path: string; body?: unknown } };
  const origin = String(request.origin);
  if (!routerOrigins.has(origin)) return;
  const body = request.body instanceof Uint8Array ? Buffer.from(request.body).toString('utf8') : typeof request.body === 'string' ? request.body : '';
  requests.push({ origin, method: request.method, path: request.path, body });
};

let emulator: Emulator;
let caFile: string;
let daemon: Daemon;
let webCa: string;
const logs = captureLogs();

const LEAST_PRIVILEGE = [{ name: 'monitor', password: ROUTER_PASSWORD, policies: ['read', 'api', 'rest-api', 'test'] }];
const FULL = [{ name: 'admin', password: ROUTER_PASSWORD }];

function seed(name: string, users: RouterSeed['users']): RouterSeed {
  return {
    name,
    users,
    interfaces: [{ name: 'wg0', privateKey: PRIVATE_KEY }],
    peers: [{ interface: 'wg0', name: 'branch', presharedKey: PRESHARED_KEY, allowedAddress: ['10.1.0.0/24'], life: 'live' }],
    addresses: [{ address: '10.0.0.1/24', interface: 'wg0' }],
    ping: { '10.0.0.2': { kind: 'reachable', rttMs: 2 } },
    bandwidthServers: { '10.0.0.2': { kind: 'ok', rxBps: 8e6, txBps: 4e6, user: 'btest', password: BTEST_PASSWORD } },
  };
}

function routers(): Record<string, unknown>[] {
  const tests = { bandwidth_test: [{ target: '10.0.0.2', duration: '1s', user: 'btest', password: BTEST_PASSWORD }], ping: [{ target: '10.0.0.2', count: 2, interval: '100ms' }] };
  return [
    { name: 'least', url: emulator.router('least').url, ...tests },
    // A full-policy user: the router would hand out the keys if asked, so only the exporter's requests keep them in.
    { name: 'full', url: emulator.router('full').url, username: 'admin', ...tests },
    { name: 'badpass', url: emulator.router('badpass').url, password: WRONG_PASSWORD },
    { name: 'echo', url: emulator.router('echo').url },
    { name: 'noisy', url: emulator.router('noisy').url },
    { name: 'echopw', url: emulator.router('echopw').url },
  ];
}

function yamlConfig(extra: string[] = []): string {
  const lines = [
    'listen: 127.0.0.1:0',
    'defaults:',
    '  username: monitor',
    `  password: "${ROUTER_PASSWORD}"`,
    '  timeout: 5s',
    `  tls: { ca_file: "${caFile}" }`,
    '  collectors: { wireguard_setup: true }',
    'routers:',
    ...routers().map((router) => `  - ${JSON.stringify(router)}`),
    ...extra,
  ];
  return lines.join('\n') + '\n';
}

beforeAll(async () => {
  emulator = await startEmulator({
    routers: [seed('least', LEAST_PRIVILEGE), seed('full', FULL), seed('badpass', LEAST_PRIVILEGE), seed('echo', LEAST_PRIVILEGE), seed('noisy', LEAST_PRIVILEGE), seed('echopw', LEAST_PRIVILEGE)],
  });
  emulator.router('echo').setFaults({ echoAuthorization: true });
  emulator.router('noisy').setFaults({ noisyErrorChars: 100_000 });
  emulator.router('echopw').setFaults([
    // A proxy's broken JSON quoting what it was sent: JSON.parse's message quotes the text around the fault.
    { path: 'system', reply: { status: 200, text: `{"user":"monitor","password":${ROUTER_PASSWORD}}` } },
    // A captive portal naming its host after the password: a URL parser lower-cases a host.
    { path: 'interface', reply: { status: 302, location: `https://${ROUTER_PASSWORD}.portal.example/login` } },
  ]);
  for (const router of emulator.routers) routerOrigins.add(new URL(router.url).origin);
  caFile = writeCa(emulator);
  subscribe('undici:request:create', onRequest);
  const cert = await makeCert();
  webCa = cert.cert;
  const web = tempFile(
    'web.yml',
    [
      `tls_server_config: { cert_file: "${tempFile('web.crt', cert.cert)}", key_file: "${tempFile('web.key', cert.key)}" }`,
      `basic_auth_users: { prometheus: "${bcrypt.hashSync(WEB_PASSWORD, 4)}" }`,
    ].join('\n'),
  );
  const config = testConfig({
    listen: '127.0.0.1:0',
    web_config_file: web,
    defaults: { username: 'monitor', password: ROUTER_PASSWORD, timeout: '5s', tls: { ca_file: caFile }, collectors: { wireguard_setup: true } },
    routers: routers(),
  });
  daemon = await startDaemon(config, logs.logger, async () => {
    throw new Error('reload refused in this test');
  });
  // The daemon ran every job once at start but the bandwidth tests, which wait for their schedule: run those now
  // (each takes a second), then wait for all of them.
  await daemon.app.collectOnce((_router, job) => job.startsWith('bandwidth_test'));
  await waitFor(async () => daemon.app.store.allTried(), (ready) => ready, { timeout: 15_000, what: 'every job run once' });
}, 60_000);

afterAll(async () => {
  unsubscribe('undici:request:create', onRequest);
  await daemon?.shutdown('test');
  await emulator?.close();
});

describe('the in-process daemon', () => {
  const get = async (path: string, auth = `prometheus:${WEB_PASSWORD}`, method = 'GET') => {
    const answer = await httpsGet(`${daemon.url}${path}`, { ca: webCa, auth, method });
    outputs.push({ where: `${method} ${path} (${answer.status})`, text: `${JSON.stringify(answer.headers)}\n${answer.body}` });
    return answer;
  };

  it('collects everything with a least-privilege user (read, api, rest-api, test; no sensitive, no write)', async () => {
    const metrics = (await get('/metrics')).body;
    for (const collector of ['system', 'wireguard', 'wireguard_setup', 'ping', 'bandwidth_test']) {
      expect(metrics).toContain(`routeros_collector_success{router="least",collector="${collector}"} 1`);
    }
    expect(metrics).toContain('routeros_bandwidth_test_success{router="least",target="10.0.0.2",name="10.0.0.2"} 1');
    expect(metrics).toContain('routeros_collector_errors_total{router="badpass",collector="system",reason="auth"} 1');
  });

  it('answers every endpoint, with right and wrong credentials', async () => {
    for (const path of ['/metrics', '/health', '/health?router=badpass', '/-/ready', '/', '/nope']) {
      await get(path);
      await get(path, `prometheus:${WEB_WRONG}`);
    }
    await get('/metrics', `prometheus:${WEB_WRONG}`, 'GET');
    const om = await httpsGet(`${daemon.url}/metrics`, { ca: webCa, auth: `prometheus:${WEB_PASSWORD}` });
    outputs.push({ where: 'openmetrics', text: om.body });
    expect((await get('/-/reload', `prometheus:${WEB_PASSWORD}`, 'POST')).status).toBe(400);
  });

  it('logs the hostile routers\' failures redacted, stripped and bounded', () => {
    const failed = (router: string): string[] =>
      logs.lines().filter((line) => line['router'] === router && String(line['msg']).startsWith('collector failed')).map((line) => String(line['msg']));
    expect(failed('echo').length).toBeGreaterThan(0);
    // An echoed Authorization header is no wording of RouterOS's: the detail is withheld whole.
    for (const msg of failed('echo')) expect(msg).toContain('(text withheld: it may echo the credentials)');
    expect(failed('echopw').some((msg) => msg.includes('not valid JSON'))).toBe(true);
    expect(failed('echopw').some((msg) => msg.includes('redirect to another host over https (not shown)'))).toBe(true);
    expect(failed('noisy').length).toBeGreaterThan(0);
    for (const msg of failed('noisy')) {
      expect(msg).toContain('(text withheld: it may echo the credentials)');
      expect(msg.length).toBeLessThan(1_100);
      expect(msg).not.toMatch(UNSAFE_RAW);
    }
  });

  it('read WireGuard menus only with a .proplist that names no key', () => {
    const wireguard = requests.filter((request) => request.path.startsWith('/rest/interface/wireguard'));
    expect(wireguard.length).toBeGreaterThanOrEqual(4);
    for (const request of wireguard) {
      expect(request.method).toBe('GET');
      const proplist = new URLSearchParams(request.path.split('?')[1] ?? '').get('.proplist');
      expect(proplist, request.path).not.toBeNull();
      expect(proplist?.split(',')).not.toContain('private-key');
      expect(proplist?.split(',')).not.toContain('preshared-key');
    }
    for (const request of requests) expect(`${request.path} ${request.body}`).not.toMatch(/private-key|preshared-key|show-client-config/);
  });

  it('sent the btest password only to the router, in the bandwidth test request', () => {
    const carrying = requests.filter((request) => request.body.includes(BTEST_PASSWORD));
    expect(carrying.map((request) => request.path)).toEqual(['/rest/tool/bandwidth-test', '/rest/tool/bandwidth-test']);
  });
});

describe('the built CLI', () => {
  it('daemon: logs of a run with a wrong password, a failed reload and a stop', async () => {
    const file = tempFile('config.yml', yamlConfig());
    const child = startCli(['--config', file]);
    try {
      await expect.poll(() => /"url":"(http[^"]+)"/.exec(child.output.stdout)?.[1], { timeout: 15_000 }).toBeDefined();
      const url = /"url":"(http[^"]+)"/.exec(child.output.stdout)?.[1] ?? '';
      await expect.poll(async () => (await fetch(`${url}/-/ready`)).status, { timeout: 15_000 }).toBe(200);
      outputs.push({ where: 'cli /metrics', text: await (await fetch(`${url}/metrics`)).text() });
      outputs.push({ where: 'cli /health', text: await (await fetch(`${url}/health`)).text() });
      writeFileSync(file, `${yamlConfig()}  - { name: broken, url: "https://192.0.2.1", password: "${ROUTER_PASSWORD}", password_file: x }\n`);
      child.kill('SIGHUP');
      await expect.poll(() => child.output.stdout, { timeout: 10_000 }).toContain('configuration reload failed');
      child.kill('SIGTERM');
      const done = await finished(child);
      expect(done.code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    outputs.push({ where: 'cli daemon stdout', text: child.output.stdout }, { where: 'cli daemon stderr', text: child.output.stderr });
  });

  it('once, check and check-config', async () => {
    const file = tempFile('config.yml', yamlConfig());
    for (const args of [['once', '--config', file], ['check', '--config', file]]) {
      const run = await runCli(args);
      outputs.push({ where: `${args[0]} stdout`, text: run.stdout }, { where: `${args[0]} stderr`, text: run.stderr });
      expect(run.stdout.length).toBeGreaterThan(0);
      // The hostile routers' failures are on stderr, their echoes and noise withheld (no wording of RouterOS's).
      expect(run.stderr).toContain('(text withheld: it may echo the credentials)');
      expect(run.stderr).not.toContain('Authorization: Basic');
    }
    const broken = tempFile('broken.yml', `routers:\n  - name: a\n    password: "${ROUTER_PASSWORD}\n    url: x\n`);
    const check = await runCli(['check-config', broken]);
    expect(check.code).toBe(2);
    outputs.push({ where: 'check-config stderr', text: check.stderr + check.stdout });
  });
});

describe('the scan', () => {
  it('finds no password, Basic credentials or key anywhere', () => {
    outputs.push({ where: 'in-process logs', text: logs.text() });
    expect(outputs.length).toBeGreaterThan(20);
    expect(logs.lines().length).toBeGreaterThan(5);
    const found = outputs.flatMap(({ where, text }) =>
      Object.entries(SECRETS).filter(([, secret]) => text.includes(secret)).map(([what]) => `${what} in ${where}`),
    );
    expect(found).toEqual([]);
  });

  it('finds no password in another case, nor eight characters of one in a row', () => {
    const passwords = { ROUTER_PASSWORD, WRONG_PASSWORD, BTEST_PASSWORD, WEB_PASSWORD, WEB_WRONG };
    const found = outputs.flatMap(({ where, text }) => {
      const lower = text.toLowerCase();
      return Object.entries(passwords).flatMap(([what, password]) => {
        const pieces = Array.from({ length: password.length - 7 }, (_, at) => password.slice(at, at + 8).toLowerCase());
        return pieces.some((piece) => lower.includes(piece)) ? [`${what} in ${where}`] : [];
      });
    });
    expect(found).toEqual([]);
  });

  it('finds no terminal control or bidi override, raw or escaped, anywhere', () => {
    const found = outputs.filter(({ text }) => UNSAFE_RAW.test(text) || UNSAFE_ESCAPED.test(text)).map(({ where, text }) => `${where}: ${JSON.stringify(UNSAFE_RAW.exec(text)?.[0] ?? UNSAFE_ESCAPED.exec(text)?.[0])}`);
    expect(found).toEqual([]);
  });

  it('finds no log line longer than a few KB', () => {
    const logsOnly = outputs.filter(({ where }) => /logs|stderr|daemon stdout/.test(where));
    expect(logsOnly.length).toBeGreaterThanOrEqual(5);
    const long = logsOnly.flatMap(({ where, text }) => text.split('\n').filter((line) => line.length > LOG_LINE_LIMIT).map((line) => `${where}: ${line.length}`));
    expect(long).toEqual([]);
  });
});
