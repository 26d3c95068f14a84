/** Human wording shared by /health reasons, `check` and the verdict log. */

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

export function isoOrNull(unixMs: number | undefined): string | null {
  return unixMs === undefined ? null : new Date(unixMs).toISOString();
}

/** A peer as people name it: its name (or comment), else the start of its public key. */
export function peerDisplayName(name: string, publicKey: string): string {
  return name !== '' ? name : `${publicKey.slice(0, 8)}…`;
}

/** "1 stale peer", "2 stale peers". */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
