import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatProblems } from '../../src/config/index.js';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';

const SECRETS = ['default-Secret-1', 'router-Secret-2', 'env-Secret-3', 'file-Secret-4', 'bt-Secret-5', 'url-Secret-6'];

function failure(raw: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolve(raw, { env, files: { '/etc/routeros-exporter/pw': 'file-Secret-4\n' } });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('secrets', () => {
  it('never shows a password in JSON.stringify or util.inspect of a Config', () => {
    const config = resolve(
      {
        defaults: { username: 'monitor', password: 'default-Secret-1' },
        routers: [
          { name: 'a', url: 'https://192.0.2.1' },
          { name: 'b', url: 'https://192.0.2.2', password_env: 'B_PW' },
          { name: 'c', url: 'https://192.0.2.3', password_file: 'pw' },
          { name: 'd', url: 'https://192.0.2.4', bandwidth_test: [{ target: '10.0.0.1', duration: '5s', password: 'bt-Secret-5' }] },
        ],
      },
      { env: { B_PW: 'env-Secret-3' }, files: { '/etc/routeros-exporter/pw': 'file-Secret-4\n' } },
    );
    const json = JSON.stringify(config);
    const inspected = inspect(config, { depth: Infinity, showHidden: true });
    expectNoSecret(json);
    expectNoSecret(inspected);
    expect(json).toContain('[REDACTED]');
    expect(inspected).toContain('[REDACTED]');
    // ...while the daemon can still use them.
    expect(config.routers.map((r) => r.password.reveal())).toEqual([
      'default-Secret-1',
      'env-Secret-3',
      'file-Secret-4',
      'default-Secret-1',
    ]);
    expect(config.routers[3]?.bandwidthTest[0]?.password?.reveal()).toBe('bt-Secret-5');
  });

  it.each<[string, unknown]>([
    ['a password of the wrong type', { ...BASE, routers: [{ name: 'hq', url: 'https://192.0.2.1', password: ['router-Secret-2'] }] }],
    ['a URL with credentials', { ...BASE, routers: [{ name: 'hq', url: 'https://admin:url-Secret-6@192.0.2.1' }] }],
    ['a broken URL with credentials', { ...BASE, routers: [{ name: 'hq', url: 'https://admin:url-Secret-6@[x' }] }],
    [
      'a password next to other problems',
      { defaults: { username: 'monitor', password: 'default-Secret-1', timeout: '99s' }, routers: [{ name: 'hq', url: 'ftp://x', password: 'router-Secret-2', tls: { insecure_skip_verify: 'maybe' } }] },
    ],
    [
      'two password sources',
      { defaults: { username: 'monitor' }, routers: [{ name: 'hq', url: 'https://192.0.2.1', password: 'router-Secret-2', password_file: 'pw' }] },
    ],
    [
      'a bandwidth test password of the wrong type',
      { ...BASE, routers: [{ name: 'hq', url: 'https://192.0.2.1', bandwidth_test: [{ target: '10.0.0.1', duration: '5s', password: { x: 'bt-Secret-5' } }] }] },
    ],
    [
      'a password interpolated from the environment',
      { defaults: { username: 'monitor', password: '${PW}' }, routers: [{ name: 'hq', url: 'https://192.0.2.1', timeout: '${NOPE}' }] },
    ],
  ])('keeps passwords out of ConfigError for %s', (_what, raw) => {
    const error = failure(raw, { PW: 'env-Secret-3' });
    expect(error.problems.length).toBeGreaterThan(0);
    expectNoSecret(error.message);
    expectNoSecret(formatProblems('test.yml', error.problems));
    expectNoSecret(JSON.stringify(error.problems));
    expectNoSecret(inspect(error));
  });

  it('reads password_file relative to the config folder and strips the trailing newline and a leading byte-order mark only', () => {
    const files = {
      '/etc/routeros-exporter/secrets/a': 'with spaces  \n',
      '/run/secrets/b': 'crlf\r\n',
      '/etc/routeros-exporter/c': '\uFEFFnotepad\r\n',
    };
    const config = resolve(
      {
        defaults: { username: 'monitor' },
        routers: [
          { name: 'a', url: 'https://192.0.2.1', password_file: 'secrets/a' },
          { name: 'b', url: 'https://192.0.2.2', password_file: '/run/secrets/b' },
          { name: 'c', url: 'https://192.0.2.3', password_file: './c' },
        ],
      },
      { files },
    );
    expect(config.routers.map((r) => r.password.reveal())).toEqual(['with spaces  ', 'crlf', 'notepad']);
  });

  it('refuses a password no router can have, from every source, at its path and without quoting it (found by review)', () => {
    const at = (source: Record<string, string>, files: Record<string, string> = {}, env: Record<string, string> = {}) =>
      problemsOf({ ...BASE, defaults: { username: 'admin', ...source } }, { files, env });
    // Two lines (a username and a password in one file), a tab, a CR inside: every login failed.
    for (const text of ['admin\nSecret-pass-1', 'Secret\tpass-1', 'Secret\rpass-1\n', 'Secret-pass-1\u0000']) {
      for (const problems of [at({ password: text }), at({ password_file: '/run/pw' }, { '/run/pw': text }), at({ password_env: 'PW' }, {}, { PW: text })]) {
        expect(problems).toHaveLength(1);
        expect(problems[0]?.path).toMatch(/^defaults\.password(_file|_env)?$/);
        expect(problems[0]?.message).toMatch(/holds a control character/);
        expect(JSON.stringify(problems)).not.toContain('pass-1');
      }
    }
    // A variable ends in a line break as a file does (a secret made with echo): the same password either way.
    expect(firstRouter(resolve({ ...BASE, defaults: { username: 'admin', password_env: 'PW' } }, { env: { PW: 'Secret-pass-1\n' } })).password.reveal()).toBe('Secret-pass-1');
    // An empty file is a file being rewritten, not a password: refused, with what to write for an empty one.
    for (const empty of ['', '\n', '\r\n', '\uFEFF']) {
      expect(at({ password_file: '/run/pw' }, { '/run/pw': empty })).toEqual([
        { path: 'defaults.password_file', message: 'the text of the file it names is empty: no password (for a router whose password is empty, write password: "")' },
      ]);
    }
  });

  it('accepts an empty password (RouterOS’s default admin has one) and password_env set to empty', () => {
    expect(firstRouter(resolve({ ...BASE, defaults: { username: 'admin', password: '' } })).password.reveal()).toBe('');
    const viaEnv = resolve({ ...BASE, defaults: { username: 'admin', password_env: 'EMPTY' } }, { env: { EMPTY: '' } });
    expect(firstRouter(viaEnv).password.reveal()).toBe('');
  });
});
