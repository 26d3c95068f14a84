/**
 * The built CLI's answers to mistakes on its command line and in a config, as users and monitoring systems
 * see them: `check` usage errors are UNKNOWN (3), and `check-config` says what the daemon will say.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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
    expect(result.stdout).toContain('routeros-exporter check --config FILE [--router NAME] [--timeout SECONDS]');
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
    expect(result.stdout).toMatch(/^ROUTEROS UNKNOWN - no router could be reached/);
    expect(result.code).toBe(3);
  });
});
