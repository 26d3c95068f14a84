/**
 * `demo`: the RouterOS emulator (three routers, tunnels, peers ageing, one going stale) and the daemon
 * polling it over HTTPS, with no config. Prints the URLs; stops on SIGTERM/SIGINT.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator/index.js';
import { LOG_LEVELS } from '../config/defaults.js';
import type { Config } from '../config/types.js';
import type { CliOptions } from './args.js';
import { demoConfig } from './demo-config.js';
import { handleSignals, startDaemon } from './daemon.js';
import { createLogger } from './logger.js';

export async function startDemo(options: CliOptions): Promise<number> {
  if (options.logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
    console.error(`routeros-exporter: --log-level must be one of ${LOG_LEVELS.join(', ')}`);
    return 2;
  }
  const logLevel = (options.logLevel ?? 'info') as Config['logLevel'];
  const emulator = await startEmulator({ scenario: 'demo' });
  const dir = mkdtempSync(join(tmpdir(), 'routeros-demo-'));
  const caFile = join(dir, 'emulator-ca.pem');
  writeFileSync(caFile, emulator.ca);
  const cleanup = async (): Promise<void> => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  };
  let config: Config;
  try {
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
  await handleSignals(daemon, logger);
  return 0;
}
