import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/index.js';
import { BASE, firstRouter, problemsOf, resolve, TEST_CA_PEM } from './helpers.js';

const PEM = TEST_CA_PEM;

describe('tls.ca_file', () => {
  it('is read at load, relative to the config folder, and kept with its resolved path', () => {
    const router = firstRouter(
      resolve({ ...BASE, defaults: { ...BASE.defaults, tls: { ca_file: 'certs/ca.pem', server_name: 'r.example' } } }, {
        files: { '/etc/routeros-exporter/certs/ca.pem': PEM },
      }),
    );
    expect(router.tls).toEqual({
      caFile: '/etc/routeros-exporter/certs/ca.pem',
      ca: PEM,
      serverName: 'r.example',
      insecureSkipVerify: false,
    });
  });

  it('must hold a PEM certificate; the message shows the path, not the content', () => {
    const problems = problemsOf(
      { ...BASE, defaults: { ...BASE.defaults, tls: { ca_file: '/tmp/key.pem' } } },
      { files: { '/tmp/key.pem': '-----BEGIN PRIVATE KEY-----\nprivate-Bytes\n' } },
    );
    expect(problems).toEqual([
      { path: 'defaults.tls.ca_file', message: '"/tmp/key.pem" holds no certificate (a PEM "-----BEGIN CERTIFICATE-----" block)' },
    ]);
  });

  it('must hold only whole, readable certificates: a file cut short anywhere, or a damaged block among good ones, is refused at its path (found by review)', () => {
    const problemOf = (text: string) => problemsOf({ ...BASE, defaults: { ...BASE.defaults, tls: { ca_file: '/tmp/ca.pem' } } }, { files: { '/tmp/ca.pem': text } });
    const damaged = PEM.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!!!!!!!!!!!!!!!!!');
    // Every cut of the file but the whole: OpenSSL took what it could read of each and said nothing.
    for (let end = 1; end < PEM.trimEnd().length; end++) {
      const problems = problemOf(`${PEM}${PEM.slice(0, end)}`);
      expect(problems, `cut at ${end}`).toHaveLength(1);
      expect(problems[0]?.path).toBe('defaults.tls.ca_file');
      expect(problems[0]?.message).toMatch(/^"\/tmp\/ca\.pem" (ends inside certificate 2|its certificate 2 of 2 cannot be read)/);
    }
    expect(problemOf(`${damaged}${PEM}`)).toEqual([{ path: 'defaults.tls.ca_file', message: '"/tmp/ca.pem" its certificate 1 of 2 cannot be read (cut short or damaged)' }]);
    expect(problemOf('-----BEGIN TRUSTED CERTIFICATE-----\nAAAA\n-----END TRUSTED CERTIFICATE-----\n')[0]?.message).toBe(
      '"/tmp/ca.pem" holds a "TRUSTED CERTIFICATE" block: write each certificate as a PEM "BEGIN CERTIFICATE" block',
    );
    // A bundle of whole certificates, text around them (a system bundle's comments), is taken: its certificates are installed.
    const router = firstRouter(resolve({ ...BASE, defaults: { ...BASE.defaults, tls: { ca_file: '/tmp/ca.pem' } } }, { files: { '/tmp/ca.pem': `# ours\n${PEM}\n# again\n${PEM}` } }));
    expect(router.tls.ca).toBe(`${PEM}${PEM}`);
  });
});

describe('loadConfigFile', () => {
  it('resolves files next to the config file and interpolates the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-config-'));
    writeFileSync(join(dir, 'pw'), 'from-file\n');
    writeFileSync(join(dir, 'ca.pem'), PEM);
    writeFileSync(
      join(dir, 'config.yml'),
      [
        'defaults:',
        '  username: ${USER_NAME:-monitor}',
        '  password_file: pw',
        '  tls: { ca_file: ca.pem }',
        'routers:',
        '  - name: hq',
        '    url: https://${HQ_HOST}:${HQ_PORT:-443}',
        '',
      ].join('\n'),
    );
    const config = await loadConfigFile(join(dir, 'config.yml'), { HQ_HOST: '192.0.2.7', HQ_PORT: '8443' });
    const router = firstRouter(config);
    expect(router).toMatchObject({ username: 'monitor', url: 'https://192.0.2.7:8443', tls: { ca: PEM } });
    expect(router.password.reveal()).toBe('from-file');
    expect(config.source).toBe(join(dir, 'config.yml'));
  });

  it('gives the event loop a turn between parsing the file and checking it (each ~0.1 s at 2,000 routers)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-config-'));
    writeFileSync(join(dir, 'pw'), 'before\n');
    writeFileSync(join(dir, 'config.yml'), ['defaults: { username: monitor, password_file: pw }', 'routers:', '  - name: hq', '    url: https://192.0.2.1', ''].join('\n'));
    let turns = 0;
    const config = await loadConfigFile(join(dir, 'config.yml'), {}, async () => {
      turns++;
      // The files the config names are read by the check, after the turn.
      writeFileSync(join(dir, 'pw'), 'after\n');
      await new Promise((resolve) => setImmediate(resolve));
    });
    expect(turns).toBe(1);
    expect(firstRouter(config).password.reveal()).toBe('after');
  });

  it('supports YAML anchors and merge keys for shared blocks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-config-'));
    writeFileSync(
      join(dir, 'config.yml'),
      [
        'x-tunnel-ping: &tunnel { count: 5, interval: 200ms }',
        'defaults: { username: monitor, password: "" }',
        'routers:',
        '  - name: hq',
        '    url: https://192.0.2.1',
        '    ping:',
        '      - { <<: *tunnel, target: 10.0.0.1 }',
        '',
      ].join('\n'),
    );
    // Unknown top-level keys are errors, even ones only there to hold an anchor.
    await expect(loadConfigFile(join(dir, 'config.yml'), {})).rejects.toMatchObject({
      problems: [{ path: 'x-tunnel-ping', message: 'unknown key' }],
    });
    writeFileSync(
      join(dir, 'config.yml'),
      [
        'defaults: { username: monitor, password: "", ping: [&tunnel { target: 10.0.0.9, count: 5, interval: 200ms }] }',
        'routers:',
        '  - name: hq',
        '    url: https://192.0.2.1',
        '    ping:',
        '      - { <<: *tunnel, target: 10.0.0.1 }',
        '',
      ].join('\n'),
    );
    const router = firstRouter(await loadConfigFile(join(dir, 'config.yml'), {}));
    expect(router.ping).toEqual([{ target: '10.0.0.1', name: '10.0.0.1', count: 5, intervalSeconds: 0.2, schedule: '*/30 * * * * *' }]);
  });

  it('never includes the offending line of a YAML syntax error (it may hold a password)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'routeros-config-'));
    writeFileSync(join(dir, 'config.yml'), 'defaults:\n  password: "yaml-Secret-8\n  username: x\n');
    const error: unknown = await loadConfigFile(join(dir, 'config.yml'), {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConfigError' });
    expect(String((error as Error).message)).not.toContain('yaml-Secret-8');
  });
});
