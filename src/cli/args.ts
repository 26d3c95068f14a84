/** Command-line parsing for `routeros-exporter`. Usage errors exit 2. */
import { parseArgs } from 'node:util';

export const USAGE = `Usage:
  routeros-exporter --config FILE [--listen HOST:PORT] [--log-level LEVEL] [--shard I/N] [--web.enable-lifecycle]
  routeros-exporter demo [--listen HOST:PORT] [--log-level LEVEL]
  routeros-exporter check-config FILE [--shard I/N]   (or --config FILE)
  routeros-exporter once --config FILE [--log-level LEVEL] [--shard I/N]
  routeros-exporter check --config FILE [--router NAME]... [--timeout SECONDS] [--shard I/N]
  routeros-exporter --help | --version

The config file may also be given as ROUTEROS_EXPORTER_CONFIG=FILE.
--web.enable-lifecycle lets POST /-/reload reload the configuration (off unless basic_auth_users protect it).
Exit codes: 0 ok, 1 runtime failure, 2 usage or config error (check: Nagios 0/1/2/3; its usage errors are 3).`;

export type Command = 'run' | 'demo' | 'check-config' | 'once' | 'check' | 'help' | 'version';

export interface CliOptions {
  command: Command;
  config?: string;
  listen?: string;
  logLevel?: string;
  shard?: string;
  /** `--router`, as often as given: check those routers only. */
  router?: string[];
  /** check: the overall deadline, as given (`30`, `30s`, `1m`). */
  timeout?: string;
  /** --web.enable-lifecycle: POST /-/reload answers without basic auth users. */
  enableLifecycle?: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exported so main can tell which command a command line meant even when it does not parse. */
export const CLI_OPTIONS = {
  config: { type: 'string', short: 'c' },
  listen: { type: 'string' },
  'log-level': { type: 'string' },
  shard: { type: 'string' },
  // Repeatable, as /health's ?router= is: kept to the last one, `--router A --router B` checked B alone and could
  // answer OK while A was critical (found by review).
  router: { type: 'string', multiple: true },
  timeout: { type: 'string', short: 't' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'web.enable-lifecycle': { type: 'boolean' },
} as const;

const COMMANDS = new Set<string>(['demo', 'check-config', 'once', 'check']);

type Flag = keyof typeof CLI_OPTIONS;
/**
 * The flags each command reads. Any other is refused: `once --router x` polled every router and exited 0, and the
 * daemon took `--timeout` without a word, so a flag given to the wrong command went unnoticed (found by review).
 */
const COMMAND_FLAGS: Record<Exclude<Command, 'help' | 'version'>, ReadonlySet<Flag>> = {
  run: new Set(['config', 'listen', 'log-level', 'shard', 'web.enable-lifecycle']),
  once: new Set(['config', 'log-level', 'shard']),
  demo: new Set(['listen', 'log-level']),
  'check-config': new Set(['config', 'shard']),
  check: new Set(['config', 'router', 'timeout', 'shard']),
};

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: CLI_OPTIONS,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { command: 'help' };
  if (values.version === true) return { command: 'version' };
  const [first, ...rest] = positionals;
  let command: Command = 'run';
  let config = values.config ?? env['ROUTEROS_EXPORTER_CONFIG'];
  if (first !== undefined) {
    if (!COMMANDS.has(first)) throw new UsageError(`unknown command "${first}"`);
    command = first as Command;
    if (command === 'check-config') {
      const file = rest.shift();
      // Both given, one was dropped without a word (found by review): the FILE, or --config, once.
      if (file !== undefined && values.config !== undefined) throw new UsageError('check-config takes its FILE once: as an argument or as --config, not both');
      config = file ?? config;
    }
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const allowed = COMMAND_FLAGS[command as keyof typeof COMMAND_FLAGS];
  for (const flag of Object.keys(values) as Flag[]) {
    if (values[flag] !== undefined && !allowed.has(flag)) {
      throw new UsageError(`--${flag} does not apply to ${command === 'run' ? 'the daemon' : command}`);
    }
  }
  if (command !== 'demo' && (config === undefined || config === '')) {
    throw new UsageError(command === 'check-config' ? 'check-config needs a FILE' : 'no config: use --config FILE or ROUTEROS_EXPORTER_CONFIG');
  }
  return {
    command,
    ...(config === undefined ? {} : { config }),
    ...(values.listen === undefined ? {} : { listen: values.listen }),
    ...(values['log-level'] === undefined ? {} : { logLevel: values['log-level'] }),
    ...(values.shard === undefined ? {} : { shard: values.shard }),
    ...(values.router === undefined ? {} : { router: values.router }),
    ...(values.timeout === undefined ? {} : { timeout: values.timeout }),
    ...(values['web.enable-lifecycle'] === true ? { enableLifecycle: true } : {}),
  };
}

/**
 * True when a command line that does not parse was meant for `check`: its first positional is `check`.
 * Read leniently (unknown options allowed) with the real option table, so `--config check` is not taken
 * for the command.
 */
export function meansCheck(argv: readonly string[]): boolean {
  const { positionals } = parseArgs({ args: [...argv], options: CLI_OPTIONS, strict: false, allowPositionals: true });
  return positionals[0] === 'check';
}
