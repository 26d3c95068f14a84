import type { ShardConfig } from './types.js';
import { ConfigValueError, quoteValue } from './value-error.js';

/**
 * `--shard INDEX/COUNT` → `{ index, count }`. The index is 0-based, like Prometheus' `hashmod`:
 * four instances are `0/4`, `1/4`, `2/4` and `3/4`.
 */
export function parseShard(text: string): ShardConfig {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (match === null) {
    throw new ConfigValueError(`${quoteValue(text)} is not a shard (use INDEX/COUNT, 0-based, e.g. 0/4)`);
  }
  return checkShard(Number(match[1]), Number(match[2]), text);
}

/**
 * The most shards: far more replicas than any fleet runs. One bound for `--shard` and the config's `shard:` (the
 * flag took 0/1000001 and said "at least 1" of a count of 20 digits, the file refused both: found by a hostile tester).
 */
export const MAX_SHARDS = 1_000_000;

/** Shared by `--shard` and the config's `shard: { index, count }`; `text` prefixes messages for the former. */
export function checkShard(index: number, count: number, text?: string): ShardConfig {
  const prefix = text === undefined ? '' : `shard ${quoteValue(text)}: `;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SHARDS) {
    throw new ConfigValueError(`${prefix}count must be a whole number from 1 to ${MAX_SHARDS}`);
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
    throw new ConfigValueError(`${prefix}index ${index} must be 0 to ${count - 1} (0-based, below count ${count})`);
  }
  return { index, count };
}
