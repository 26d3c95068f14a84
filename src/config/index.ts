/** The config layer's public API: load, check and resolve configs, and the value parsers the CLI shares. */
export { loadConfigFile, checkConfigFile } from './load.js';
export { resolveConfig, type ResolveOptions } from './resolve.js';
export { parseDuration, formatDuration } from './duration.js';
export { parseShard } from './shard.js';
export { cronIntervalSeconds } from './cron.js';
export { formatProblems } from './problems.js';
export { isPlainHttp } from './net.js';
export { ConfigValueError } from './value-error.js';
export * from './defaults.js';
export * from './types.js';
