#!/usr/bin/env node
/** Entry point: argv, exit codes and signals. Everything else lives behind the app factory. */
import { meansCheck, parseCli, USAGE, UsageError, type CliOptions } from './cli/args.js';
import { endAtStopSignalsAsPid1, holdReloadsWhileStarting } from './cli/starting-signals.js';
import type { Config } from './config/index.js';
import { VERSION } from './version.js';

// A command's modules are loaded when it runs: the exporter's whole graph (undici, pino, yaml, prom-client…) took
// 0.5 s of CPU to load, which `--help`, `--version` and a typo in the command line need none of.

/**
 * Flags over the file. A shard that leaves no router is said (check-config refuses it), but the daemon
 * runs: a StatefulSet with more replicas than routers has empty shards, and a replica must not crash-loop
 * before a reload brings it routers.
 */
async function overridden(loaded: Config, options: CliOptions, warn: (message: string) => void): Promise<Config> {
  const { applyOverrides } = await import('./cli/overrides.js');
  const { emptyShardProblem } = await import('./cli/commands.js');
  const config = applyOverrides(loaded, options);
  const empty = emptyShardProblem(loaded, config.shard, options.shard !== undefined);
  if (empty !== undefined) warn(empty);
  return config;
}

async function main(argv: readonly string[]): Promise<number> {
  // As PID 1, SIGTERM and SIGINT end every command from here, until a command's own handling takes over.
  const asPid1 = endAtStopSignalsAsPid1();
  let options: CliOptions;
  try {
    options = parseCli(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      // check is a Nagios plugin: its usage errors are UNKNOWN (3), never 2 (CRITICAL).
      if (meansCheck(argv)) return (await import('./cli/check.js')).reportCheckUsage(error.message);
      console.error(`routeros-exporter: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  switch (options.command) {
    // `check --help` and `check --version` exit 3 (UNKNOWN), as the plugin guidelines want: a check command defined
    // with them by mistake must not read as OK.
    case 'help':
      console.log(USAGE);
      return meansCheck(argv) ? 3 : 0;
    case 'version':
      console.log(`routeros-exporter ${VERSION} (node ${process.version})`);
      return meansCheck(argv) ? 3 : 0;
    case 'check-config':
      return (await import('./cli/commands.js')).checkConfigCommand(options.config as string, options.shard);
    case 'demo': {
      const { startDemo } = await import('./cli/demo.js');
      // Its own listeners are on before it first waits (startDemo: holdReloadsWhileStarting).
      asPid1();
      return startDemo(options);
    }
    case 'check': {
      const { answerUnawaitedErrors, runCheck } = await import('./cli/check.js');
      answerUnawaitedErrors();
      return runCheck(options.config as string, options.router, options.timeout, options.shard);
    }
    case 'once':
    case 'run': {
      // Before anything slow: a SIGHUP while the daemon starts must not end it (daemon.ts holdReloadsWhileStarting).
      const starting = options.command === 'run' ? holdReloadsWhileStarting() : undefined;
      if (starting !== undefined) asPid1();
      const { emptyShardProblem, loadOrReport, onceCommand } = await import('./cli/commands.js');
      const { applyOverrides } = await import('./cli/overrides.js');
      const { createLogger, releaseLogs } = await import('./cli/logger.js');
      beforeExit = releaseLogs;
      const { handleSignals, startDaemon } = await import('./cli/daemon.js');
      const { ConfigError, formatProblems, loadConfigFile } = await import('./config/index.js');
      const path = options.config as string;
      const loaded = await loadOrReport(path);
      if (loaded === undefined) return 2;
      let config;
      try {
        config = applyOverrides(loaded, options);
      } catch (error) {
        console.error(`routeros-exporter: ${(error as Error).message}`);
        return 2;
      }
      const empty = emptyShardProblem(loaded, config.shard, options.shard !== undefined);
      if (options.command === 'once') {
        if (empty !== undefined) console.error(`routeros-exporter: warning: ${empty}`);
        return onceCommand(config);
      }
      const logger = createLogger(config.logLevel);
      const warn = (message: string): void => logger.warn(message);
      if (empty !== undefined) warn(empty);
      let daemon;
      try {
        daemon = await startDaemon(config, logger, async () => overridden(await loadConfigFile(path), options, warn));
      } catch (error) {
        // An invalid web config is a config error (exit 2), like an invalid main config.
        if (error instanceof ConfigError) {
          console.error(formatProblems(error.source, error.problems));
          return 2;
        }
        throw error;
      }
      await handleSignals(daemon, logger, starting);
      return 0;
    }
  }
}

/**
 * How long the process may linger once a command is done: everything it opened is closed by then (a connect
 * under way included), so the event loop empties and the process exits at once. Something left behind (a
 * library's timer) must not keep a finished `check` past its deadline or a stopped daemon past its shutdown.
 */
const EXIT_GRACE_MS = 2_000;

/**
 * Exits after the grace period, once what was printed has gone out: a write to a pipe beyond its buffer is queued,
 * and an exit would drop the rest (check-config's problems of a 2,000-router config through `| less`).
 */
/** Lets go of what must not hold the exit (the daemon's log lines a stalled reader does not take: logger.ts). */
let beforeExit = (): void => undefined;

function exitWhenWritten(code: number): void {
  setTimeout(() => {
    if (process.stdout.writableLength + process.stderr.writableLength > 0) exitWhenWritten(code);
    else {
      beforeExit();
      process.exit(code);
    }
  }, EXIT_GRACE_MS).unref();
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    exitWhenWritten(code);
  },
  (error: unknown) => {
    console.error(`routeros-exporter: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    // Whatever the failure left open (a timer, a socket) must not keep a process that failed alive.
    exitWhenWritten(1);
  },
);
