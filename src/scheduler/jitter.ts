/**
 * A stable per-router delay, so routers on the same schedule do not all start in the same millisecond
 * (thundering herd on the exporter and on shared uplinks). Stable rather than random: a router's
 * samples stay evenly spaced.
 */
import { createHash } from 'node:crypto';

export function stableFraction(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 0x1_0000_0000;
}

/** At most a quarter of the interval and at most `maxMs`. */
export function jitterMs(key: string, intervalSeconds: number, maxMs = 5_000): number {
  return Math.floor(stableFraction(key) * Math.min(maxMs, (intervalSeconds * 1000) / 4));
}
