/**
 * RouterOS time values. Output is always the compact notation real routers send
 * (`1w2d3h4m5s`, `12ms345us`, `0s`); input also accepts the forms RouterOS takes from users
 * (bare seconds, `00:00:25`, `1d 00:00:00`, `0.5`).
 */

const US_PER: readonly [string, number][] = [
  ['w', 604_800_000_000],
  ['d', 86_400_000_000],
  ['h', 3_600_000_000],
  ['m', 60_000_000],
  ['s', 1_000_000],
  ['ms', 1_000],
  ['us', 1],
];

/** Microseconds → RouterOS duration; zero parts are omitted and zero itself is `0s`. */
export function formatMicros(totalUs: number): string {
  let rest = Math.max(0, Math.floor(totalUs));
  if (rest === 0) return '0s';
  let out = '';
  for (const [suffix, size] of US_PER) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${suffix}`;
      rest -= n * size;
    }
  }
  return out;
}

/** Whole seconds → RouterOS duration (what `uptime` and `last-handshake` look like). */
export function formatSeconds(seconds: number): string {
  return formatMicros(Math.floor(seconds) * 1_000_000);
}

const UNIT_WORD = /(\d+)(ms|us|ns|w|d|h|m|s)/gy;
const CLOCK = /^(?:(\d+)d\s*)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const BARE = /^\d+(?:\.\d+)?$/;

/** A RouterOS time input → microseconds, or undefined when it is not one. */
export function parseDurationMicros(text: string): number | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  if (BARE.test(s)) return Math.round(Number(s) * 1_000_000);
  const clock = CLOCK.exec(s);
  if (clock) {
    const [, d, h, m, sec, frac] = clock;
    const whole = Number(d ?? 0) * 86_400 + Number(h) * 3_600 + Number(m) * 60 + Number(sec);
    const fraction = frac === undefined ? 0 : Number(`0.${frac}`);
    return Math.round((whole + fraction) * 1_000_000);
  }
  UNIT_WORD.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = UNIT_WORD.exec(s); match; match = UNIT_WORD.exec(s)) {
    const [word, n, suffix] = match;
    const size = suffix === 'ns' ? 0.001 : US_PER.find(([u]) => u === suffix)?.[1];
    if (size === undefined) return undefined;
    total += Number(n) * size;
    consumed += word.length;
  }
  return consumed === s.length && consumed > 0 ? Math.round(total) : undefined;
}
