import { describe, expect, it } from 'vitest';
import {
  DEFAULT_COLLECTORS,
  DEFAULT_SCHEDULES,
  resolveConfig,
} from '../../src/config/index.js';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';

function withRouter(router: Record<string, unknown>, defaults: Record<string, unknown> = BASE.defaults): unknown {
  return { defaults, routers: [{ name: 'hq', url: 'https://192.0.2.1', ...router }] };
}

describe('built-in defaults', () => {
  it('fills every key a minimal config leaves out', () => {
    const config = resolve(BASE);
    expect(config).toMatchObject({ listen: '0.0.0.0:9731', logLevel: 'info', source: 'test.yml' });
    expect(config.shard).toBeUndefined();
    expect(config.webConfigFile).toBeUndefined();
    const router = firstRouter(config);
    expect(router).toMatchObject({
      name: 'hq',
      url: 'https://192.0.2.1',
      username: 'monitor',
      timeoutSeconds: 10,
      tls: { insecureSkipVerify: false },
      schedules: {
        system: '*/15 * * * * *',
        wireguard: '*/15 * * * * *',
        wireguard_setup: '0 */5 * * * *',
        ping: '*/30 * * * * *',
        bandwidth_test: '0 0 3 * * *',
      },
      collectors: { system: true, wireguard: true, wireguard_setup: false, ping: true, bandwidth_test: true },
      health: { handshakeStaleAfterSeconds: 300, pingLossCritical: 0.5, excludePeers: [] },
      ping: [],
      bandwidthTest: [],
    });
    expect(router.tls.ca).toBeUndefined();
    expect(router.health.excludePeerPattern).toBeUndefined();
    expect(router.password.reveal()).toBe('default-Secret-1');
  });

  it('does not let one config change the shared default objects', () => {
    const config = resolve(withRouter({ schedules: { system: '*/20 * * * * *' }, collectors: { system: false } }));
    expect(firstRouter(config).schedules.system).toBe('*/20 * * * * *');
    expect(DEFAULT_SCHEDULES.system).toBe('*/15 * * * * *');
    expect(DEFAULT_COLLECTORS.system).toBe(true);
  });
});

describe('merging defaults into routers', () => {
  it('merges tls, schedules, collectors and health key by key', () => {
    const defaults = {
      ...BASE.defaults,
      tls: { server_name: 'router.example', insecure_skip_verify: true },
      schedules: { system: '*/20 * * * * *', wireguard: '*/30 * * * * *' },
      collectors: { wireguard_setup: true, bandwidth_test: false },
      health: { handshake_stale_after: '3m', ping_loss_critical: 0.2, exclude_peers: ['a'] },
    };
    const router = firstRouter(
      resolve(
        withRouter(
          {
            tls: { insecure_skip_verify: false },
            schedules: { wireguard: '*/45 * * * * *' },
            collectors: { system: false },
            health: { ping_loss_critical: 0.9 },
          },
          defaults,
        ),
      ),
    );
    expect(router.tls).toEqual({ serverName: 'router.example', insecureSkipVerify: false });
    expect(router.schedules).toMatchObject({ system: '*/20 * * * * *', wireguard: '*/45 * * * * *', ping: '*/30 * * * * *' });
    expect(router.collectors).toEqual({
      system: false,
      interface: true,
      wireguard: true,
      wireguard_setup: true,
      ping: true,
      bandwidth_test: false,
      health: true,
      firmware: true,
    });
    expect(router.health).toEqual({ handshakeStaleAfterSeconds: 180, pingLossCritical: 0.9, excludePeers: ['a'] });
  });

  it('replaces scalars and lists as a whole', () => {
    const defaults = {
      ...BASE.defaults,
      timeout: '5s',
      ping: [{ target: '10.0.0.1' }, { target: '10.0.0.2' }],
      health: { exclude_peers: ['a', 'b'] },
    };
    const router = firstRouter(
      resolve(withRouter({ username: 'other', timeout: '7s', ping: [{ target: '10.0.0.9' }], health: { exclude_peers: ['c'] } }, defaults)),
    );
    expect(router.username).toBe('other');
    expect(router.timeoutSeconds).toBe(7);
    expect(router.ping.map((p) => p.target)).toEqual(['10.0.0.9']);
    expect(router.health.excludePeers).toEqual(['c']);
  });

  it('gives routers the defaults’ lists when they set none, and none when they set an empty list', () => {
    const defaults = { ...BASE.defaults, ping: [{ target: '10.0.0.1' }] };
    const config = resolve({
      defaults,
      routers: [
        { name: 'a', url: 'https://192.0.2.1' },
        { name: 'b', url: 'https://192.0.2.2', ping: [] },
        { name: 'c', url: 'https://192.0.2.3', ping: null },
      ],
    });
    expect(config.routers.map((r) => r.ping.length)).toEqual([1, 0, 0]);
  });

  it.each([
    [{ password: 'router-Secret-2' }, 'router-Secret-2'],
    [{ password: '' }, ''],
    [{ password_env: 'HQ_PASSWORD' }, 'env-Secret-3'],
    [{ password_file: 'hq.pw' }, 'file-Secret-4'],
  ])('a router password source %j replaces the defaults’ source entirely', (source, expected) => {
    const defaults = { username: 'monitor', password_file: 'default.pw' };
    const router = firstRouter(
      resolve(withRouter(source, defaults), {
        env: { HQ_PASSWORD: 'env-Secret-3' },
        files: { '/etc/routeros-exporter/default.pw': 'default-file\n', '/etc/routeros-exporter/hq.pw': 'file-Secret-4\n' },
      }),
    );
    expect(router.password.reveal()).toBe(expected);
  });

  it('does not complain about the defaults’ unreadable password_file when every router sets its own', () => {
    const config = resolve(withRouter({ password: 'x' }, { username: 'monitor', password_file: 'missing.pw' }));
    expect(firstRouter(config).password.reveal()).toBe('x');
  });

  it('gives ping and bandwidth targets the router’s schedules unless they set their own', () => {
    const router = firstRouter(
      resolve(
        withRouter({
          schedules: { ping: '*/20 * * * * *', bandwidth_test: '0 30 2 * * *' },
          ping: [{ target: '10.0.0.1' }, { target: 'gw.example', name: 'gw', schedule: '*/40 * * * * *', count: 5, interval: '500ms' }],
          bandwidth_test: [{ target: '10.0.0.1', duration: '10s' }, { target: '10.0.0.2', duration: '5s', schedule: '0 4 * * *' }],
        }),
      ),
    );
    expect(router.ping).toEqual([
      { target: '10.0.0.1', name: '10.0.0.1', count: 3, intervalSeconds: 1, schedule: '*/20 * * * * *' },
      { target: 'gw.example', name: 'gw', count: 5, intervalSeconds: 0.5, schedule: '*/40 * * * * *' },
    ]);
    expect(router.bandwidthTest).toEqual([
      { target: '10.0.0.1', name: '10.0.0.1', durationSeconds: 10, schedule: '0 30 2 * * *', direction: 'both', protocol: 'udp' },
      { target: '10.0.0.2', name: '10.0.0.2', durationSeconds: 5, schedule: '0 4 * * *', direction: 'both', protocol: 'udp' },
    ]);
  });

  it('keeps every optional ping and bandwidth field', () => {
    const router = firstRouter(
      resolve(
        withRouter({
          ping: [{ target: 'fd00::1', interface: 'wg0', src_address: 'fd00::2', size: 1400, count: '4' }],
          bandwidth_test: [{ target: '10.0.0.1', duration: '10s', direction: 'receive', protocol: 'tcp', user: 'bt', password: 'bt-Secret-7', name: 'link' }],
        }),
      ),
    );
    expect(router.ping[0]).toMatchObject({ target: 'fd00::1', interface: 'wg0', srcAddress: 'fd00::2', size: 1400, count: 4 });
    expect(router.bandwidthTest[0]).toMatchObject({ direction: 'receive', protocol: 'tcp', user: 'bt', name: 'link' });
    expect(router.bandwidthTest[0]?.password?.reveal()).toBe('bt-Secret-7');
  });
});

describe('top-level keys', () => {
  it('reads listen, log_level, shard and web_config_file', () => {
    const config = resolve(
      { ...BASE, listen: '[::]:9100', log_level: 'debug', shard: { index: 1, count: 3 }, web_config_file: 'web.yml' },
      { files: { '/etc/routeros-exporter/web.yml': 'basic_auth_users: {}\n' } },
    );
    expect(config).toMatchObject({ listen: '[::]:9100', logLevel: 'debug', shard: { index: 1, count: 3 } });
    expect(config.webConfigFile).toBe('/etc/routeros-exporter/web.yml');
  });

  it.each(['127.0.0.1:9731', ':9731', 'localhost:0', '[::1]:9731', 'exporter.example:65535'])('accepts listen %s', (listen) => {
    expect(resolve({ ...BASE, listen }).listen).toBe(listen);
  });

  it.each(['9731', '0.0.0.0', '::1:9731', '[::1]', '[nope]:9731', 'a b:1', '127.0.0.1:99999', '127.0.0.1:-1'])(
    'rejects listen %s',
    (listen) => {
      expect(problemsOf({ ...BASE, listen })).toEqual([{ path: 'listen', message: expect.any(String) as string }]);
    },
  );

  it('normalises router URLs to scheme://host[:port]', () => {
    const config = resolve({
      defaults: BASE.defaults,
      routers: [
        { name: 'a', url: 'https://Router.Example/' },
        { name: 'b', url: 'https://192.0.2.1:443' },
        { name: 'c', url: 'http://192.0.2.1:8080' },
        { name: 'd', url: 'https://[2001:db8::1]:8443' },
      ],
    });
    expect(config.routers.map((r) => r.url)).toEqual([
      'https://router.example',
      'https://192.0.2.1',
      'http://192.0.2.1:8080',
      'https://[2001:db8::1]:8443',
    ]);
  });

  it('accepts an object built in code with the same keys (the demo does this)', () => {
    const config = resolveConfig(
      { listen: '127.0.0.1:0', routers: [{ name: 'demo-1', url: 'http://127.0.0.1:18080', username: 'admin', password: '' }] },
      { source: '<demo>', baseDir: '/' },
    );
    expect(config.source).toBe('<demo>');
    expect(firstRouter(config).password.reveal()).toBe('');
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({
      listen: 'nowhere',
      routers: [{ name: 'hq', url: 'ftp://x', timeout: 'soon' }, { name: 'hq' }],
    });
    // In file order; a missing key sorts at its parent, ahead of the parent's present keys.
    expect(problems.map((p) => p.path)).toEqual([
      'listen',
      'routers[0].username',
      'routers[0]',
      'routers[0].url',
      'routers[0].timeout',
      'routers[1].url',
      'routers[1].username',
      'routers[1]',
      'routers[1].name',
    ]);
  });

  it('reports a problem reached through defaults once, not once per router', () => {
    const problems = problemsOf({
      defaults: { username: 'monitor', password_file: 'missing.pw' },
      routers: [{ name: 'a', url: 'https://192.0.2.1' }, { name: 'b', url: 'https://192.0.2.2' }],
    });
    expect(problems).toEqual([
      { path: 'defaults.password_file', message: 'cannot read the file it names: no such file (ENOENT)' },
    ]);
  });

  it('never quotes a password_file path, as it never names password_env\'s variable: it may be a password pasted there (found by review)', () => {
    const problems = problemsOf({
      defaults: { username: 'monitor' },
      routers: [{ name: 'a', url: 'https://192.0.2.1', password_file: 'Tr0ub4dor&3xyz' }],
    });
    expect(problems).toEqual([{ path: 'routers[0].password_file', message: 'cannot read the file it names: no such file (ENOENT)' }]);
    expect(JSON.stringify(problems)).not.toContain('Tr0ub4dor');
  });
});
