/**
 * The web config end to end: the daemon over real HTTPS with Basic users on every endpoint, right and wrong
 * credentials, certificate and user rotation without a restart, reloads that keep the old web config on error,
 * and client certificates.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDaemon, type Daemon } from '../../src/cli/daemon.js';
import { ConfigError } from '../../src/config/types.js';
import { BcryptWorker } from '../../src/server/bcrypt-worker.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { httpsGet, makeCert, type Pem } from './tls-helpers.js';

const SCRAPE = 'prometheus:scrape-password-1';
const ROTATED = 'prometheus:rotated-password-2';
// Cost 10, as htpasswd -B makes by default: the credential cache is what keeps scrapes cheap.
const HASH = bcrypt.hashSync('scrape-password-1', 10);
const ROTATED_HASH = bcrypt.hashSync('rotated-password-2', 4);

let dir: string;
let emulator: Emulator;
let daemon: Daemon;
let first: Pem;
let second: Pem;
const logs = captureLogs();

/** Writes a file the way secret managers do: a new file renamed over the old one. */
function replace(name: string, text: string): void {
  const path = join(dir, name);
  writeFileSync(`${path}.new`, text, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

function webYaml(users: Record<string, string>, extra = ''): string {
  return [
    'tls_server_config: { cert_file: server.crt, key_file: server.key }',
    'basic_auth_users:',
    ...Object.entries(users).map(([user, hash]) => `  ${user}: "${hash}"`),
    'http_server_config: { headers: { X-Content-Type-Options: nosniff } }',
    extra,
  ].join('\n');
}

function routerConfig(web: string): ReturnType<typeof testConfig> {
  return testConfig({
    listen: '127.0.0.1:0',
    web_config_file: join(dir, web),
    defaults: { username: 'admin', password: '', tls: { insecure_skip_verify: true }, schedules: { system: '0 0 1 1 *', wireguard: '0 0 1 1 *' } },
    routers: [{ name: 'r1', url: emulator.router('r1').url }],
  });
}

const get = (path: string, options: { auth?: string; method?: string; ca?: string } = {}) =>
  httpsGet(`${daemon.url}${path}`, { ca: options.ca ?? first.cert, ...options });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'routeros-https-'));
  [first, second] = await Promise.all([makeCert(), makeCert()]);
  replace('server.crt', first.cert);
  replace('server.key', first.key);
  replace('web.yml', webYaml({ prometheus: HASH }));
  emulator = await startEmulator({ routers: [{ name: 'r1' }] });
  let config = routerConfig('web.yml');
  daemon = await startDaemon(config, logs.logger, async () => config);
  // Reloads read this variable, so a test can point the config at another web config.
  setConfig = (next) => (config = next);
});

let setConfig: (next: ReturnType<typeof testConfig>) => void = () => {};

afterAll(async () => {
  await daemon?.shutdown('test');
  await emulator?.close();
});

describe('HTTPS with Basic users', () => {
  it('serves HTTPS only, with the configured certificate', async () => {
    expect(daemon.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const answer = await get('/-/healthy', { auth: SCRAPE });
    expect(answer.status).toBe(200);
    expect(answer.fingerprint).toBe(new X509Certificate(first.cert).fingerprint256);
    const plain = new Promise<number>((resolve, reject) => {
      const req = httpRequest(daemon.url.replace('https:', 'http:') + '/metrics', (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    await expect(plain).rejects.toThrow();
  });

  const endpoints: [string, string][] = [
    ['GET', '/metrics'],
    ['GET', '/health'],
    ['GET', '/-/healthy'],
    ['GET', '/-/ready'],
    ['GET', '/'],
    ['POST', '/-/reload'],
    ['GET', '/no-such-page'],
  ];

  it.each(endpoints)('%s %s: 401 with WWW-Authenticate without or with wrong credentials', async (method, path) => {
    for (const auth of [undefined, 'prometheus:wrong', 'nobody:scrape-password-1', 'prometheus:', 'prometheus:scrape-password-1x']) {
      const answer = await get(path, { method, ...(auth === undefined ? {} : { auth }) });
      expect(answer.status, `${auth}`).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Basic realm="routeros-exporter", charset="UTF-8"');
      expect(answer.body).not.toContain('routeros_');
    }
  });

  it.each(endpoints)('%s %s: answered with the right credentials, with the configured headers', async (method, path) => {
    const answer = await get(path, { method, auth: SCRAPE });
    expect(answer.status).not.toBe(401);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('remembers a good credential, so scrapes after the first skip bcrypt', async () => {
    expect((await get('/metrics', { auth: SCRAPE })).status).toBe(200);
    // Counted, not timed (ten scrapes against five bcrypt checks was a ratio of two timings on a busy machine).
    const compare = vi.spyOn(BcryptWorker.prototype, 'compare');
    try {
      for (let i = 0; i < 10; i++) expect((await get('/metrics', { auth: SCRAPE })).status).toBe(200);
      expect(compare).not.toHaveBeenCalled();
      // A wrong password is checked: the count can fail.
      expect((await get('/-/healthy', { auth: 'prometheus:wrong-once-more' })).status).toBe(401);
      expect(compare).toHaveBeenCalledTimes(1);
    } finally {
      compare.mockRestore();
    }
  });

  it('turns away a burst of wrong guesses (429) while remembered scrapes still pass', async () => {
    const guesses = Array.from({ length: 12 }, (_, i) => get('/metrics', { auth: `prometheus:guess-${i}` }));
    const scrape = await get('/metrics', { auth: SCRAPE });
    const statuses = (await Promise.all(guesses)).map((answer) => answer.status);
    expect(scrape.status).toBe(200);
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  });

  it('logs rejected credentials without the username or password', () => {
    const rejected = logs.lines().filter((line) => String(line['msg']).startsWith('rejected HTTP requests'));
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    expect(logs.text()).not.toMatch(/scrape-password|guess-\d|wrong-again/);
  });
});

describe('rotation without a restart', () => {
  it('a new certificate is served from the next connection', async () => {
    replace('server.crt', second.cert);
    replace('server.key', second.key);
    const wanted = new X509Certificate(second.cert).fingerprint256;
    await expect.poll(async () => (await get('/-/healthy', { auth: SCRAPE, ca: second.cert }).catch(() => undefined))?.fingerprint, { timeout: 5000 }).toBe(wanted);
    expect(logs.text()).toContain('web config re-read after a file change');
  });

  it('a changed user list applies without a restart', async () => {
    replace('web.yml', webYaml({ prometheus: ROTATED_HASH }));
    await expect.poll(async () => (await get('/metrics', { auth: ROTATED, ca: second.cert })).status, { timeout: 5000 }).toBe(200);
    expect((await get('/metrics', { auth: SCRAPE, ca: second.cert })).status).toBe(401);
  });

  it('a broken change is logged and the previous web config keeps serving', async () => {
    replace('web.yml', 'basic_auth_users: [this is not a mapping\n');
    // The files are looked at when requests come (at most once a second), as scrapes keep coming in practice.
    const scrape = async (): Promise<string> => {
      expect((await get('/metrics', { auth: ROTATED, ca: second.cert })).status).toBe(200);
      return logs.text();
    };
    await expect.poll(scrape, { timeout: 5000 }).toContain('web config changed but is invalid');
    for (let i = 0; i < 3; i++) await scrape();
    replace('web.yml', webYaml({ prometheus: ROTATED_HASH }));
  });
});

describe('config reloads', () => {
  it('refuses a reload whose web config is invalid, keeping the running one', async () => {
    replace('broken.yml', 'tls_server_config: { cert_file: server.crt, key_file: missing.key }\n');
    setConfig(routerConfig('broken.yml'));
    const answer = await get('/-/reload', { method: 'POST', auth: ROTATED, ca: second.cert });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/"path": "web_config_file"/);
    // A key_file's path is never quoted (a key body pasted in its place would be): its reason is.
    expect(answer.body).toMatch(/tls_server_config\.key_file: cannot read the file it names: no such file/);
    expect((await get('/metrics', { auth: ROTATED, ca: second.cert })).status).toBe(200);
  });

  it('refuses to turn TLS off without a restart', async () => {
    replace('plain.yml', `basic_auth_users: { prometheus: "${ROTATED_HASH}" }\n`);
    setConfig(routerConfig('plain.yml'));
    const answer = await get('/-/reload', { method: 'POST', auth: ROTATED, ca: second.cert });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('turning tls_server_config off needs a restart');
  });

  it('applies a valid new web config on reload', async () => {
    replace('next.yml', webYaml({ grafana: ROTATED_HASH }));
    setConfig(routerConfig('next.yml'));
    expect((await get('/-/reload', { method: 'POST', auth: ROTATED, ca: second.cert })).status).toBe(200);
    expect((await get('/metrics', { auth: 'grafana:rotated-password-2', ca: second.cert })).status).toBe(200);
    expect((await get('/metrics', { auth: ROTATED, ca: second.cert })).status).toBe(401);
  });

  it('an invalid web config stops the start with its path and problem', async () => {
    replace('bad-start.yml', 'basic_auth_users: { prometheus: plain-text-password }\n');
    const start = startDaemon(routerConfig('bad-start.yml'), logs.logger, undefined);
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    // The file first (the error's source), then the key and what is wrong, the file not said twice.
    await expect(start).rejects.toThrow(/bad-start\.yml: 1 problem\(s\):\n {2}web_config_file: basic_auth_users\.prometheus: must be a bcrypt hash/);
  });
});

describe('TLS versions and client certificates', () => {
  let clientDaemon: Daemon | undefined;
  let ca: Pem;

  afterAll(async () => {
    await clientDaemon?.shutdown('test');
  });

  it('refuses a client below min_version', async () => {
    replace('tls13.yml', 'tls_server_config: { cert_file: server.crt, key_file: server.key, min_version: TLS13 }\n');
    const tls13 = await startDaemon(routerConfig('tls13.yml'), logs.logger, undefined);
    try {
      await expect(httpsGet(`${tls13.url}/-/healthy`, { ca: second.cert, maxVersion: 'TLSv1.2' })).rejects.toThrow();
      expect((await httpsGet(`${tls13.url}/-/healthy`, { ca: second.cert })).status).toBe(200);
    } finally {
      await tls13.shutdown('test');
    }
  });

  it('RequireAndVerifyClientCert: only clients with a certificate from client_ca_file get in', async () => {
    ca = await makeCert({ commonName: 'scrapers', isCa: true });
    const [trusted, stranger] = await Promise.all([
      makeCert({ commonName: 'prometheus', ca, client: true }),
      makeCert({ commonName: 'stranger', client: true }),
    ]);
    replace('clients.crt', ca.cert);
    replace('mtls.yml', 'tls_server_config: { cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: clients.crt }\n');
    clientDaemon = await startDaemon(routerConfig('mtls.yml'), logs.logger, undefined);
    const refusedLines = (): Record<string, unknown>[] => logs.lines().filter((line) => String(line['msg']).startsWith('TLS handshakes refused'));
    const linesBefore = refusedLines().length;
    const url = `${clientDaemon.url}/-/healthy`;
    expect((await httpsGet(url, { ca: second.cert, client: trusted })).status).toBe(200);
    await expect(httpsGet(url, { ca: second.cert })).rejects.toThrow();
    await expect(httpsGet(url, { ca: second.cert, client: stranger })).rejects.toThrow();
    // Said in the log, once for both (a count by Node's code), where before the refusals left no trace (found by review).
    const refused = refusedLines().slice(linesBefore);
    expect(refused).toEqual([expect.objectContaining({ level: 40, refused: 1, remote: '127.0.0.1', reasons: { ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE: 1 } })]);
    // The stranger's certificate is counted by why it was refused, not as a client that left (ECONNRESET): a minute on.
    const clock = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 61_000);
    try {
      await expect(httpsGet(url, { ca: second.cert })).rejects.toThrow();
    } finally {
      clock.mockRestore();
    }
    expect(refusedLines().slice(linesBefore)[1]).toMatchObject({ refused: 2, reasons: { DEPTH_ZERO_SELF_SIGNED_CERT: 1, ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE: 1 } });
  });

  it('RequireAndVerifyClientCert: a client_ca_file of an intermediate CA with its root admits the clients the intermediate issued', async () => {
    const root = await makeCert({ commonName: 'scrapers root', isCa: true });
    const intermediate = await makeCert({ commonName: 'scrapers intermediate', isCa: true, ca: root });
    const client = await makeCert({ commonName: 'prometheus', ca: intermediate, client: true });
    replace('chain.crt', `${intermediate.cert}\n${root.cert}\n`);
    replace('chain.yml', 'tls_server_config: { cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: chain.crt }\n');
    const chained = await startDaemon(routerConfig('chain.yml'), logs.logger, undefined);
    try {
      expect((await httpsGet(`${chained.url}/-/healthy`, { ca: second.cert, client })).status).toBe(200);
    } finally {
      await chained.shutdown('test');
    }
  });

  it('RequireAndVerifyClientCert: the server trusts exactly the certificates the check read, however OpenSSL would have read the file (found by review)', async () => {
    const root = await makeCert({ commonName: 'scrapers root', isCa: true });
    const other = await makeCert({ commonName: 'other root', isCa: true });
    const [client, intruder] = await Promise.all([makeCert({ commonName: 'prometheus', ca: root, client: true }), makeCert({ commonName: 'intruder', ca: other, client: true })]);
    // A block of text before the root: OpenSSL stops loading the file there, and the file admitted nobody.
    // Other's BEGIN at byte 254 of a comment: OpenSSL reads it (its lines are read 254 bytes at a time), the check
    // says it is not read, and before, its clients were admitted.
    const note = `# ${'x'.repeat(252)}`;
    expect(note).toHaveLength(254);
    replace('odd.crt', `-----BEGIN NOTE-----\nkeep the root below\n-----END NOTE-----\n${root.cert}\n${note}${other.cert}\n`);
    replace('odd.yml', 'tls_server_config: { cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: odd.crt }\n');
    const odd = await startDaemon(routerConfig('odd.yml'), logs.logger, undefined);
    try {
      expect((await httpsGet(`${odd.url}/-/healthy`, { ca: second.cert, client })).status).toBe(200);
      await expect(httpsGet(`${odd.url}/-/healthy`, { ca: second.cert, client: intruder })).rejects.toThrow();
    } finally {
      await odd.shutdown('test');
    }
    expect(logs.text()).toMatch(/a \\"-----BEGIN\\" line that does not start its line/);
  });
});
