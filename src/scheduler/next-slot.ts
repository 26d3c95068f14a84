/**
 * A cron schedule's next slot: node-cron's answer, corrected where the local time's UTC offset changes.
 *
 * node-cron walks local times and maps each to one instant. Where the clock goes back (summer time ending) a
 * local time names two instants and it keeps one, which skipped slots: west of UTC (America/New_York) an
 * every-minute schedule skipped the whole repeated hour, east of it (Europe/Berlin) the rest of the first pass,
 * at Lord Howe's half-hour change an every-15-minutes schedule two slots, and at Antarctica/Casey's three-hour
 * one a daily schedule its day. Its answer is always a true slot, only sometimes not the first; the slots it can
 * pass over lie within one change's width of the change, and those are matched here, a minute at a time (a
 * minute whose first allowed second does not match has no slot: offsets are whole minutes), on each call that
 * finds a change near: about 120 matches for an hour's change, 2,900 for a day's.
 *
 * Which instants run: a schedule whose minute or hour field is a wildcard (`*`, `*\/15`, `@hourly`) runs in
 * absolute time, on both passes through a repeated hour, as cron (cronie) runs it; one pinned to a time of day
 * runs once, on the first pass, as cron does for changes under three hours (and here for any). A time of day the
 * clock jumps over does not run that day, where cron runs it right after the jump.
 */
import { parse } from 'node-cron';
import { withoutNickname } from '../config/cron.js';

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

/** What the search needs of an expression besides its matcher. */
export interface SlotRules {
  /** Pinned to a time of day (pinnedToTimeOfDay). */
  readonly pinned: boolean;
  /** The seconds its seconds field allows, in order (0 for a five-field expression). */
  readonly seconds: readonly number[];
}

/**
 * Pinned to a time of day, as cron reads it: neither the minute nor the hour field starts with `*` (a nickname
 * read as its fields). Such a schedule is meant once per time of day, so a time the clock repeats is not run again.
 */
function pinnedToTimeOfDay(expression: string): boolean {
  const fields = withoutNickname(expression).trim().split(/\s+/);
  const [minute = '*', hour = '*'] = fields.length >= 6 ? fields.slice(1, 3) : fields.slice(0, 2);
  return !minute.startsWith('*') && !hour.startsWith('*');
}

export function slotRules(expression: string): SlotRules {
  let seconds: number[] = [0];
  try {
    seconds = [...parse(withoutNickname(expression)).second].sort((a, b) => a - b);
  } catch {
    // The loader refuses what node-cron cannot read; a matcher of such an expression finds no slot either.
  }
  return { pinned: pinnedToTimeOfDay(expression), seconds: seconds.length > 0 ? seconds : [0] };
}

/**
 * How far from `now` a change is looked for: the largest change of any zone's clock, a day (Pacific/Apia and
 * Pacific/Fakaofo, 2011), and two more hours. Within it, one change is assumed (zones change a few times a year).
 */
const CHANGE_SEARCH_MS = 26 * 3_600_000;

interface OffsetChange {
  /** The first instant on the new offset, to the second. */
  readonly at: number;
  /** How far the local clock goes back there (negative: ahead), in ms. */
  readonly back: number;
}

function utcOffsetMs(at: number): number {
  return -new Date(at).getTimezoneOffset() * 60_000;
}

/** The change of the local UTC offset between two instants, if the two differ (a bisection, ~40 readings). */
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

/** The longest stretch of node-cron's clock read past `now` whose seconds are matched (cronNext). */
const PASSED_OVER_MAX_MS = 60_000;

/**
 * node-cron's next slot after `now`'s second, or none when its matcher finds none and throws. node-cron reads the
 * clock itself, a moment after `now` was read: when that moment is in a later second (a timer woke a millisecond
 * before its slot, as libuv's whole-millisecond clock lets it, and the process was paused between the two reads),
 * its answer is the slot after, and the one waited for passed unrun and unlogged — a whole cycle of every router on
 * the schedule (seen under load in a test). The seconds its read passed over are matched here: none or one, as a rule.
 */
function cronNext(matcher: CronMatcher, now: number): number {
  let next: number;
  try {
    next = matcher.getNextRuns(1)[0]?.getTime() ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  // At most a minute of them: a read further on is a clock stepped or a host suspended between the two reads, whose
  // slots are missed either way (the watchdog re-arms on a step).
  const passed = Math.min(Date.now(), now + PASSED_OVER_MAX_MS);
  for (let t = Math.floor(now / 1000) * 1000 + 1000; t < next && t <= passed; t += 1000) {
    if (matcher.match(new Date(t))) return t;
  }
  return next;
}

/**
 * The first instant from `from` (a whole second) and before `to` that the expression matches and that runs, or
 * undefined. A minute at a time: when the minute's first allowed second, wholly inside the span, does not match,
 * neither does any other of that minute (the seconds field allows it, so the minute, hour or day does not).
 */
function firstMatch(matcher: CronMatcher, rules: SlotRules, from: number, to: number, skipped: (t: number) => boolean): number | undefined {
  const [firstSecond = 0] = rules.seconds;
  for (let minute = Math.floor(from / 60_000) * 60_000; minute < to; minute += 60_000) {
    if (minute >= from && minute + firstSecond * 1000 < to && !matcher.match(new Date(minute + firstSecond * 1000))) continue;
    for (const second of rules.seconds) {
      const t = minute + second * 1000;
      if (t < from || t >= to) continue;
      if (!skipped(t) && matcher.match(new Date(t))) return t;
    }
  }
  return undefined;
}

/**
 * The first slot after `now` (node-cron reads the same clock), or none. `horizonMs` is the longest the caller
 * waits before asking again: a change further ahead than that is looked at on a later call.
 */
export function nextSlot(matcher: CronMatcher, rules: SlotRules, now: number, horizonMs: number): Slot | undefined {
  const change = offsetChange(now - CHANGE_SEARCH_MS, now + horizonMs + CHANGE_SEARCH_MS);
  if (change === undefined) return slotOf(cronNext(matcher, now), true);
  const width = Math.abs(change.back);
  const spanStart = change.at - width;
  const spanEnd = change.at + width;
  const repeated = (t: number): boolean => change.back > 0 && t >= change.at && t < change.at + change.back;
  const first = Math.floor(now / 1000) * 1000 + 1000;
  // Before the change's span node-cron is right. Inside it, it is not asked first: from a repeated hour's second
  // pass it walks every local time back to the first pass, seconds of them per call on a per-second schedule.
  let next = first < spanStart ? cronNext(matcher, now) : undefined;
  if (next !== undefined && next < spanStart) return { at: next, runs: true };
  const found = firstMatch(matcher, rules, Math.max(first, spanStart), Math.min(spanEnd, next ?? Number.POSITIVE_INFINITY), (t) => rules.pinned && repeated(t));
  if (found !== undefined) return { at: found, runs: true };
  next ??= cronNext(matcher, now);
  return slotOf(next, !(rules.pinned && repeated(next)));
}

function slotOf(at: number, runs: boolean): Slot | undefined {
  return Number.isFinite(at) ? { at, runs } : undefined;
}
