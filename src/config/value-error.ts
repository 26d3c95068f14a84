/**
 * One config value that does not parse, from the value parsers (`parseDuration`, `parseShard`,
 * `cronIntervalSeconds`). Command-line code catches it by `code`; the config loader turns it into a
 * `ConfigProblem` with the value's path.
 */
export class ConfigValueError extends Error {
  override readonly name = 'ConfigValueError';
  readonly code = 'CONFIG_VALUE_INVALID';
}

/** Quote a config value for a message, bounded so a pasted blob cannot flood the output. */
export function quoteValue(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
