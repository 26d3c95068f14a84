/** docs/configuration.md is what users read: its example must be the tested file, and every key documented. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COLLECTOR_NAMES, loadConfigFile } from '../../src/config/index.js';
import { PROFILE_KEYS } from '../../src/config/profiles.js';
import { TOP_KEYS } from '../../src/config/resolve.js';
import { HEALTH_KEYS, SETTINGS_KEYS, TLS_KEYS } from '../../src/config/settings.js';
import { BANDWIDTH_KEYS, PING_KEYS } from '../../src/config/targets.js';

const here = dirname(fileURLToPath(import.meta.url));
const fullExample = join(here, 'testdata', 'valid-full.yml');
const docs = readFileSync(join(here, '..', '..', 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('shows test/config/testdata/valid-full.yml verbatim', () => {
    expect(docs).toContain('```yaml\n' + readFileSync(fullExample, 'utf8') + '```\n');
  });

  it.each([...TOP_KEYS, 'name', 'url', ...SETTINGS_KEYS, ...TLS_KEYS, ...HEALTH_KEYS, ...PING_KEYS, ...BANDWIDTH_KEYS, ...COLLECTOR_NAMES])(
    'documents `%s` in a table',
    (key) => {
      expect(docs).toMatch(new RegExp(`^\\| \`${key}\`(?:, \`\\w+\`)* \\|`, 'm'));
    },
  );
});

describe('valid-full.yml', () => {
  it('resolves to what its comments say', async () => {
    const config = await loadConfigFile(fullExample, { BRANCH_PASSWORD: 'branch-Secret' });
    expect(config).toMatchObject({
      listen: '0.0.0.0:9731',
      logLevel: 'info',
      webConfigFile: join(here, 'testdata', 'web.yml'),
      shard: { index: 0, count: 1 },
    });
    const [hq, branch] = config.routers;
    expect(hq).toMatchObject({
      name: 'hq',
      url: 'https://192.0.2.1',
      username: 'monitor',
      timeoutSeconds: 10,
      tls: { caFile: join(here, 'testdata', 'ca.pem'), serverName: 'router.example', insecureSkipVerify: false },
      health: { handshakeStaleAfterSeconds: 300, pingLossCritical: 0.5, excludePeers: ['lab-laptop'] },
      interfaces: { includeDynamic: false, includeTypes: ['ether', 'bridge', 'vlan', 'wg', 'pppoe-out'], excludeTypes: ['loopback'] },
      ping: [
        {
          target: '10.10.0.2',
          name: 'branch-tunnel',
          count: 3,
          intervalSeconds: 1,
          schedule: '*/30 * * * * *',
          interface: 'wg-branch',
          srcAddress: '10.10.0.1',
          size: 56,
        },
      ],
      bandwidthTest: [
        { target: '10.10.0.2', durationSeconds: 10, schedule: '0 3 * * *', direction: 'both', protocol: 'udp', user: 'btest', name: 'branch-link' },
      ],
    });
    expect(hq?.labels).toEqual({ site: 'ams' });
    expect(hq?.tls.ca).toContain('-----BEGIN CERTIFICATE-----');
    expect(hq?.password.reveal()).toBe('file-Secret-9');
    expect(hq?.bandwidthTest[0]?.password?.reveal()).toBe('btest');
    expect(hq?.health.excludePeerPattern?.test('test-laptop')).toBe(true);
    expect(hq?.health.excludePeerPattern?.test('my-test-laptop')).toBe(false);

    expect(branch).toMatchObject({
      name: 'branch',
      url: 'https://branch.example:8443',
      username: 'monitor',
      timeoutSeconds: 5,
      tls: { serverName: 'router.example', insecureSkipVerify: true },
      schedules: { system: '*/30 * * * * *', wireguard: '*/15 * * * * *', wireguard_setup: '0 */5 * * * *' },
      collectors: { system: true, wireguard: true, wireguard_setup: true, ping: true, bandwidth_test: true },
      health: { handshakeStaleAfterSeconds: 600, pingLossCritical: 0.5, excludePeers: ['lab-laptop'] },
      ping: [],
      bandwidthTest: [],
    });
    expect(branch?.labels).toEqual({ site: 'lon', role: 'branch' });
    expect(branch?.tls.ca).toContain('-----BEGIN CERTIFICATE-----');
    expect(branch?.password.reveal()).toBe('branch-Secret');
  });
});

describe('the docs name only keys a profile has', () => {
  // The runbook told operators to fix a refused probe in "the profile's `allow`", a key that does not exist.
  const files = ['README.md', ...readdirSync(join(here, '..', '..', 'docs')).map((file) => join('docs', file))].filter((file) => file.endsWith('.md'));
  const named = files.flatMap((file) =>
    [...readFileSync(join(here, '..', '..', file), 'utf8').matchAll(/profile's `([a-z_]+):?`/g)].map((match) => [file, match[1] ?? ''] as const),
  );

  it('finds such mentions', () => {
    expect(named.length).toBeGreaterThan(2);
  });

  it.each(named)('%s: `%s`', (_file, key) => {
    expect(PROFILE_KEYS as readonly string[]).toContain(key);
  });
});
