/** RouterOS version numbers, for gating keys and formats by release (real-formats §1.2, §3.2). */

export interface RosVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** As given, without channel, e.g. `7.19.4`. */
  readonly text: string;
  /** A pre-release's rank below its release: beta4 is [0, 4], rc2 [1, 2]; undefined for a release. */
  readonly pre?: readonly [stage: number, number: number];
}

const VERSION = /^(\d+)\.(\d+)(?:\.(\d+))?(?:(beta|rc)(\d+))?$/;

export function parseVersion(text: string): RosVersion {
  const m = VERSION.exec(text.trim());
  if (!m) throw new Error(`not a RouterOS version: ${text}`);
  const pre = m[4] === undefined ? undefined : ([m[4] === 'beta' ? 0 : 1, Number(m[5])] as const);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), text: text.trim(), ...(pre === undefined ? {} : { pre }) };
}

/**
 * Release order, pre-releases included: 7.24beta1 < 7.24rc2 < 7.24. For what an update check says; gating keys
 * by version (atLeast) leaves pre-releases aside, as a feature of 7.24 is in its release candidates too.
 */
export function compareReleases(a: RosVersion, b: RosVersion): number {
  const base = compareVersions(a, b);
  if (base !== 0) return base;
  const rank = (v: RosVersion): readonly [number, number] => v.pre ?? [2, 0];
  const [aStage, aNumber] = rank(a);
  const [bStage, bNumber] = rank(b);
  return aStage - bStage || aNumber - bNumber;
}

/** Negative, zero or positive like a sort comparator; pre-releases are not distinguished. */
export function compareVersions(a: RosVersion, b: RosVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

const parsed = new Map<string, RosVersion>();

export function atLeast(v: RosVersion, min: string): boolean {
  let m = parsed.get(min);
  if (m === undefined) {
    m = parseVersion(min);
    parsed.set(min, m);
  }
  return compareVersions(v, m) >= 0;
}

/** True when `v` lies in [since, until): the window in which a key exists. */
export function inWindow(v: RosVersion, since?: string, until?: string): boolean {
  return (since === undefined || atLeast(v, since)) && (until === undefined || !atLeast(v, until));
}
