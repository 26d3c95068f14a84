/**
 * Command-line flags win over the config file: --listen, --log-level, --shard (which also filters routers),
 * --web.enable-lifecycle. Applied again at every reload, so a flag survives it.
 */
import { parseShard } from '../config/index.js';
import { LOG_LEVELS } from '../config/defaults.js';
import type { Config } from '../config/types.js';
import { parseListen } from '../server/listen.js';
import { inShard } from '../scheduler/shard.js';
import type { CliOptions } from './args.js';

export function applyOverrides(config: Config, options: CliOptions): Config {
  const next: Config = { ...config };
  if (options.listen !== undefined) {
    parseListen(options.listen);
    next.listen = options.listen;
  }
  if (options.logLevel !== undefined) {
    if (!(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
      throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
    }
    next.logLevel = options.logLevel as Config['logLevel'];
  }
  if (options.shard !== undefined) next.shard = parseShard(options.shard);
  if (options.enableLifecycle === true) next.enableLifecycle = true;
  if (next.shard !== undefined) {
    const shard = next.shard;
    next.routers = config.routers.filter((router) => inShard(router.name, shard));
  }
  return next;
}
