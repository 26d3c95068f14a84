/**
 * The built CLI's answers to mistakes on its command line and in a config, as users and monitoring systems
 * see them: `check` usage errors are UNKNOWN (3), and `check-config` says what the daemon will say.
 */
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/scheduler/shard.js';
import { finished, runCli, startCli } from '../helpers/cli.js';
import { tempFile } from '../helpers/emulator-config.js';

const VALID = ['defaults:', '  username: monitor', '  password: ""', 'routers:', '  - { name: hq, url: "https://192.0.2.1" }', ''].join('\n');

describe('check usage errors', () => {
  it.each([
    ['no --config', ['check'], 'no config'],
    ['an unknown option', ['check', '--config', 'x.yml', '--bogus'], "Unknown option '--bogus'"],
    ['an option without its value', ['check', '--config', 'x.yml', '--router'], "Option '--router <value>' argument missing"],
    ['an extra argument', ['check', '--config', 'x.yml', 'extra'], 'unexpected argument "extra"'],
  ])('%s exits 3 (UNKNOWN) with the usage on stdout, never 2 (CRITICAL)', async (_what, args, reason) => {
    const result = await runCli(args, { ROUTEROS_EXPORTER_CONFIG: '' });
    expect(result.code).toBe(3);
    const lines = result.stdout.split('\n');
    expect(lines[0]?.startsWith(`ROUTEROS UNKNOWN - usage error: ${reason}`)).toBe(true);
    expect(result.stdout).toContain('routeros-exporter check --config FILE [--router NAME]... [--timeout SECONDS]');
  });

  it.each([['--help', 'Usage:'], ['--version', 'routeros-exporter ']])('check %s exits 3 (UNKNOWN), as the plugin guidelines want; without check, 0', async (flag, printed) => {
    const asCheck = await runCli(['check', flag]);
    expect(asCheck.code).toBe(3);
    expect(asCheck.stdout).toContain(printed);
    expect((await runCli([flag])).code).toBe(0);
  });

  it('other commands keep exit 2 for usage errors, even when "check" is an option value', async () => {
    const valueNotCommand = await runCli(['--config', 'check', '--bogus']);
    expect(valueNotCommand.code).toBe(2);
    expect(valueNotCommand.stderr).toContain('Usage:');
    expect((await runCli(['once', '--bogus'])).code).toBe(2);
  });

  it('a valid check command line still runs the check', async () => {
    const file = tempFile('check-valid.yml', VALID.replace('https://192.0.2.1', 'https://127.0.0.1:1'));
    const result = await runCli(['check', '--config', file, '--timeout', '5']);
    expect(result.stdout).toMatch(/^ROUTEROS CRITICAL - no router could be reached/);
    expect(result.code).toBe(2);
  });
});

/** Two router names in the same shard of 2, and the index no router of theirs falls in. */
function sameShardPair(): { names: [string, string]; empty: number; full: number } {
  const names = Array.from({ length: 20 }, (_, i) => `r${i}`);
  const first = names[0] ?? 'r0';
  const partner = names.slice(1).find((name) => shardOf(name, 2) === shardOf(first, 2)) ?? 'r1';
  const full = shardOf(first, 2);
  return { names: [first, partner], empty: 1 - full, full };
}

function routersConfig(routers: string[], extra: string[] = []): string {
  return [...extra, 'defaults:', '  username: monitor', '  password: ""', 'routers:', ...routers, ''].join('\n');
}

describe('check-config says what the daemon will say', () => {
  it('prints the warnings the daemon logs (plain HTTP, insecure_skip_verify) and still exits 0', async () => {
    const file = tempFile(
      'warn.yml',
      routersConfig([
        '  - { name: plain, url: "http://192.0.2.1" }',
        '  - { name: unchecked, url: "https://192.0.2.2", tls: { insecure_skip_verify: true } }',
        '  - { name: fine, url: "https://192.0.2.3" }',
      ]),
    );
    const result = await runCli(['check-config', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${file}: OK (2 warnings)\n`);
    expect(result.stderr).toBe(
      `warning: ${file}: routers[0].url: plain HTTP: the password crosses the network unencrypted; use https\n` +
        `warning: ${file}: routers[1]: TLS certificate verification is OFF for this router (tls.insecure_skip_verify)\n`,
    );
  });

  it('takes --shard like the daemon and refuses a shard that leaves no router (exit 2)', async () => {
    const { names, empty, full } = sameShardPair();
    const file = tempFile('shard.yml', routersConfig(names.map((name, i) => `  - { name: ${name}, url: "https://192.0.2.${i + 1}" }`)));
    const refused = await runCli(['check-config', file, '--shard', `${empty}/2`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}: --shard ${empty}/2 leaves this exporter no router: all 2 (${names.join(', ')}) belong to other shards`);
    const accepted = await runCli(['check-config', file, '--shard', `${full}/2`]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toBe(`${file}: OK\n`);
    const nonsense = await runCli(['check-config', file, '--shard', '5/2']);
    expect(nonsense.code).toBe(2);
    expect(nonsense.stderr).toContain('index 5 must be 0 to 1');
  });

  it('refuses a config shard that leaves no router; the daemon and once run and warn (a StatefulSet has empty shards)', async () => {
    const { names, empty } = sameShardPair();
    const routers = names.map((name) => `  - { name: ${name}, url: "https://127.0.0.1:1" }`);
    const file = tempFile('shard-in-file.yml', routersConfig(routers, ['listen: "127.0.0.1:0"', `shard: { index: ${empty}, count: 2 }`]));
    const message = `shard {index: ${empty}, count: 2} leaves this exporter no router: all 2 (${names.join(', ')}) belong to other shards`;
    const checked = await runCli(['check-config', file]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(`${file}: ${message}`);
    const once = await runCli(['once', '--config', file]);
    expect(once.code).toBe(0);
    expect(once.stderr).toContain(`routeros-exporter: warning: ${message}`);
    const daemon = startCli(['--config', file]);
    const logged = (): boolean => daemon.output.stdout.includes(`"msg":"${message}"`) && daemon.output.stdout.includes('routeros-exporter started');
    await expect.poll(logged, { timeout: 15_000 }).toBe(true);
    daemon.kill('SIGTERM');
    expect((await finished(daemon)).code).toBe(0);
  }, 30_000);

  it('accepts a shard with no configured router when the config has profiles (its targets come from Prometheus)', async () => {
    const { names, empty } = sameShardPair();
    const routers = names.map((name) => `  - { name: ${name}, url: "https://127.0.0.1:1" }`);
    const profile = ['profiles:', '  inventory:', '    targets: ["10.0.0.0/8"]', '    ports: [443]'];
    const file = tempFile('shard-profiles.yml', routersConfig(routers, [`shard: { index: ${empty}, count: 2 }`]) + profile.join('\n') + '\n');
    const checked = await runCli(['check-config', file]);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 30_000);
});
