/** From a parsed YAML tree (or an object built in code, like the demo's) to the validated Config. */
import { DEFAULT_LISTEN, DEFAULT_LOG_LEVEL, LOG_LEVELS } from './defaults.js';
import { readEnum, readInteger, readList, readMap, readString, REPORTED, type RawMap } from './fields.js';
import { makeFileReader } from './files.js';
import { interpolateTree } from './interpolate.js';
import { mergeLayers, type SettingsLayer } from './layer.js';
import { checkRouterUrl, listenProblem } from './net.js';
import { joinPath, Problems, sortByDocument } from './problems.js';
import { resolveRouter, type RouterContext } from './router.js';
import { readSettings, SETTINGS_KEYS } from './settings.js';
import { readProfiles } from './profiles.js';
import { checkShard, MAX_SHARDS } from './shard.js';
import { ConfigError, type Config, type ConfigProblem, type RouterConfig, type ShardConfig } from './types.js';
import { ConfigValueError, quoteValue } from './value-error.js';

export interface ResolveOptions {
  /** Where the config came from (a path, or "<demo>"), for messages. */
  source: string;
  /** Folder that relative paths (password_file, ca_file, web_config_file) are resolved against. */
  baseDir: string;
  env?: NodeJS.ProcessEnv;
  /** Reads a named file; by default only regular files are read (FIFOs and devices are refused). */
  readFile?: (path: string) => string;
}

export const TOP_KEYS = ['listen', 'log_level', 'web_config_file', 'shard', 'defaults', 'routers', 'profiles'] as const;
export const ROUTER_KEYS = ['name', 'url', ...SETTINGS_KEYS] as const;
/** Router names become the `router` label and `/health?router=` values: keep them plain. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function readShard(value: unknown, problems: Problems): ShardConfig | undefined {
  const map = readMap(value, 'shard', problems, ['index', 'count']);
  if (map === undefined) return undefined;
  const limits = { min: 0, max: MAX_SHARDS };
  const index = Object.hasOwn(map, 'index') ? readInteger(map.index, 'shard.index', problems, limits) : undefined;
  const count = Object.hasOwn(map, 'count') ? readInteger(map.count, 'shard.count', problems, limits) : undefined;
  for (const [key, found] of [['index', map.index], ['count', map.count]] as const) {
    if (found === undefined) problems.add(`shard.${key}`, 'is required');
  }
  if (index === undefined || count === undefined) return undefined;
  try {
    return checkShard(index, count);
  } catch (error) {
    if (!(error instanceof ConfigValueError)) throw error;
    problems.add(count < 1 ? 'shard.count' : 'shard.index', error.message);
    return undefined;
  }
}

function readName(map: RawMap, path: string, problems: Problems, seen: Map<string, string>): string | undefined {
  const namePath = joinPath(path, 'name');
  if (!Object.hasOwn(map, 'name')) {
    problems.add(namePath, 'is required');
    return undefined;
  }
  const name = readString(map.name, namePath, problems);
  if (name === undefined) return undefined;
  if (!SAFE_NAME.test(name)) {
    problems.add(namePath, `${quoteValue(name)} is not a safe name: use letters, digits, ".", "_" and "-" (at most 63)`);
    return undefined;
  }
  const first = seen.get(name);
  if (first !== undefined) {
    problems.add(namePath, `${quoteValue(name)} is already the name of ${first}; router names must be unique`);
    return undefined;
  }
  seen.set(name, path);
  return name;
}

function readUrl(map: RawMap, path: string, problems: Problems): string | undefined {
  const urlPath = joinPath(path, 'url');
  if (!Object.hasOwn(map, 'url')) {
    problems.add(urlPath, 'is required (like https://192.0.2.1 or https://router.example:8443)');
    return undefined;
  }
  const text = readString(map.url, urlPath, problems);
  if (text === undefined) return undefined;
  const checked = checkRouterUrl(text);
  if ('url' in checked) return checked.url;
  problems.add(urlPath, checked.problem);
  return undefined;
}

function readRouters(value: unknown, defaults: SettingsLayer, ctx: RouterContext, profiles: boolean): RouterConfig[] {
  const { problems } = ctx;
  const list = readList(value, 'routers', problems);
  if (list === undefined) return [];
  // With profiles, Prometheus may name every router (docs/configuration.md, "profiles").
  if (list.length === 0 && !profiles) problems.add('routers', 'needs at least one router (or a profile under profiles:)');
  const seen = new Map<string, string>();
  const routers: RouterConfig[] = [];
  list.forEach((raw, i) => {
    const path = joinPath('routers', i);
    const map = readMap(raw, path, problems, ROUTER_KEYS);
    if (map === undefined) return;
    const name = readName(map, path, problems, seen);
    const url = readUrl(map, path, problems);
    const merged = mergeLayers(defaults, readSettings(map, path, problems));
    // Resolve even without a valid name or URL, so password, file and schedule problems show up too.
    const router = resolveRouter({ name: name ?? '', url: url ?? '', path }, merged, ctx);
    if (router !== undefined && name !== undefined && url !== undefined) routers.push(router);
  });
  return routers;
}

/** The same problem reached through `defaults` by several routers is reported once. */
function unique(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates and resolves a raw config tree: `${ENV}` interpolation, strict keys, defaults merged into
 * each router, password_file / ca_file read. Throws ConfigError listing every problem.
 */
export function resolveConfig(raw: unknown, options: ResolveOptions): Config {
  const problems = new Problems();
  const env = options.env ?? process.env;
  const readText = makeFileReader(options.baseDir, options.readFile);
  const ctx: RouterContext = { problems, env, readText };
  const tree = interpolateTree(raw, env, '', problems);
  if (tree === null || tree === undefined) problems.add('', 'the config is empty: it needs at least a routers list');
  const topMap = readMap(tree ?? null, '', problems, TOP_KEYS);
  const top = topMap ?? {};

  let listen = DEFAULT_LISTEN;
  if (Object.hasOwn(top, 'listen')) {
    const text = readString(top.listen, 'listen', problems);
    const problem = text === undefined ? undefined : listenProblem(text);
    if (problem !== undefined) problems.add('listen', problem);
    if (text !== undefined) listen = text;
  }
  const logLevel = Object.hasOwn(top, 'log_level') ? readEnum(top.log_level, 'log_level', problems, LOG_LEVELS) : DEFAULT_LOG_LEVEL;
  let webConfigFile: string | undefined;
  if (Object.hasOwn(top, 'web_config_file')) {
    const file = readString(top.web_config_file, 'web_config_file', problems);
    const read = file === undefined ? undefined : readText(file);
    if (read !== undefined && 'error' in read) problems.add('web_config_file', read.error);
    webConfigFile = read?.path;
  }
  const shard = Object.hasOwn(top, 'shard') ? readShard(top.shard, problems) : undefined;
  const explainDefaults = (key: string): string | undefined =>
    key === 'name' || key === 'url' ? `${key} is set per router; it cannot have a default` : undefined;
  const defaultsMap = readMap(top.defaults ?? null, 'defaults', problems, SETTINGS_KEYS, explainDefaults) ?? {};
  const defaults = readSettings(defaultsMap, 'defaults', problems);
  if (top.defaults === REPORTED) {
    // `defaults: ${UNSET}` was reported once; routers must not each add "username is required" for it.
    defaults.username = null;
    defaults.password = null;
  }
  const profiles = Object.hasOwn(top, 'profiles') ? readProfiles(top.profiles, defaults, ctx) : undefined;
  // `profiles: {}` is no profile: an exporter with neither routers nor profiles polls nothing. A profiles value
  // that is not a mapping was reported by readProfiles; routers are not asked for on top of that.
  const givenProfiles = top.profiles;
  const emptyProfiles = givenProfiles === null || (typeof givenProfiles === 'object' && !Array.isArray(givenProfiles) && Object.keys(givenProfiles as object).length === 0);
  const hasProfiles = Object.hasOwn(top, 'profiles') && !emptyProfiles;
  let routers: RouterConfig[] = [];
  if (Object.hasOwn(top, 'routers')) routers = readRouters(top.routers, defaults, ctx, hasProfiles);
  else if (topMap !== undefined && tree !== null && tree !== undefined && !hasProfiles) {
    problems.add('routers', 'is required: list at least one router (or a profile under profiles:)');
  }

  if (!problems.empty) {
    // Of the problems kept, each once; those found beyond them are counted (the error says how many).
    const kept = unique(problems.list);
    throw new ConfigError(options.source, sortByDocument(kept, tree), problems.count - (problems.list.length - kept.length));
  }
  const config: Config = { listen, logLevel: logLevel ?? DEFAULT_LOG_LEVEL, routers, source: options.source };
  if (webConfigFile !== undefined) config.webConfigFile = webConfigFile;
  if (shard !== undefined) config.shard = shard;
  if (profiles !== undefined && profiles.length > 0) config.profiles = profiles;
  return config;
}
