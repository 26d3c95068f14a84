/** RouterOS version numbers, for gating keys and formats by release (real-formats §1.2, §3.2). */

export interface RosVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** As given, without channel, e.g. `7.19.4`. */
  readonly text: string;
}

const VERSION = /^(\d+)\.(\d+)(?:\.(\d+))?((?:beta|rc)\d+)?$/;

export function parseVersion(text: string): RosVersion {
  const m = VERSION.exec(text.trim());
  if (!m) throw new Error(`not a RouterOS version: ${text}`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), text: text.trim() };
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
