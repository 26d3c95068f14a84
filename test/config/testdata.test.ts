/**
 * One invalid file per rule (blackbox_exporter style): each must fail with exactly the expected problem,
 * and nothing else — a second problem would mean one mistake cascades into noise.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkConfigFile, formatProblems, loadConfigFile } from '../../src/config/index.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'testdata');
const env = { ROUTER_PASSWORD: 'env-Secret-5', BRANCH_PASSWORD: 'branch-Secret-6' };

const INVALID: Record<string, [path: string, message: string]> = {
  'yaml-syntax': ['', 'line 8, column 3: wrong indentation'],
  'yaml-duplicate-key': ['routers[0]', 'line 8, column 5: map keys must be unique'],
  'yaml-indent': ['', 'line 8, column 6: this line is indented deeper than the key above it, so YAML reads both lines as one key'],
  'yaml-indent-less': ['', 'line 6, column 2: wrong indentation: the items of one list or mapping start at the same column'],
  empty: ['', 'the config is empty'],
  'not-a-mapping': ['', 'must be a mapping'],
  'top-unknown-key': ['lisen', 'unknown key (did you mean "listen"?)'],
  listen: ['listen', 'must be a string, not 9731'],
  'listen-ipv6-brackets': ['listen', 'put an IPv6 address in brackets'],
  'listen-port': ['listen', 'port 70000 is above 65535'],
  'idle-connection': ['defaults.idle_connection', 'must be one of keep, close, not "never"'],
  'log-level': ['log_level', 'must be one of fatal, error, warn, info, debug, trace, silent, not "verbose"'],
  'web-config-missing': ['web_config_file', 'no-such-web.yml": no such file (ENOENT)'],
  'shard-index': ['shard.index', 'index 4 must be 0 to 3 (0-based, below count 4)'],
  'shard-count-missing': ['shard.count', 'is required'],
  'routers-missing': ['routers', 'is required'],
  'routers-empty': ['routers', 'needs at least one router'],
  'routers-not-list': ['routers', 'must be a list, not a mapping'],
  'router-unknown-key': ['routers[0].pasword', 'unknown key (did you mean "password"?)'],
  'router-name-missing': ['routers[0].name', 'is required'],
  'router-name-duplicate': ['routers[1].name', '"hq" is already the name of routers[0]'],
  'router-name-unsafe': ['routers[0].name', '"head office" is not a safe name'],
  'url-missing': ['routers[0].url', 'is required'],
  'url-scheme': ['routers[0].url', 'must start with https://'],
  'url-path': ['routers[0].url', 'must not have a path'],
  'url-query': ['routers[0].url', 'must not have a query'],
  'url-credentials': ['routers[0].url', 'must not contain credentials'],
  'defaults-name': ['defaults.name', 'name is set per router; it cannot have a default'],
  // After the password: not named (it could be the password's rest), but the suggestion stands.
  'defaults-unknown-key': ['defaults', 'an unknown key after the password, not named in case it is the password\'s rest (an unquoted comma in { … } makes one); did you mean "timeout"?'],
  'username-missing': ['routers[0].username', 'is required (set it here or in defaults)'],
  'password-missing': ['routers[0]', 'needs a password source'],
  'password-two-sources': ['routers[0]', 'set only one of password, password_file and password_env'],
  'password-not-string': ['routers[0].password', 'must be a string (quote it in YAML)'],
  'password-file-missing': ['defaults.password_file', 'cannot read the file it names: no such file (ENOENT)'],
  'password-env-unset': ['defaults.password_env', 'the environment variable it names is not set'],
  'env-unset': ['routers[0].url', 'environment variable ROUTEROS_TEST_UNSET_HOST is not set'],
  'password-interpolation-unset': ['defaults.password', 'the environment variable named by the ${…} at character 1 is not set'],
  'defaults-env-unset': ['defaults', 'environment variable ROUTEROS_TEST_UNSET_DEFAULTS is not set'],
  'timeout-too-long': ['defaults.timeout', "60s must be below the router's 60s limit on one request"],
  'timeout-no-unit': ['defaults.timeout', 'must be a duration with a unit'],
  'timeout-fraction': ['routers[0].timeout', '"1.5s" is not a duration: each unit takes a whole number; write 1500ms'],
  'timeout-vs-schedule': [
    'routers[0].timeout',
    '20s must be shorter than the 10s between runs of schedules.system "*/10 * * * * *" (set at routers[0].schedules.system)',
  ],
  'tls-ca-missing': ['defaults.tls.ca_file', 'no-such-ca.pem": no such file (ENOENT)'],
  'tls-ca-not-pem': ['routers[0].tls.ca_file', 'holds no certificate'],
  'tls-unknown-key': ['routers[0].tls.insecure_skip_verfy', 'unknown key (did you mean "insecure_skip_verify"?)'],
  'tls-skip-verify-not-bool': ['routers[0].tls.insecure_skip_verify', 'must be true or false, not "yes"'],
  'schedule-invalid': ['routers[0].schedules.system', '"every 15 seconds" is not a valid cron expression'],
  'schedule-step': [
    'routers[0].schedules.system',
    '"*/61 * * * * *" is not a valid cron expression: the second step /61 is larger than the field\'s range 0-59 (steps go from 1 to 59)',
  ],
  'schedule-unknown-collector': ['defaults.schedules.wiregard', 'unknown key (did you mean "wireguard"?)'],
  'collectors-unknown': ['routers[0].collectors.firewall', 'unknown key'],
  'collectors-not-bool': ['routers[0].collectors.ping', 'must be true or false, not "maybe"'],
  'health-stale-zero': ['defaults.health.handshake_stale_after', 'must be longer than 0s'],
  'health-loss-ratio': ['routers[0].health.ping_loss_critical', 'must be a ratio above 0 and at most 1'],
  'health-pattern': ['routers[0].health.exclude_peer_pattern', '"lab-(" is not a valid regular expression'],
  'health-exclude-peers-not-list': ['routers[0].health.exclude_peers', 'must be a list, not "lab-laptop"'],
  'labels-name': ['routers[0].labels.data-centre', '"data-centre" is not a Prometheus label name'],
  'labels-reserved': ['routers[0].labels.__site', '"__site" starts with "__", which Prometheus reserves'],
  'labels-exporter': ['defaults.labels.interface', '"interface" is a label the exporter sets itself (on routeros_'],
  'labels-value': ['routers[0].labels.site', 'must not be empty'],
  'ping-budget': [
    'routers[0].ping[1]',
    "count × interval = 60s would not finish well inside the router's 60s command limit (keep it ≤ 45s)",
  ],
  'ping-target-missing': ['routers[0].ping[0].target', 'is required'],
  'ping-target-invalid': ['routers[0].ping[0].target', '"10.0.0.1/24" is not an IP address or host name'],
  'ping-count': ['routers[0].ping[0].count', 'must be between 1 and 100, not 0'],
  'ping-interval': ['routers[0].ping[0].interval', '1ms is too short: the minimum is 10ms'],
  'ping-duplicate': ['routers[0].ping[2]', 'same target and name as routers[0].ping[0]'],
  'ping-unknown-key': ['routers[0].ping[0].cuont', 'unknown key (did you mean "count"?)'],
  'ping-run-vs-schedule': [
    'routers[0].ping[0]',
    'a run takes count × interval = 20s, not shorter than the 15s between runs of routers[0].ping[0].schedule',
  ],
  'ping-schedule-invalid': ['routers[0].ping[0].schedule', 'expected 5 or 6 fields but got 3'],
  'bandwidth-duration-missing': ['routers[0].bandwidth_test[0].duration', 'is required'],
  'bandwidth-duration-budget': [
    'routers[0].bandwidth_test[0].duration',
    "50s would not finish well inside the router's 60s command limit (keep it ≤ 45s)",
  ],
  'bandwidth-direction': ['routers[0].bandwidth_test[0].direction', 'must be one of receive, transmit, both, not "up"'],
  'bandwidth-protocol': ['routers[0].bandwidth_test[0].protocol', 'must be one of udp, tcp, not "icmp"'],
  'bandwidth-target': ['routers[0].bandwidth_test[0].target', '"btest.example" is not an IP address'],
};

describe('invalid-*.yml', () => {
  it('has an expectation for every file, and a file for every expectation', () => {
    const files = readdirSync(dir).filter((f) => /^invalid-.*\.yml$/.test(f));
    expect(files.map((f) => f.slice('invalid-'.length, -'.yml'.length)).sort()).toEqual(Object.keys(INVALID).sort());
  });

  it.each(Object.entries(INVALID))('invalid-%s.yml → %j', async (name, [path, message]) => {
    const problems = await checkConfigFile(join(dir, `invalid-${name}.yml`), env);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe(path);
    expect(problems[0]?.message).toContain(message);
  });

  it('loadConfigFile throws the same problems as a ConfigError', async () => {
    const file = join(dir, 'invalid-ping-budget.yml');
    await expect(loadConfigFile(file, env)).rejects.toMatchObject({
      name: 'ConfigError',
      code: 'CONFIG_INVALID',
      source: file,
      problems: [{ path: 'routers[0].ping[1]' }],
    });
  });

  it('gives a YAML syntax error its line and column', async () => {
    const problems = await checkConfigFile(join(dir, 'invalid-yaml-syntax.yml'), env);
    expect(problems[0]).toMatchObject({ line: 8, column: 3 });
    expect(formatProblems('c.yml', problems)).toBe(
      'c.yml: line 8, column 3: wrong indentation: the items of one list or mapping start at the same column, and a [ ] or { } over several lines is indented deeper than its key and closed',
    );
  });

  it('reports a missing config file as a problem', async () => {
    const problems = await checkConfigFile(join(dir, 'no-such-config.yml'), env);
    expect(problems).toEqual([{ path: '', message: 'cannot read the config file (ENOENT)' }]);
  });
});

describe('valid-*.yml', () => {
  it.each(readdirSync(dir).filter((f) => /^valid-.*\.yml$/.test(f)))('%s loads', async (file) => {
    expect(await checkConfigFile(join(dir, file), env)).toEqual([]);
  });
});
