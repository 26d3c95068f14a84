/**
 * The live web config on a hand-driven clock: re-read only when a file changed and the recheck interval has
 * passed, an invalid change logged once while the previous config serves on, and changes a running server
 * cannot take refused.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { beforeEach, describe, expect, it } from 'vitest';
import { WebConfigSource } from '../../src/server/web-source.js';
import { captureLogs } from '../helpers/log-capture.js';
import { makeCert } from './tls-helpers.js';

const HASH_A = bcrypt.hashSync('a', 4);
const HASH_B = bcrypt.hashSync('b', 4);
let dir: string;
let clock: number;
let logs: ReturnType<typeof captureLogs>;

function put(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  return path;
}

let wall: number;

function source(path: string | undefined): WebConfigSource {
  return new WebConfigSource(path, { logger: logs.logger, recheckMs: 1000, now: () => wall + clock, monotonic: () => clock });
}

const messages = (): string[] => logs.lines().map((line) => String(line['msg']));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'routeros-websrc-'));
  clock = 1_000_000;
  wall = 0;
  logs = captureLogs();
});

describe('re-reading the web config', () => {
  it('picks up a change once the recheck interval has passed, not before', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    put('web.yml', `basic_auth_users: { b: "${HASH_B}" }`);
    clock += 999;
    expect([...(web.current()?.users.keys() ?? [])]).toEqual(['a']);
    clock += 1;
    expect([...(web.current()?.users.keys() ?? [])]).toEqual(['b']);
    expect(messages()).toContain('web config re-read after a file change');
  });

  it('keeps re-reading after the wall clock is set back an hour (the throttle runs on the monotonic clock)', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    wall -= 3_600_000;
    put('web.yml', `basic_auth_users: { b: "${HASH_B}" }`);
    clock += 1000;
    expect([...(web.current()?.users.keys() ?? [])]).toEqual(['b']);
  });

  it('logs an invalid change once, keeps serving the previous config, and takes the fix', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    put('web.yml', 'basic_auth_users: { a: plain-password }');
    for (let i = 0; i < 5; i++) {
      clock += 1000;
      expect(web.current()?.users.get('a')).toBe(HASH_A);
    }
    expect(messages().filter((message) => message.startsWith('web config changed but is invalid'))).toHaveLength(1);
    expect(logs.text()).not.toContain('plain-password');
    put('web.yml', `basic_auth_users: { a: "${HASH_B}" }`);
    clock += 1000;
    expect(web.current()?.users.get('a')).toBe(HASH_B);
  });

  it('a file change that leaves no users (a file caught half-written) keeps authentication on; a reload may turn it off (found by review)', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    for (const half of ['', 'basic_auth_users: {}', 'http_server_config: { headers: { X-Content-Type-Options: nosniff } }']) {
      put('web.yml', half);
      clock += 1000;
      expect(web.current()?.users.get('a')).toBe(HASH_A);
    }
    expect(messages().filter((message) => message.startsWith('web config changed but is invalid')).length).toBeGreaterThan(0);
    expect(logs.text()).toContain('would turn authentication off');
    // Asked for: a reload installs it, and says so.
    web.prepare(put('web.yml', 'basic_auth_users: {}'))();
    expect(web.current()?.users.size).toBe(0);
    expect(messages()).toContain('this reload turned Basic authentication off: the web config has no basic_auth_users now');
  });

  it('a reload refuses a web config file that holds nothing while users are in force: a file caught half-written (found by review)', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    for (const nothing of ['', '\n', '# being rewritten\n', '   \n# a\n', 'basic_auth_users:\n', 'http_server_config: { headers: { X-Content-Type-Options: nosniff } }\nbasic_auth_users:']) {
      expect(() => web.prepare(put('web.yml', nothing)), JSON.stringify(nothing)).toThrow(
        expect.objectContaining({ problems: [{ path: 'web_config_file', message: expect.stringMatching(/^the file now says nothing of users .*, which would turn authentication off/) }] }),
      );
      expect(web.current()?.users.get('a')).toBe(HASH_A);
    }
    // Without users in force an empty file is what it is in exporter-toolkit: plain HTTP, no users.
    const open = source(put('open.yml', 'http_server_config: { headers: { X-Content-Type-Options: nosniff } }'));
    open.prepare(put('open.yml', ''))();
    expect(open.current()?.usersUnsaid).toBe(true);
  });

  it('a client CA file emptied or cut while running (a rewrite caught half-way) keeps the previous CA (found by review)', async () => {
    const [server, root] = await Promise.all([makeCert(), makeCert({ commonName: 'client root', isCa: true })]);
    put('s.crt', server.cert);
    put('s.key', server.key);
    put('ca.pem', root.cert);
    const web = source(put('web.yml', 'tls_server_config: { cert_file: s.crt, key_file: s.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: ca.pem }'));
    // Empty, Node would have trusted its whole default store: every public CA's clients.
    for (const cut of ['', root.cert.slice(0, 40)]) {
      put('ca.pem', cut);
      clock += 1000;
      // The root as installed: the certificate the check read, written out again.
      expect(web.current()?.tls?.clientCa).toBe(new X509Certificate(root.cert).toString());
    }
    expect(logs.text()).toContain('holds no certificate');
  });

  it('calls its listeners with each installed config', () => {
    const web = source(put('web.yml', ''));
    const seen: number[] = [];
    web.onChange((config) => seen.push(config?.users.size ?? -1));
    put('web.yml', `basic_auth_users: { a: "${HASH_A}", b: "${HASH_B}" }`);
    clock += 1000;
    web.current();
    expect(seen).toEqual([2]);
  });

  it('warns about a certificate that expires soon or has expired', async () => {
    const soon = await makeCert({ notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 3 * 86_400_000) });
    put('s.crt', soon.cert);
    put('s.key', soon.key);
    clock = Date.now();
    source(put('web.yml', 'tls_server_config: { cert_file: s.crt, key_file: s.key }'));
    expect(messages()).toContain('the server certificate (cert_file) expires within 14 days; replace cert_file and key_file (no restart needed)');
    clock = Date.now() + 4 * 86_400_000;
    source(join(dir, 'web.yml'));
    expect(messages()).toContain('the server certificate (cert_file) has expired: scrapers will refuse it; replace cert_file and key_file');
  });
});

describe('reloads', () => {
  it('prepare validates without installing; the returned function installs', () => {
    const web = source(put('web.yml', `basic_auth_users: { a: "${HASH_A}" }`));
    const install = web.prepare(put('next.yml', `basic_auth_users: { b: "${HASH_B}" }`));
    expect([...(web.current()?.users.keys() ?? [])]).toEqual(['a']);
    install();
    expect([...(web.current()?.users.keys() ?? [])]).toEqual(['b']);
    web.prepare(undefined)();
    expect(web.current()).toBeUndefined();
  });

  it('refuses an invalid file with the path web_config_file and the problem inside it', () => {
    const web = source(undefined);
    const bad = put('bad.yml', 'tls_server_config: {}');
    expect(() => web.prepare(bad)).toThrow(expect.objectContaining({
      problems: expect.arrayContaining([{ path: 'web_config_file', message: 'tls_server_config.cert_file: is required with tls_server_config' }]),
    }));
  });

  it('refuses to turn client certificates on for a running HTTPS server', async () => {
    const pem = await makeCert();
    put('s.crt', pem.cert);
    put('s.key', pem.key);
    const web = source(put('tls.yml', 'tls_server_config: { cert_file: s.crt, key_file: s.key }'));
    expect(web.https).toBe(true);
    const mtls = put('mtls.yml', 'tls_server_config: { cert_file: s.crt, key_file: s.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: s.crt }');
    expect(() => web.prepare(mtls)).toThrow(expect.objectContaining({ problems: [{ path: 'web_config_file', message: 'changing client_auth_type needs a restart' }] }));
    // Without a web config now, the file at fault is the exporter config that dropped it (it said `<none>`).
    expect(() => web.prepare(undefined, 'exporter.yml')).toThrow(expect.objectContaining({ source: 'exporter.yml' }));
  });

  it('refuses to switch a plain HTTP server to HTTPS', async () => {
    const pem = await makeCert();
    put('s.crt', pem.cert);
    put('s.key', pem.key);
    const web = source(undefined);
    expect(web.https).toBe(false);
    expect(() => web.prepare(put('tls.yml', 'tls_server_config: { cert_file: s.crt, key_file: s.key }'))).toThrow(/needs a restart/);
  });
});
