/**
 * `demo`: the RouterOS emulator (three routers, tunnels, peers ageing, one going stale) and the daemon
 * polling it over HTTPS, with no config. Prints the URLs; stops on SIGTERM/SIGINT.
 *
 * The only door from the exporter to the emulator, and a dynamic one: the daemon's static module graph never
 * holds the emulator or its optional dependencies (zod, selfsigned), so `run`, `once` and `check` work in an
 * image installed with --omit=optional. ESLint and test/repo/fence.test.ts hold the fence.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_LEVELS } from '../config/defaults.js';
import { checkListen } from '../config/net.js';
import type { Config } from '../config/types.js';
import type { CliOptions } from './args.js';
import { demoConfig, type DemoRouters } from './demo-config.js';
import { handleSignals, startDaemon } from './daemon.js';
import { createLogger } from './logger.js';
import { holdReloadsWhileStarting } from './starting-signals.js';

/** What the demo needs of the emulator: structural, so no type comes from src/emulator either. */
export interface DemoEmulator extends DemoRouters {
  readonly ca: string;
  close(): Promise<void>;
}

export interface EmulatorModule {
  startEmulator(options: { scenario: 'demo' }): Promise<DemoEmulator>;
}

export interface DemoDependencies {
  /** Loads the emulator; tests inject a failing one to reach the missing-dependencies path. */
  loadEmulator?: () => Promise<EmulatorModule>;
}

const OPTIONAL_DEPENDENCIES = ['zod', 'selfsigned'] as const;

const loadEmulatorModule = (): Promise<EmulatorModule> => import('../emulator/index.js');

/**
 * The optional dependency whose absence made the emulator fail to load, or undefined for any other failure
 * (those are bugs and propagate). Node names the missing package in the message: "Cannot find package 'zod'".
 */
export function missingOptionalDependency(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  return OPTIONAL_DEPENDENCIES.find((name) => error.message.includes(`'${name}'`));
}

export async function startDemo(options: CliOptions, dependencies: DemoDependencies = {}): Promise<number> {
  if (options.logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
    console.error(`routeros-exporter: --log-level must be one of ${LOG_LEVELS.join(', ')}`);
    return 2;
  }
  // Checked before anything starts, as the daemon checks it: one line and exit 2 (it came back as exit 1 with
  // two lines, after the emulator had been started and torn down).
  const listenProblem = options.listen === undefined ? undefined : checkListen(options.listen);
  if (listenProblem !== undefined && 'problem' in listenProblem) {
    console.error(`routeros-exporter: --listen: ${listenProblem.problem}`);
    return 2;
  }
  const logLevel = (options.logLevel ?? 'info') as Config['logLevel'];
  // From here a signal while the demo starts removes its folder, once made, before it ends the process (a Ctrl-C
  // left it behind), and a SIGHUP is held for the daemon (it ended the demo).
  let dir: string | undefined = undefined;
  const removeDir = (): void => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  const starting = holdReloadsWhileStarting(removeDir);
  let emulatorModule: EmulatorModule;
  try {
    emulatorModule = await (dependencies.loadEmulator ?? loadEmulatorModule)();
  } catch (error) {
    starting.release();
    const missing = missingOptionalDependency(error);
    if (missing === undefined) throw error;
    console.error(
      `routeros-exporter: demo needs the emulator's optional dependencies (${OPTIONAL_DEPENDENCIES.join(', ')}); '${missing}' is not installed: reinstall without --omit=optional (npm ci)`,
    );
    return 1;
  }
  let emulator: DemoEmulator;
  try {
    emulator = await emulatorModule.startEmulator({ scenario: 'demo' });
  } catch (error) {
    starting.release();
    throw error;
  }
  dir = mkdtempSync(join(tmpdir(), 'routeros-demo-'));
  // The start's listeners go last: a signal while the emulator closes still removes the folder.
  const cleanup = async (): Promise<void> => {
    await emulator.close();
    removeDir();
    starting.release();
  };
  const caFile = join(dir, 'emulator-ca.pem');
  let config: Config;
  try {
    writeFileSync(caFile, emulator.ca);
    config = demoConfig(emulator, { listen: options.listen ?? '127.0.0.1:9731', caFile, logLevel });
  } catch (error) {
    await cleanup();
    throw error;
  }
  const logger = createLogger(logLevel);
  let daemon;
  try {
    daemon = await startDaemon(config, logger, undefined, cleanup);
  } catch (error) {
    await cleanup();
    throw error;
  }
  const lines = [
    'routeros-exporter demo is running:',
    ...emulator.routers.map((router) => `  emulated router ${router.name.padEnd(9)} ${router.url}/rest  (user admin, empty password)`),
    `  metrics  ${daemon.url}/metrics`,
    `  health   ${daemon.url}/health`,
    `  home     ${daemon.url}/`,
    'Stop with Ctrl-C.',
  ];
  process.stderr.write(lines.join('\n') + '\n');
  await handleSignals(daemon, logger, starting);
  return 0;
}
