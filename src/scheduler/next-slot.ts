/**
 * A cron schedule's next slot: node-cron's answer, corrected where the local time's UTC offset changes.
 *
 * node-cron walks local times and maps each to one instant. Where the clock goes back (summer time ending) a
 * local time names two instants and it keeps one, which skipped slots: west of UTC (America/New_York) an
 * every-minute schedule skipped the whole repeated hour, east of it (Europe/Berlin) the rest of the first pass,
 * and at Lord Howe's half-hour change an every-15-minutes schedule two slots. Its answer is always a true slot,
 * only sometimes not the first; the slots it can pass over all lie within one change's width of the change, so
 * those seconds are matched one by one (at most 4 hours' worth, around a change, a few times a year).
 *
 * Which instants run follows cron (cronie): a schedule whose minute or hour field is a wildcard (`*`, `*\/15`)
 * runs in absolute time, on both passes through a repeated hour; one pinned to a time of day runs once, on the
 * first pass. A time of day the clock skips when it goes ahead does not run that day.
 */

/** What is used of node-cron's task: its matcher, never its timer. */
export interface CronMatcher {
  match(date: Date): boolean;
  getNextRuns(count: number): Date[];
}

/** A slot, and whether it runs: a pinned schedule's slot on a repeated hour's second pass is only woken for. */
export interface Slot {
  readonly at: number;
  readonly runs: boolean;
}

/** The largest UTC offset change of any zone (Antarctica/Troll goes between +00 and +02). */
const LARGEST_CHANGE_MS = 2 * 3_600_000;

/**
 * Pinned to a time of day, as cron reads it: neither the minute nor the hour field starts with `*`. Such a
 * schedule is meant once per time of day, so a time the clock repeats is not run again.
 */
export function pinnedToTimeOfDay(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  const [minute = '*', hour = '*'] = fields.length >= 6 ? fields.slice(1, 3) : fields.slice(0, 2);
  return !minute.startsWith('*') && !hour.startsWith('*');
}

interface OffsetChange {
  /** The first instant on the new offset, to the second. */
  readonly at: number;
  /** How far the local clock goes back there (negative: ahead), in ms. */
  readonly back: number;
}

function utcOffsetMs(at: number): number {
  return -new Date(at).getTimezoneOffset() * 60_000;
}

/** The change of the local UTC offset between two instants, if there is one (zones change a few times a year). */
function offsetChange(from: number, to: number): OffsetChange | undefined {
  const before = utcOffsetMs(from);
  if (before === utcOffsetMs(to)) return undefined;
  let lo = Math.floor(from / 1000);
  let hi = Math.ceil(to / 1000);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (utcOffsetMs(mid * 1000) === before) lo = mid;
    else hi = mid;
  }
  const at = hi * 1000;
  return { at, back: before - utcOffsetMs(at) };
}

/** node-cron's next slot after the present, or none when its matcher finds none and throws. */
function cronNext(matcher: CronMatcher): number {
  try {
    return matcher.getNextRuns(1)[0]?.getTime() ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * The first slot after `now` (node-cron reads the same clock), or none. `horizonMs` is the longest the caller
 * waits before asking again: a change further ahead than that is looked at on a later call.
 */
export function nextSlot(matcher: CronMatcher, pinned: boolean, now: number, horizonMs: number): Slot | undefined {
  const change = offsetChange(now - LARGEST_CHANGE_MS, now + horizonMs + LARGEST_CHANGE_MS);
  if (change === undefined) return slotOf(cronNext(matcher), true);
  const width = Math.abs(change.back);
  const foldStart = change.at - width;
  const foldEnd = change.at + width;
  const repeated = (t: number): boolean => change.back > 0 && t >= change.at && t < change.at + change.back;
  const first = Math.floor(now / 1000) * 1000 + 1000;
  // Before the change's span node-cron is right. Inside it, it is not asked first: from a repeated hour's second
  // pass it walks every local time back to the first pass, seconds of them per call on a per-second schedule.
  let next = first < foldStart ? cronNext(matcher) : undefined;
  if (next !== undefined && next < foldStart) return { at: next, runs: true };
  for (let t = Math.max(first, foldStart); t < foldEnd && t < (next ?? Number.POSITIVE_INFINITY); t += 1000) {
    if ((!pinned || !repeated(t)) && matcher.match(new Date(t))) return { at: t, runs: true };
  }
  next ??= cronNext(matcher);
  return slotOf(next, !(pinned && repeated(next)));
}

function slotOf(at: number, runs: boolean): Slot | undefined {
  return Number.isFinite(at) ? { at, runs } : undefined;
}
