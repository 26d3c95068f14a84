import { dirname, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FileTooLargeError, NotRegularFileError, NotUtf8Error, readRegularFile } from './files.js';
import { resolveConfig, ROUTER_KEYS, type ResolveOptions } from './resolve.js';
import { PROFILE_KEYS } from './profiles.js';
import { BANDWIDTH_KEYS } from './targets.js';
import { ConfigError, type Config, type ConfigProblem } from './types.js';
import { parseYaml } from './yaml.js';

/**
 * Reads, parses and validates a config file; relative paths inside it are resolved against its folder.
 * Throws ConfigError with every problem found. `between` runs between parsing and validating (a turn of the
 * event loop; tests see it there).
 */
export async function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env, between: () => Promise<unknown> = nextTurn): Promise<Config> {
  let text: string;
  try {
    // A FIFO or device named as the config would hang the start, every reload and so the shutdown.
    text = await readRegularFile(path);
  } catch (error) {
    if (error instanceof NotUtf8Error) {
      // Where, so an editor can go there: a stray Latin-1 byte in a comment is the usual case.
      const message = `line ${error.line}, column ${error.column}: the config file is not UTF-8 text from here on (save it as UTF-8)`;
      throw new ConfigError(path, [{ path: '', message, line: error.line, column: error.column }]);
    }
    const reason = error instanceof NotRegularFileError || error instanceof FileTooLargeError ? `: ${error.reason}` : ` (${(error as NodeJS.ErrnoException | undefined)?.code ?? 'unreadable'})`;
    throw new ConfigError(path, [{ path: '', message: `cannot read the config file${reason}` }]);
  }
  const options = { source: path, baseDir: dirname(resolve(path)), env };
  const value = yamlOf(text, options.source);
  // The event loop between parsing and checking: each takes ~0.1 s for 2,000 routers, and a reload runs beside
  // scrapes and collections.
  await between();
  return resolveConfig(value, options);
}

/** Parses and validates config text; throws ConfigError with every problem found (and nothing else). */
export function configFromText(text: string, options: ResolveOptions): Config {
  return resolveConfig(yamlOf(text, options.source), options);
}

/** The keys of the mappings a password stands in (defaults, a router, a profile, a bandwidth test): named in problems. */
const KEYS_BESIDE_A_PASSWORD: ReadonlySet<string> = new Set([...ROUTER_KEYS, ...PROFILE_KEYS, ...BANDWIDTH_KEYS]);

/** The config text's YAML as values; throws ConfigError with its syntax problems. */
function yamlOf(text: string, source: string): unknown {
  const parsed = parseYaml(text, KEYS_BESIDE_A_PASSWORD);
  if (parsed.problems.length > 0) throw new ConfigError(source, parsed.problems);
  return parsed.value;
}

/** What `check-config` needs: every problem of a config file, or [] when it is valid. */
export async function checkConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<ConfigProblem[]> {
  try {
    await loadConfigFile(path, env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}
