/**
 * RouterOS version numbers as system/package/update shows them (`7.23.7`, `7.16`, `7.16rc2`, `7.17beta4`),
 * ordered as MikroTik releases them: a pre-release comes before its release (7.16rc2 < 7.16 < 7.16.1).
 */

/** major, minor, patch, pre-release rank (alpha 0, beta 1, rc 2, release 3), pre-release number. */
export type RouterOsVersion = readonly [number, number, number, number, number];

const PRE_RELEASE_RANK: Readonly<Record<string, number>> = { alpha: 0, beta: 1, rc: 2 };
const RELEASE = 3;

export function parseRouterOsVersion(text: string): RouterOsVersion | undefined {
  const match = /^(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?(?:(alpha|beta|rc)(\d{1,4}))?$/.exec(text.trim());
  if (match === null) return undefined;
  const [, major, minor, patch, pre, preNumber] = match;
  return [Number(major), Number(minor), Number(patch ?? 0), pre === undefined ? RELEASE : (PRE_RELEASE_RANK[pre] ?? 0), Number(preNumber ?? 0)];
}

/** Negative, zero or positive as `a` is older than, the same as, or newer than `b`. */
export function compareRouterOsVersions(a: RouterOsVersion, b: RouterOsVersion): number {
  for (let i = 0; i < a.length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
