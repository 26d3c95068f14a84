/** The subcommands that are not the daemon: check-config and once. */
import { checkConfigFile, formatProblems, loadConfigFile } from '../config/index.js';
import { ConfigError, type Config } from '../config/types.js';
import { loadWebConfig } from '../server/web-config.js';
import { createApp } from '../app.js';
import { createLogger } from './logger.js';
import { terminalText } from '../util/text.js';

/** What check-config and once print on stderr: the problems of a file that may hold secrets or odd bytes. */
function printProblems(text: string): void {
  console.error(terminalText(text));
}

export async function checkConfigCommand(path: string): Promise<number> {
  const problems = await checkConfigFile(path);
  if (problems.length === 0) {
    // The web config is a file of its own: check its contents too, with paths inside it.
    const config = await loadConfigFile(path);
    if (config.webConfigFile !== undefined) {
      try {
        loadWebConfig(config.webConfigFile);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        printProblems(formatProblems(error.source, error.problems));
        return 2;
      }
    }
    console.log(`${path}: OK`);
    return 0;
  }
  printProblems(formatProblems(path, problems));
  return 2;
}

/** Loads a config, printing every problem and returning undefined when it is invalid. */
export async function loadOrReport(path: string): Promise<Config | undefined> {
  try {
    return await loadConfigFile(path);
  } catch (error) {
    if (error instanceof ConfigError) {
      printProblems(formatProblems(path, error.problems));
      return undefined;
    }
    throw error;
  }
}

/** One collection of every job; the exposition goes to stdout; exit 1 when any router failed. */
export async function onceCommand(config: Config): Promise<number> {
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  const app = createApp(config, { logger, jitter: false });
  try {
    const ok = await app.collectOnce();
    const body = await app.exposition.render('text', false);
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(Buffer.concat(body.parts), (error) => (error ? reject(error) : resolve())),
    );
    return ok ? 0 : 1;
  } finally {
    await app.stop();
  }
}
