/** The subcommands that are not the daemon: check-config and once. */
import { checkConfigFile, ConfigValueError, formatProblems, loadConfigFile, parseShard } from '../config/index.js';
import { ConfigError, type Config, type ShardConfig } from '../config/types.js';
import { configWarnings } from '../config/warnings.js';
import { inShard } from '../scheduler/shard.js';
import { loadWebConfig } from '../server/web-config.js';
import { createApp } from '../app.js';
import { createLogger } from './logger.js';
import { writeStdout } from './stdout.js';
import { terminalText } from '../util/text.js';

/** What check-config and once print on stderr: the problems of a file that may hold secrets or odd bytes. */
function printProblems(text: string): void {
  console.error(terminalText(text));
}

/**
 * Why a shard leaves this exporter no router, or undefined. `check-config` refuses it (exit 2): checking a
 * config for a shard that polls nothing is a wrong index or count, or names that all hash elsewhere. The
 * daemon and `once` only warn: a StatefulSet with more replicas than routers has empty shards by design.
 * A config with profiles is never empty: its replicas poll the targets Prometheus sends them.
 */
export function emptyShardProblem(config: Config, shard: ShardConfig | undefined, fromFlag: boolean): string | undefined {
  if (shard === undefined || config.routers.some((router) => inShard(router.name, shard))) return undefined;
  // With profiles the replica still polls what Prometheus' hashmod sends it (routers from inventory, never sharded here).
  if ((config.profiles?.length ?? 0) > 0) return undefined;
  const names = config.routers.map((router) => router.name);
  const listed = names.length <= 5 ? ` (${names.join(', ')})` : '';
  const which = fromFlag ? `--shard ${shard.index}/${shard.count}` : `shard {index: ${shard.index}, count: ${shard.count}}`;
  return `${which} leaves this exporter no router: all ${names.length}${listed} belong to other shards`;
}

/** check-config: the problems the daemon would refuse (exit 2), then the warnings it would log (exit still 0). */
export async function checkConfigCommand(path: string, shardText?: string): Promise<number> {
  const problems = await checkConfigFile(path);
  if (problems.length === 0) {
    const config = await loadConfigFile(path);
    const warnings = formatProblems(path, configWarnings(config)).split('\n').filter((line) => line !== '');
    // The web config is a file of its own: check its contents too, with paths inside it.
    if (config.webConfigFile !== undefined) {
      try {
        const web = loadWebConfig(config.webConfigFile);
        warnings.push(...web.warnings.map((warning) => `${web.path}: ${warning}`));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        printProblems(formatProblems(error.source, error.problems));
        return 2;
      }
    }
    let shard: ShardConfig | undefined;
    try {
      shard = shardText === undefined ? config.shard : parseShard(shardText);
    } catch (error) {
      if (!(error instanceof ConfigValueError)) throw error;
      printProblems(`routeros-exporter: --shard: ${error.message}`);
      return 2;
    }
    for (const warning of warnings) printProblems(`warning: ${warning}`);
    const empty = emptyShardProblem(config, shard, shardText !== undefined);
    if (empty !== undefined) {
      printProblems(`${path}: ${empty}`);
      return 2;
    }
    console.log(`${path}: OK${warnings.length === 0 ? '' : ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'})`}`);
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
    await writeStdout(Buffer.concat(body.parts));
    return ok ? 0 : 1;
  } finally {
    await app.stop();
  }
}
