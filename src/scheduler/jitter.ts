/**
 * A stable per-router delay after each tick, so routers on the same schedule do not all start in the same
 * millisecond (thundering herd on the exporter and on shared uplinks). Stable rather than random: a router's
 * samples stay evenly spaced, and its jobs on one schedule start together (one delay per router, not per job),
 * so they share the router's one connection.
 */
import { createHash } from 'node:crypto';

/**
 * The spread's width: routers start within the first 3 s after their tick (a quarter of the schedule, if that
 * is less). At 2,000 routers that is ~670 starts a second instead of 2,000 at once, while every router can
 * still be collected within 5 s of the tick when the exporter keeps up: a wider spread would hold the last
 * routers' data back by as much, for no saving in CPU.
 */
export const TICK_SPREAD_MAX_MS = 3_000;

export function stableFraction(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 0x1_0000_0000;
}

/** At most a quarter of the interval and at most `maxMs`. */
export function jitterMs(key: string, intervalSeconds: number, maxMs = TICK_SPREAD_MAX_MS): number {
  return Math.floor(stableFraction(key) * Math.min(maxMs, (intervalSeconds * 1000) / 4));
}
