/** check-config prints the warnings the daemon logs: the same sentences, for the same routers. */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { NAME_PASSWORD_WARNING, NO_RUNS_WARNING, SHORT_PASSWORD_WARNING, configWarnings } from '../../src/config/warnings.js';
import { captureLogs } from '../helpers/log-capture.js';
import { resolve } from './helpers.js';
import type { ConfigProblem } from '../../src/config/types.js';

const config = resolve({
  defaults: { username: 'monitor', password: 'default-Secret-1' },
  routers: [
    { name: 'plain', url: 'http://192.0.2.1' },
    { name: 'unchecked', url: 'https://192.0.2.2', tls: { insecure_skip_verify: true } },
    { name: 'plain-unchecked', url: 'http://192.0.2.3', tls: { insecure_skip_verify: true } },
    { name: 'fine', url: 'https://192.0.2.4' },
    // Ping on without a target, everything else off: nothing runs (found by review: "not collected yet" for good).
    { name: 'idle', url: 'https://192.0.2.5', collectors: { system: false, wireguard: false, interface: false, health: false, firmware: false, ping: true } },
  ],
});

describe('configWarnings', () => {
  it('names each router by its path, once per problem', () => {
    expect(configWarnings(config).map((w) => w.path)).toEqual(['routers[0].url', 'routers[1]', 'routers[2].url', 'routers[4].collectors']);
    expect(configWarnings(config).at(-1)?.message).toBe(NO_RUNS_WARNING);
  });

  it('says exactly what the daemon logs at start', async () => {
    const logs = captureLogs();
    const app = createApp(config, { logger: logs.logger, jitter: false });
    await app.stop();
    const logged = logs
      .lines()
      .filter((line) => line['level'] === 40 && typeof line['router'] === 'string')
      .map((line) => `${String(line['router'])}: ${String(line['msg'])}`);
    const names = config.routers.map((router) => router.name);
    const said = configWarnings(config).map((w) => `${names[Number(/^routers\[(\d+)\]/.exec(w.path)?.[1])] ?? '?'}: ${w.message}`);
    expect(said.sort()).toEqual(logged.sort());
  });
});

describe('password warnings (found by review: a short or name-like password is told by its own redaction)', () => {
  const warningsOf = (password: string, username = 'monitor', name = 'r'): ConfigProblem[] =>
    configWarnings(resolve({ defaults: { username, password }, routers: [{ name, url: 'https://192.0.2.9' }] }));
  const warned = (password: string, username?: string, name?: string): string[] => warningsOf(password, username, name).map((w) => w.message);

  it.each(['a', 'k9', 'abc'])('warns that %j is too short to be redacted', (password) => {
    expect(warned(password)).toEqual([SHORT_PASSWORD_WARNING]);
  });

  it.each([
    ['bridge', 'monitor', 'r'],
    ['bridge1', 'monitor', 'r'],
    ['ether1', 'monitor', 'r'],
    ['sfp-sfpplus2', 'monitor', 'r'],
    ['wireguard1', 'monitor', 'r'],
    ['MikroTik', 'monitor', 'r'],
    ['defconf', 'monitor', 'r'],
    ['admin', 'monitor', 'r'],
    ['monitor', 'monitor', 'r'],
    ['gw-branch7', 'monitor', 'gw-branch7'],
    // In another letter case: logs redact a password in any case (found by review: `Branch-2` for `branch-2`).
    ['Branch-2', 'monitor', 'branch-2'],
    ['MONITOR', 'monitor', 'r'],
    ['Ether1', 'monitor', 'r'],
    ['mikrotik', 'monitor', 'r'],
    // Default names of other ports and tunnels (found by review).
    ['sfp28-1', 'monitor', 'r'],
    ['qsfp28-1-1', 'monitor', 'r'],
    ['combo1', 'monitor', 'r'],
    ['ether1-gateway', 'monitor', 'r'],
    ['l2tp-out1', 'monitor', 'r'],
  ])('warns that %j (user %j, router %j) is a name its redaction would tell', (password, username, name) => {
    expect(warned(password, username, name)).toEqual([NAME_PASSWORD_WARNING]);
  });

  it.each(['abcd', 'bridge-7f!Q', 'ether1x2', 'default-Secret-1', 'monitor-2'])('says nothing of %j (it is no name)', (password) => {
    expect(warned(password)).toEqual([]);
  });

  it("warns about a bandwidth test's btest password as about the router's (the docs promised it; found by review)", () => {
    const config = resolve({
      defaults: { username: 'monitor', password: 'router-secret-1' },
      routers: [
        {
          name: 'r',
          url: 'https://192.0.2.9',
          bandwidth_test: [
            { target: '192.0.2.1', duration: '10s', user: 'btest', password: 'ab' },
            { target: '192.0.2.2', duration: '10s', user: 'btest', password: 'BTEST' },
            { target: '192.0.2.3', duration: '10s', user: 'btest', password: 'long-btest-secret' },
          ],
        },
      ],
    });
    expect(configWarnings(config).filter((w) => w.message === SHORT_PASSWORD_WARNING || w.message === NAME_PASSWORD_WARNING)).toEqual([
      { path: 'routers[0].bandwidth_test[0]', message: SHORT_PASSWORD_WARNING },
      { path: 'routers[0].bandwidth_test[1]', message: NAME_PASSWORD_WARNING },
    ]);
  });

  it('never quotes the password it warns about, in any field of any warning', () => {
    for (const [password, name] of [['k9', 'r'], ['bridge', 'r'], ['gw-branch7', 'gw-branch7']] as const) {
      const warnings = warningsOf(password, 'monitor', name);
      expect(warnings.length).toBeGreaterThan(0);
      // Paths name the router by its place (routers[0]), never by name; no field holds the password.
      for (const warning of warnings) expect(`${warning.path} ${warning.message}`).not.toContain(password);
    }
  });
});
