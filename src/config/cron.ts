import { createTask, validateDetailed } from 'node-cron';
import { ConfigValueError, quoteValue } from './value-error.js';

const FIELDS = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'weekday', min: 0, max: 7 },
] as const;

/**
 * A step larger than its field's range (`*\/61` seconds, `*\/25` hours) is accepted by node-cron and then
 * runs only at the field's start: once a minute, once a day. Nobody means that; refuse it.
 */
function stepProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/);
  const fields = parts.length === 5 ? FIELDS.slice(1) : parts.length === 6 ? FIELDS : [];
  for (const [i, field] of fields.entries()) {
    for (const item of (parts[i] ?? '').split(',')) {
      const step = /\/(\d+)$/.exec(item)?.[1];
      if (step === undefined) continue;
      const span = field.max - field.min;
      if (Number(step) > span) {
        return `the ${field.name} step /${step} is larger than the field's range ${field.min}-${field.max} (steps go from 1 to ${span})`;
      }
    }
  }
  return undefined;
}

/** Longer than any schedule anyone writes (a list of every minute is 170 characters): refused before parsing. */
export const MAX_CRON_LENGTH = 512;

/** The nicknames node-cron takes, each as the five fields it stands for (cron's meanings). */
const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * The expression with a nickname (`@daily`) written out as its fields, as node-cron reads it; any other as it is.
 * Read field by field without it, `@daily` was one field: the loader threw on it ("expected 5 or 6 fields but got
 * 3") and a schedule's time of day read as a wildcard (found by review).
 */
export function withoutNickname(expression: string): string {
  return NICKNAMES[expression.trim().toLowerCase()] ?? expression;
}

const MONTH_NAMES = [
  ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'],
  ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
];
const WEEKDAY_NAMES = [
  ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'],
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
];

/** node-cron's name conversion: full names, then short ones, each replaced everywhere (any case) by its number. */
function numberedNames(text: string, lists: readonly (readonly string[])[], first: number): string {
  let out = text;
  for (const names of lists) names.forEach((name, i) => (out = out.replace(new RegExp(name, 'gi'), String(i + first))));
  return out;
}

/**
 * Values outside their field's range, found before node-cron sees them: it expands a range value by value, so
 * `0-99999999` in the seconds held the loader (and a reload, the event loop) for 53 s before it ran out of
 * memory, and `0-9999999` for 11 s before it was refused.
 */
function boundsProblem(expression: string): string | undefined {
  if (expression.length > MAX_CRON_LENGTH) return `it is longer than ${MAX_CRON_LENGTH} characters`;
  const parts = expression.trim().split(/\s+/);
  const fields = parts.length === 5 ? FIELDS.slice(1) : parts.length === 6 ? FIELDS : [];
  for (const [i, field] of fields.entries()) {
    // Names read as node-cron reads them, every occurrence replaced by its number: `1-decdecdec` is the range
    // 1-121212 to it, which a check of the digits alone let through (20 s for `1-decdecdecdec`).
    const text = field.name === 'month' ? numberedNames(parts[i] ?? '', MONTH_NAMES, 1) : field.name === 'weekday' ? numberedNames(parts[i] ?? '', WEEKDAY_NAMES, 0) : (parts[i] ?? '');
    for (const item of text.split(',')) {
      // The values of a range or a single value; a step (after `/`) is checked on its own (stepProblem).
      const values = (item.split('/')[0] ?? '').match(/\d+/g) ?? [];
      for (const digits of values) {
        const number = Number(digits);
        if (number < field.min || number > field.max) {
          return `the ${field.name} value ${digits.length > 12 ? `${digits.slice(0, 12)}…` : digits} is outside the field's range ${field.min}-${field.max}`;
        }
      }
    }
  }
  return undefined;
}

/**
 * node-cron accepts a day no month it runs in has (`30W` or `L-30` in February, `31W` in April) and then finds
 * no next run: its matcher throws, and the scheduler could never arm the job. At start that left the daemon
 * half-started and unready for good, at a reload half the new schedules in force. Asked of node-cron in UTC
 * (~30 ms for one that never runs), then of the local clock by localTimesSkipped: node-cron's own search in
 * local time walks second by second and took 11–21 s for `* * 2 * 3 0L` in Europe/Berlin.
 */
function neverRunsProblem(expression: string, fields: CronFields): string | undefined {
  const task = createTask(expression, () => undefined, { timezone: 'UTC' });
  try {
    if (task.getNextRuns(1).length === 0) return 'it never runs';
  } catch {
    return 'it never runs: no month it allows has the day it names (such as 30W or L-30 in February)';
  } finally {
    // createTask registers the task globally; a destroyed task leaves the registry.
    void task.destroy();
  }
  if (localTimesSkipped(expression, fields)) {
    return `it never runs in this machine's time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}): every time it names falls in the hour the clock skips for summer time`;
  }
  return undefined;
}

interface CronFields {
  second: number[];
  minute: number[];
  hour: number[];
}

/**
 * Whether every time the expression names falls where the local clock skips (the hour summer time jumps over):
 * `0 30 2 * 3 0L` in Europe/Berlin. The days it runs on are matched at local noon, which every day has, over four
 * years and one; on each, the first of its times that exists ends the search. A day with a skipped hour costs at
 * most its hours × minutes (1,440) clock readings, and only such days ever cost more than one.
 */
function localTimesSkipped(expression: string, fields: CronFields): boolean {
  const parts = expression.trim().split(/\s+/);
  const days = parts.slice(parts.length === 6 ? 3 : 2).join(' ');
  const dayTask = createTask(`0 0 12 ${days}`, () => undefined);
  try {
    const today = new Date();
    const second = Math.min(...fields.second);
    let daysSeen = 0;
    for (let offset = 0; offset < DAYS_SCANNED + 366; offset++) {
      const noon = new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset, 12, 0, 0);
      if (!dayTask.match(noon)) continue;
      daysSeen++;
      for (const hour of fields.hour) {
        for (const minute of fields.minute) {
          const at = new Date(noon.getFullYear(), noon.getMonth(), noon.getDate(), hour, minute, second);
          // A time the clock skips comes out shifted past the gap.
          if (at.getHours() === hour && at.getMinutes() === minute) return false;
        }
      }
    }
    // Days it runs on came, and none had a time that exists. With none in the window (a leap day that is a Monday,
    // every 28 years), nothing is known against node-cron's own finding that it runs.
    return daysSeen > 0;
  } finally {
    void dayTask.destroy();
  }
}

/**
 * A result per expression, worked out once: a config names the same few schedules for every router (2,000 routers
 * × 5), and the scheduler asks again at every (re)load. Configs hold a handful of expressions; the bound only
 * guards against a caller feeding endless new ones.
 */
function remembered<T>(cache: Map<string, T>, expression: string, work: (expression: string) => T): T {
  if (cache.has(expression)) return cache.get(expression) as T;
  const result = work(expression);
  if (cache.size >= 1000) cache.clear();
  cache.set(expression, result);
  return result;
}

const judged = new Map<string, string | undefined>();

/** Why a node-cron expression is invalid, or undefined when node-cron accepts it (5 or 6 fields) and it runs. */
export function cronProblem(expression: string): string | undefined {
  return remembered(judged, expression, judge);
}

function judge(written: string): string | undefined {
  // Quoted as written; judged as its fields.
  const expression = withoutNickname(written);
  // A nickname node-cron does not know (`@reboot`, `@every 5m`) is named as such, not as "illegal characters".
  if (expression.trim().startsWith('@')) {
    return `${quoteValue(written)} is not a valid cron expression: it is no nickname node-cron knows (${Object.keys(NICKNAMES).join(', ')})`;
  }
  const bounds = boundsProblem(expression);
  if (bounds !== undefined) return `${quoteValue(written)} is not a valid cron expression: ${bounds}`;
  const result = validateDetailed(expression);
  const reasons = result.valid
    ? (stepProblem(expression) ?? (result.fields === undefined ? undefined : neverRunsProblem(expression, result.fields)))
    : result.errors.map((error) => error.message.replace(' a invalid ', ' an invalid ')).join('; ');
  return reasons === undefined ? undefined : `${quoteValue(written)} is not a valid cron expression: ${reasons}`;
}

/** Smallest difference between neighbours of a sorted list of run positions, else undefined. */
function smallestStep(values: readonly number[]): number | undefined {
  let best: number | undefined;
  for (let i = 1; i < values.length; i++) {
    const step = (values[i] ?? 0) - (values[i - 1] ?? 0);
    if (best === undefined || step < best) best = step;
  }
  return best;
}

/**
 * The shortest gap between runs of one field, in that field's units, given the shortest gap (in the
 * next larger field's units) between the larger units it runs in: within one larger unit the gaps are
 * the steps between allowed values; across two, it is the outer gap minus the spread of values.
 */
function fieldGap(values: readonly number[], size: number, outerGap: number): number {
  // Each value once: a list that names one twice (`0 0 3,3 * * *`) read as 0 s between runs (found by review).
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const spread = (sorted.at(-1) ?? 0) - (sorted[0] ?? 0);
  const across = outerGap * size - spread;
  const within = smallestStep(sorted);
  return within === undefined ? across : Math.min(within, across);
}

const DAY_MS = 86_400_000;
// Four years from a leap year: enough to see every month length, 29 February and each weekday.
const DAYS_SCANNED = 4 * 365 + 1;

/**
 * Shortest gap in days between two days the expression runs on. Day-of-month, month and weekday
 * interact (and node-cron adds L, W and #), so ask node-cron itself, day by day, in UTC to keep
 * daylight-saving shifts out of a nominal interval.
 */
function dayGap(expression: string, firstTime: { hour: number; minute: number; second: number }): number {
  const task = createTask(expression, () => undefined, { timezone: 'UTC' });
  try {
    const start = Date.UTC(2024, 0, 1, firstTime.hour, firstTime.minute, firstTime.second);
    let previous: number | undefined;
    let best = DAYS_SCANNED;
    for (let day = 0; day < DAYS_SCANNED + 366; day++) {
      if (!task.match(new Date(start + day * DAY_MS))) continue;
      if (previous !== undefined) best = Math.min(best, day - previous);
      if (best === 1) break;
      previous = day;
    }
    return best;
  } finally {
    // createTask registers the task globally; a destroyed task leaves the registry.
    void task.destroy();
  }
}

const computed = new Map<string, number>();

/**
 * The shortest time in seconds between two consecutive runs of a node-cron expression (5 fields, or 6
 * with seconds), used to check that timeouts fit inside schedules. Throws ConfigValueError when invalid.
 * A schedule that runs on fewer than two days in four years reports about four years.
 */
export function cronIntervalSeconds(expression: string): number {
  return remembered(computed, expression, computeInterval);
}

function computeInterval(written: string): number {
  const bounds = cronProblem(written);
  const expression = withoutNickname(written);
  if (bounds !== undefined) throw new ConfigValueError(bounds);
  const result = validateDetailed(expression);
  if (!result.valid || result.fields === undefined || stepProblem(expression) !== undefined) {
    throw new ConfigValueError(cronProblem(expression) ?? `${quoteValue(expression)} is not a valid cron expression`);
  }
  const { second, minute, hour } = result.fields;
  const first = { hour: Math.min(...hour), minute: Math.min(...minute), second: Math.min(...second) };
  const hours = fieldGap(hour, 24, dayGap(expression, first));
  const minutes = fieldGap(minute, 60, hours);
  return fieldGap(second, 60, minutes);
}
