/**
 * Each command takes the flags it reads and refuses the others as a usage error: `once --router x` polled every
 * router and exited 0, and the daemon took `--timeout` without a word (found by review).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../src/cli/args.js';

const VALUE: Record<string, string[]> = {
  config: ['--config', 'x.yml'],
  listen: ['--listen', '127.0.0.1:9731'],
  'log-level': ['--log-level', 'debug'],
  shard: ['--shard', '0/2'],
  router: ['--router', 'hq'],
  timeout: ['--timeout', '30'],
  'web.enable-lifecycle': ['--web.enable-lifecycle'],
};
const READS: Record<string, string[]> = {
  run: ['config', 'listen', 'log-level', 'shard', 'web.enable-lifecycle'],
  once: ['config', 'log-level', 'shard'],
  demo: ['listen', 'log-level'],
  'check-config': ['config', 'shard'],
  check: ['config', 'router', 'timeout', 'shard'],
};
/** The command line before the flags, with what each needs to stand on its own (a config, check-config's FILE). */
const BASE: Record<string, { argv: string[]; env: NodeJS.ProcessEnv }> = {
  run: { argv: [], env: { ROUTEROS_EXPORTER_CONFIG: 'c.yml' } },
  once: { argv: ['once'], env: { ROUTEROS_EXPORTER_CONFIG: 'c.yml' } },
  demo: { argv: ['demo'], env: {} },
  'check-config': { argv: ['check-config', 'c.yml'], env: {} },
  check: { argv: ['check'], env: { ROUTEROS_EXPORTER_CONFIG: 'c.yml' } },
};

describe('flags per command', () => {
  it('property: a command takes the flags it reads, and refuses any other with the flag and the command named', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(READS)), fc.subarray(Object.keys(VALUE)), (command, flags) => {
        const { argv, env } = BASE[command] ?? { argv: [], env: {} };
        const line = [...argv, ...flags.flatMap((flag) => VALUE[flag] ?? [])];
        const stray = flags.filter((flag) => !(READS[command] ?? []).includes(flag));
        if (command === 'check-config' && flags.includes('config')) {
          // Its FILE is given as an argument here: a --config beside it is the same thing twice.
          expect(() => parseCli(line, env)).toThrow(/^check-config takes its FILE once/);
        } else if (stray.length === 0) {
          expect(parseCli(line, env).command).toBe(command);
        } else {
          expect(() => parseCli(line, env)).toThrow(UsageError);
          expect(() => parseCli(line, env)).toThrow(new RegExp(`^--(${stray.join('|').replace(/\./g, '\\.')}) does not apply to ${command === 'run' ? 'the daemon' : command}$`));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('check-config takes its file once: as an argument or --config, not both (one was dropped; found by review)', () => {
    expect(parseCli(['check-config', 'a.yml'], {}).config).toBe('a.yml');
    expect(parseCli(['check-config', '--config', 'b.yml'], {}).config).toBe('b.yml');
    expect(() => parseCli(['check-config', 'a.yml', '--config', 'b.yml'], {})).toThrow(/takes its FILE once/);
  });

  it('help and version answer whatever else is given', () => {
    expect(parseCli(['once', '--router', 'x', '--help'], {}).command).toBe('help');
    expect(parseCli(['--timeout', '3', '--version'], {}).command).toBe('version');
  });
});
