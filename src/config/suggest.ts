/**
 * Edit distance (insertions, deletions, substitutions and adjacent swaps) for "did you mean", with three rows of
 * the table rather than all of them: a key of a million characters kept a million rows (855 MB, 3.7 s).
 */
function distance(a: string, b: string): number {
  let beforeLast: number[] = [];
  let last: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((last[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (last[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (beforeLast[j - 2] ?? 0) + 1);
      row.push(best);
    }
    beforeLast = last;
    last = row;
  }
  return last[b.length] ?? Math.max(a.length, b.length);
}

/**
 * Words longer than this get no suggestion: no key the config knows is near as long, and the distance to each
 * known key would be worked out in full for nothing.
 */
const LONGEST_SUGGESTED = 64;

/** The closest known word to a misspelt one, if it is close enough to be a plausible typo. */
export function suggest(word: string, known: readonly string[]): string | undefined {
  if (word.length > LONGEST_SUGGESTED) return undefined;
  const normalised = word.toLowerCase().replaceAll('-', '_');
  // A third of the word, at least one edit: "pasword" → "password", but "foo" suggests nothing.
  const within = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    // The distance is at least the difference in length: a candidate that far off cannot be the one.
    if (Math.abs(candidate.length - normalised.length) > within) continue;
    const d = distance(normalised, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= within ? best : undefined;
}
