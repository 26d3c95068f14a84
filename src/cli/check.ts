/**
 * `check --config FILE [--router NAME]`: one collection and one health evaluation in the Nagios plugin
 * convention (src/health/nagios.ts). stdout is the plugin output; logs go to stderr. Bandwidth tests are left
 * out: they are measurements, not health, and would hold the check for their whole duration.
 */
import { ConfigError, type Config } from '../config/types.js';
import { formatProblems, loadConfigFile } from '../config/index.js';
import { createApp } from '../app.js';
import { evaluateRouters } from '../health/report.js';
import { formatCheck, output, type CheckOutput } from '../health/nagios.js';
import { createLogger } from './logger.js';

export interface CheckOptions {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** The check itself, without printing: tests drive this in-process. */
export async function check(configPath: string, routerName?: string, options: CheckOptions = {}): Promise<CheckOutput> {
  let config: Config;
  try {
    config = await loadConfigFile(configPath, options.env ?? process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      return output('UNKNOWN', `invalid configuration ${configPath}: ${error.problems.length} problem(s)`, formatProblems(configPath, error.problems).split('\n'));
    }
    return output('UNKNOWN', `cannot load ${configPath}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const routers = routerName === undefined ? config.routers : config.routers.filter((router) => router.name === routerName);
  if (routers.length === 0 && routerName !== undefined) {
    return output('UNKNOWN', `no router named ${JSON.stringify(routerName)} in ${configPath}`, [
      `configured routers: ${config.routers.map((router) => router.name).join(', ') || 'none'}`,
    ]);
  }
  const checked: Config = {
    ...config,
    routers: routers.map((router) => ({ ...router, collectors: { ...router.collectors, bandwidth_test: false } })),
  };
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const now = options.now ?? Date.now;
  const app = createApp(checked, { logger, jitter: false, now });
  try {
    await app.collectOnce();
    return formatCheck(evaluateRouters(checked.routers, app.store, now()), checked.routers);
  } finally {
    await app.stop();
  }
}

export async function runCheck(configPath: string, router?: string): Promise<number> {
  let result: CheckOutput;
  try {
    result = await check(configPath, router);
  } catch (error) {
    // A plugin that crashes must still say UNKNOWN on stdout, or the monitoring system shows nothing useful.
    result = output('UNKNOWN', `check failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  await new Promise<void>((resolve, reject) => process.stdout.write(result.text, (error) => (error ? reject(error) : resolve())));
  return result.code;
}
