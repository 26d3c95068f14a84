/** `profiles:`: routers from inventory, read like a router over defaults plus an allow list, a cap and an expiry. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TARGETS } from '../../src/config/profiles.js';
import { BASE, problemsOf, resolve } from './helpers.js';

function withProfiles(profiles: unknown, rest: Record<string, unknown> = {}): unknown {
  return { ...BASE, ...rest, profiles };
}

function firstProfile(raw: unknown, options = {}): NonNullable<ReturnType<typeof resolve>['profiles']>[number] {
  const profile = resolve(raw, options).profiles?.[0];
  if (profile === undefined) throw new Error('no profile');
  return profile;
}

describe('profiles', () => {
  it('are absent when the config has none', () => {
    expect(resolve(BASE).profiles).toBeUndefined();
  });

  it('take the settings keys over defaults, like a router, plus their own keys and their defaults', () => {
    const profile = firstProfile(
      withProfiles({
        branches: { targets: ['10.20.0.0/16', '*.branch.example.net'], timeout: '5s', collectors: { wireguard: false }, labels: { tier: 'branch' } },
      }),
    );
    expect(profile.name).toBe('branches');
    expect(profile.scheme).toBe('https');
    expect(profile.maxTargets).toBe(DEFAULT_MAX_TARGETS);
    expect(profile.forgetAfterSeconds).toBeUndefined();
    expect(profile.settings.username).toBe('monitor');
    expect(profile.settings.password.reveal()).toBe('default-Secret-1');
    expect(profile.settings.timeoutSeconds).toBe(5);
    expect(profile.settings.collectors.wireguard).toBe(false);
    expect(profile.settings.collectors.system).toBe(true);
    expect(profile.settings.labels).toEqual({ tier: 'branch' });
    expect(profile.targets).toEqual([
      { kind: 'network', text: '10.20.0.0/16', family: 'ipv4', address: '10.20.0.0', prefix: 16 },
      { kind: 'host', text: '*.branch.example.net', labels: ['*', 'branch', 'example', 'net'], anyDepth: false },
    ]);
    expect(profile.settings).not.toHaveProperty('name');
    expect(profile.settings).not.toHaveProperty('url');
  });

  it('read max_targets, forget_after, scheme, and credentials from env and files like routers', () => {
    const profile = firstProfile(
      withProfiles({
        lab: {
          targets: ['2001:db8::/48', '192.0.2.7', '**.lab.example'],
          max_targets: 20,
          forget_after: '30m',
          scheme: 'http',
          username: '${LAB_USER}',
          password_file: 'lab-password',
        },
      }),
      { env: { LAB_USER: 'inventory' }, files: { '/etc/routeros-exporter/lab-password': 'file-Secret-2\n' } },
    );
    expect(profile).toMatchObject({ maxTargets: 20, forgetAfterSeconds: 1800, scheme: 'http' });
    expect(profile.settings.username).toBe('inventory');
    expect(profile.settings.password.reveal()).toBe('file-Secret-2');
    expect(profile.targets.map((entry) => entry.kind)).toEqual(['network', 'network', 'host']);
    expect(profile.targets[1]).toMatchObject({ address: '192.0.2.7', prefix: 32 });
    expect(profile.targets[2]).toMatchObject({ labels: ['lab', 'example'], anyDepth: true });
    expect(profile.ports).toBeUndefined();
    expect(firstProfile(withProfiles({ lab: { targets: ['10.0.0.0/8'], ports: [443, '8443'] } })).ports).toEqual([443, 8443]);
  });

  it('let a config have no routers at all when it has a profile', () => {
    const config = resolve({ defaults: BASE.defaults, profiles: { all: { targets: ['10.0.0.0/8'] } } });
    expect(config.routers).toEqual([]);
    expect(config.profiles).toHaveLength(1);
    expect(resolve({ defaults: BASE.defaults, routers: [], profiles: { all: { targets: ['10.0.0.0/8'] } } }).routers).toEqual([]);
    expect(problemsOf({ defaults: BASE.defaults })).toContainEqual({ path: 'routers', message: expect.stringContaining('or a profile under profiles:') });
  });

  it.each([
    [{ b: {} }, 'profiles.b.targets', 'is required: a profile names the networks and host names it may reach'],
    [{ b: { targets: [] } }, 'profiles.b.targets', 'must list at least one network or host name pattern'],
    [{ b: { targets: null } }, 'profiles.b.targets', 'must list at least one network or host name pattern'],
    [{ b: { targets: '10.0.0.0/8' } }, 'profiles.b.targets', 'must be a list of networks'],
    [{ b: { targets: ['10.0.0.0/33'] } }, 'profiles.b.targets[0]', '"10.0.0.0/33" has a prefix length above 32'],
    [{ b: { targets: ['10.0.0.0/x'] } }, 'profiles.b.targets[0]', 'has a prefix length that is not a number'],
    [{ b: { targets: ['10.0.0.256'] } }, 'profiles.b.targets[0]', 'is not an IP address or network'],
    [{ b: { targets: ['2001:db8::/129'] } }, 'profiles.b.targets[0]', 'has a prefix length above 128'],
    [{ b: { targets: ['fe80::1%eth0'] } }, 'profiles.b.targets[0]', 'must not carry an IPv6 zone'],
    [{ b: { targets: ['*'] } }, 'profiles.b.targets[0]', 'matches every host name'],
    [{ b: { targets: ['**'] } }, 'profiles.b.targets[0]', 'is not a host name pattern'],
    [{ b: { targets: ['*.*'] } }, 'profiles.b.targets[0]', 'matches every host name'],
    [{ b: { targets: ['a**.example'] } }, 'profiles.b.targets[0]', 'is not a host name pattern'],
    [{ b: { targets: ['x.**.example'] } }, 'profiles.b.targets[0]', '"**" is allowed only as the whole first label'],
    [{ b: { targets: ['rtr_1.example'] } }, 'profiles.b.targets[0]', 'is not a host name pattern'],
    [{ b: { targets: ['https://10.0.0.1'] } }, 'profiles.b.targets[0]', 'is not a host name pattern'],
    [{ b: { targets: [''] } }, 'profiles.b.targets[0]', 'must be a network or host name pattern'],
    [{ b: { targets: [7] } }, 'profiles.b.targets[0]', 'must be a network or host name pattern'],
    [{ b: { targets: ['10.0.0.0/8'], max_targets: 0 } }, 'profiles.b.max_targets', 'must be between 1 and 100000, not 0'],
    [{ b: { targets: ['10.0.0.0/8'], max_targets: 'many' } }, 'profiles.b.max_targets', 'must be a whole number'],
    [{ b: { targets: ['10.0.0.0/8'], forget_after: '30s' } }, 'profiles.b.forget_after', '30s is too short: the minimum is 60s'],
    [{ b: { targets: ['10.0.0.0/8'], scheme: 'ftp' } }, 'profiles.b.scheme', 'must be one of https, http, not "ftp"'],
    [{ b: { targets: ['10.0.0.0/8'], ports: [] } }, 'profiles.b.ports', 'must list at least one port (leave ports out to allow any)'],
    [{ b: { targets: ['10.0.0.0/8'], ports: 443 } }, 'profiles.b.ports', 'must be a list'],
    [{ b: { targets: ['10.0.0.0/8'], ports: [443, 0] } }, 'profiles.b.ports[1]', 'must be between 1 and 65535, not 0'],
    [{ b: { targets: ['10.0.0.0/8'], ports: ['https'] } }, 'profiles.b.ports[0]', 'must be a whole number'],
    [{ b: { targets: ['10.0.0.0/8'], ports: [443, 443] } }, 'profiles.b.ports[1]', 'lists port 443 twice'],
    [{ b: { targets: ['10.0.0.0/8'], url: 'https://10.0.0.1' } }, 'profiles.b.url', 'url comes from the probed target; a profile cannot set it'],
    [{ b: { targets: ['10.0.0.0/8'], name: 'x' } }, 'profiles.b.name', 'name comes from the probed target'],
    [{ b: { targets: ['10.0.0.0/8'], tagets: [] } }, 'profiles.b.tagets', 'unknown key (did you mean "targets"?)'],
    [{ b: { targets: ['10.0.0.0/8'], timeout: '90s' } }, 'profiles.b.timeout', "must be below the router's 60s limit"],
    [{ b: { targets: ['10.0.0.0/8'], labels: { router: 'x' } } }, 'profiles.b.labels.router', 'is a label the exporter sets itself'],
    [{ 'bad name': { targets: ['10.0.0.0/8'] } }, 'profiles["bad name"]', 'is not a safe profile name'],
    [['b'], 'profiles', 'must be a mapping of profile names to settings'],
  ])('refuse %j at %s: %s', (profiles, path, message) => {
    expect(problemsOf(withProfiles(profiles))).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('need credentials like a router, and say where', () => {
    const problems = problemsOf({ routers: [], profiles: { b: { targets: ['10.0.0.0/8'], username: 'u' } } });
    expect(problems).toContainEqual({ path: 'profiles.b', message: expect.stringContaining('needs a password source') });
    const unset = problemsOf(withProfiles({ b: { targets: ['10.0.0.0/8'], password_env: 'NOPE_UNSET' } }));
    expect(unset).toContainEqual({ path: 'profiles.b.password_env', message: 'the environment variable it names is not set' });
  });

  it('never quote a password in a problem', () => {
    const problems = problemsOf(withProfiles({ b: { targets: ['10.0.0.0/8'], password: 12345678, timeout: 'x' } }));
    expect(JSON.stringify(problems)).not.toContain('12345678');
    expect(problems).toContainEqual({ path: 'profiles.b.password', message: 'must be a string (quote it in YAML)' });
  });
});

describe('profile warnings', () => {
  it('say plain HTTP at the scheme and skipped verification at the profile, like a router', async () => {
    const { configWarnings } = await import('../../src/config/warnings.js');
    const config = resolve(
      withProfiles({
        plain: { targets: ['10.0.0.0/8'], scheme: 'http', ports: [80] },
        skip: { targets: ['10.0.0.0/8'], tls: { insecure_skip_verify: true }, ports: [443] },
        fine: { targets: ['10.0.0.0/8'], ports: [443] },
      }),
    );
    expect(configWarnings(config)).toEqual([
      { path: 'profiles.plain.scheme', message: expect.stringContaining('plain HTTP') },
      { path: 'profiles.skip', message: expect.stringContaining('TLS certificate verification is OFF') },
    ]);
  });

  it('say that a profile without ports lets a probe name any port of an allowed host (found by review: a port scan)', async () => {
    const { configWarnings } = await import('../../src/config/warnings.js');
    const config = resolve(
      withProfiles({ open: { targets: ['10.0.0.0/8'] }, plain: { targets: ['10.0.0.0/8'], scheme: 'http' }, fine: { targets: ['10.0.0.0/8'], ports: [443, 8443] } }),
    );
    const warnings = configWarnings(config).filter((warning) => warning.path.endsWith('.ports'));
    // The advice names the scheme's own default port: [443] for http made every target without a port 403 (found by review).
    expect(warnings).toEqual([
      { path: 'profiles.open.ports', message: expect.stringMatching(/^no ports: a probe may name any port .*\(ports: \[443\]\)$/) },
      { path: 'profiles.plain.ports', message: expect.stringMatching(/\(ports: \[80\]\)$/) },
    ]);
  });
});

describe('the complete example (test/config/testdata/valid-full.yml, shown in docs/configuration.md)', () => {
  it('has a profile that resolves to what its comments say', async () => {
    const { loadConfigFile } = await import('../../src/config/index.js');
    const config = await loadConfigFile(new URL('testdata/valid-full.yml', import.meta.url).pathname, { BRANCH_PASSWORD: 'branch-Secret' });
    expect(config.profiles).toHaveLength(1);
    const [branches] = config.profiles ?? [];
    expect(branches).toMatchObject({ name: 'branches', scheme: 'https', maxTargets: 1000, forgetAfterSeconds: 7200 });
    expect(branches?.targets.map((entry) => entry.text)).toEqual(['10.20.0.0/16', '2001:db8:20::/48', '*.branch.example']);
    expect(branches?.settings.password.reveal()).toBe('branch-Secret');
    expect(branches?.settings.collectors.bandwidth_test).toBe(false);
    expect(branches?.settings.labels).toEqual({ site: 'ams', role: 'branch' });
  });
});
