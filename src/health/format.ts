/** Human wording shared by /health reasons, `check` and the verdict log. */
import { ERA_START_SECONDS } from '../analysis/decoding.js';
import { keyStart } from '../util/text.js';

const UNITS: readonly [string, number][] = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/** Seconds → the two largest units: `45s`, `10m`, `10m5s`, `1h5m`, `2d3h`. */
export function formatAge(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  if (rest === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    if (count === 0) {
      if (parts.length > 0) break;
      continue;
    }
    parts.push(`${count}${unit}`);
    rest -= count * size;
    if (parts.length === 2) break;
  }
  return parts.join('');
}

export function formatPercent(ratio: number): string {
  return `${Number((ratio * 100).toFixed(1))}%`;
}

/** A day of clock skew between router and exporter is tolerated; a time further ahead is not a real one. */
export const FUTURE_TOLERANCE_MS = 86_400_000;

/** True for Unix ms inside the era this exporter believes: from 2015 (ERA_START_SECONDS) to a day after `now`. */
export function inEra(unixMs: number, now: number): boolean {
  return Number.isFinite(unixMs) && unixMs >= ERA_START_SECONDS * 1000 && unixMs <= now + FUTURE_TOLERANCE_MS;
}

/**
 * ISO 8601 for Unix ms; null when there is none or when it is not a printable time (`Date#toISOString` throws
 * RangeError past ±8.64e15 ms): a router-made time must never end a /health request or a log line.
 */
export function isoOrNull(unixMs: number | undefined): string | null {
  if (unixMs === undefined || !Number.isFinite(unixMs) || Math.abs(unixMs) > 8.64e15) return null;
  return new Date(unixMs).toISOString();
}

/** A peer as people name it: its name (or comment), else the start of its public key. */
export function peerDisplayName(name: string, publicKey: string): string {
  return name !== '' ? name : keyStart(publicKey);
}

/** "1 stale peer", "2 stale peers". */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
