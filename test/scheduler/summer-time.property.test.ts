/**
 * Schedules across every UTC offset change of a year in zones east and west of UTC: half-hour, hour, two-hour and
 * three-hour changes, northern and southern summers, midnight repeated. node-cron maps a local time to one
 * instant, and where the clock goes back a local time names two: west of UTC (America/New_York) an every-minute
 * schedule skipped the whole repeated hour, at Lord Howe's half-hour change an every-15-minutes schedule skipped
 * two slots, and at Antarctica/Casey's three-hour change a daily schedule its day.
 *
 * What is expected is reckoned here from Intl's reading of each instant in the zone, not from the scheduler:
 * - a schedule whose minute or hour field is a wildcard (`*`, `*\/15`) runs in absolute time as if no offset
 *   changed: every slot its fields allow, on both passes through a repeated hour;
 * - a schedule pinned to a time of day (minute and hour fields without `*`, as cron reads them) runs once a day,
 *   and when its time repeats, on the first pass; a time the clock jumps over does not run that day.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cronTrigger } from '../../src/scheduler/trigger.js';

const TIMERS_AND_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] };

/** Zones and the year whose changes are crossed (Casey's last two-change year was 2022). */
const ZONES: readonly (readonly [string, number])[] = [
  ['America/New_York', 2026],
  ['America/St_Johns', 2026],
  ['America/Havana', 2026],
  ['Europe/Berlin', 2026],
  ['Europe/London', 2026],
  ['Australia/Sydney', 2026],
  ['Australia/Lord_Howe', 2026],
  ['Pacific/Chatham', 2026],
  ['America/Santiago', 2026],
  ['Antarctica/Troll', 2026],
  ['Antarctica/Casey', 2022],
];

const HOUR = 3_600_000;
const zoneBefore = process.env['TZ'];

afterEach(() => {
  vi.useRealTimers();
  if (zoneBefore === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zoneBefore;
});

/** A zone's UTC offset at an instant, in minutes east of UTC, as Intl reads it (not the process's own zone). */
function offsetMinutes(zone: string, at: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match === null ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** Every instant of the year at which the zone's offset changes, to the minute, with the change in minutes. */
function changes(zone: string, year: number): { at: number; minutes: number }[] {
  const found: { at: number; minutes: number }[] = [];
  for (let day = Date.UTC(year, 0, 1); day < Date.UTC(year + 1, 0, 1); day += 24 * HOUR) {
    if (offsetMinutes(zone, day) === offsetMinutes(zone, day + 24 * HOUR)) continue;
    let lo = day;
    let hi = day + 24 * HOUR;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetMinutes(zone, mid) === offsetMinutes(zone, day)) lo = mid;
      else hi = mid;
    }
    found.push({ at: hi, minutes: offsetMinutes(zone, hi) - offsetMinutes(zone, lo) });
  }
  return found;
}

/** Hour, minute and second of an instant in the zone. */
function localTime(zone: string, at: number): [number, number, number] {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }).formatToParts(at);
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return [part('hour'), part('minute'), part('second')];
}

/** The instants of a cron schedule's ticks from `from` to `to`, on faked timers and clocks in the zone. */
async function ticks(zone: string, expression: string, from: number, to: number): Promise<number[]> {
  process.env['TZ'] = zone;
  vi.useFakeTimers(TIMERS_AND_CLOCKS);
  vi.setSystemTime(from);
  const at: number[] = [];
  const trigger = cronTrigger(expression, () => at.push(Date.now()), 'summer time');
  try {
    await vi.advanceTimersByTimeAsync(to - from);
  } finally {
    trigger.stop();
  }
  return at;
}

const CASES = ZONES.flatMap(([zone, year]) => changes(zone, year).map((change) => ({ zone, ...change, label: `${zone} ${new Date(change.at).toISOString()} (${change.minutes > 0 ? '+' : ''}${change.minutes} min)` })));

describe('the zones under test', () => {
  it('change their offset twice in their year, each by half an hour to three hours, back and ahead', () => {
    for (const [zone] of ZONES) expect(CASES.filter((c) => c.zone === zone), zone).toHaveLength(2);
    expect(new Set(CASES.map((c) => Math.abs(c.minutes)))).toEqual(new Set([30, 60, 120, 180]));
    expect(CASES.some((c) => c.minutes < 0) && CASES.some((c) => c.minutes > 0)).toBe(true);
  });
});

describe.each(CASES)('$label', ({ zone, at: change, minutes }) => {
  // The change's span, both passes of a repeated time, and a quarter of an hour each side.
  const from = change - (Math.abs(minutes) + 15) * 60_000;
  const to = change + (Math.abs(minutes) + 15) * 60_000;

  it.each([
    ['*/10 * * * * *', 10_000],
    ['0 * * * * *', 60_000],
    ['0 */15 * * * *', 15 * 60_000],
  ])('%s ticks at every slot in absolute time, none skipped, none twice', async (expression, period) => {
    const expected: number[] = [];
    // After the start (a schedule begins with its next slot) up to the end, which the faked timers reach.
    for (let t = Math.floor(from / period) * period + period; t <= to; t += period) expected.push(t);
    expect(await ticks(zone, expression, from, to)).toEqual(expected);
  });

  if (minutes < 0) {
    it('a schedule pinned inside the repeated time runs once, on the first pass', async () => {
      // Half way through the repeated span, on its first pass.
      const first = change + (minutes * 60_000) / 2;
      const [hour, minute, second] = localTime(zone, first);
      const second_ = first - minutes * 60_000;
      expect(localTime(zone, second_)).toEqual([hour, minute, second]);
      expect(await ticks(zone, `${second} ${minute} ${hour} * * *`, from, to)).toEqual([first]);
    });
  }

  if (minutes > 0) {
    it('a schedule pinned inside the skipped time does not run that day (the loader refuses one that never runs)', async () => {
      // The time of day half way through the span the clock jumps over: read half a span before the change, plus a span.
      const [hour, minute, second] = localTime(zone, change - (minutes * 60_000) / 2);
      const skipped = (hour * 3600 + minute * 60 + second + minutes * 60) % 86_400;
      const expression = `${skipped % 60} ${Math.floor(skipped / 60) % 60} ${Math.floor(skipped / 3600)} * * *`;
      expect(await ticks(zone, expression, change - 12 * HOUR, change + 12 * HOUR)).toEqual([]);
    });
  }

  it('a schedule pinned after the change runs once, at its time', async () => {
    const at = change + (Math.abs(minutes) + 10) * 60_000;
    const [hour, minute, second] = localTime(zone, at);
    expect(await ticks(zone, `${second} ${minute} ${hour} * * *`, from, to)).toEqual([at]);
  });
});

describe('nicknames', () => {
  it('@daily where midnight repeats (America/Havana, 2026-11-01) runs once, at the first midnight (it ran at both)', async () => {
    const change = Date.UTC(2026, 10, 1, 5, 0, 0);
    expect(localTime('America/Havana', change - HOUR)).toEqual([0, 0, 0]);
    expect(localTime('America/Havana', change)).toEqual([0, 0, 0]);
    expect(await ticks('America/Havana', '@daily', change - 3 * HOUR, change + 3 * HOUR)).toEqual([change - HOUR]);
    // @hourly is a wildcard hour: every hour in absolute time, both passes.
    expect(await ticks('America/Havana', '@hourly', change - 3 * HOUR, change + 3 * HOUR)).toEqual([-2, -1, 0, 1, 2, 3].map((h) => change + h * HOUR));
  });
});

describe('a TZ that names no zone', () => {
  it.each(['', ':'])('TZ=%j: schedules tick, and stop (every schedule found no slot, and stopping threw)', async (zone) => {
    process.env['TZ'] = zone;
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe('Etc/Unknown');
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    vi.setSystemTime(Date.UTC(2026, 10, 25, 12, 0, 0));
    let count = 0;
    const trigger = cronTrigger('*/10 * * * * *', () => count++, 'no zone');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(() => trigger.stop()).not.toThrow();
    expect(count).toBe(6);
  });
});

describe('the cost of a change near', () => {
  it('matches a minute at a time: ~120 matches for an hour\'s change from a sparse schedule, a second at a time 7,200', async () => {
    const { nextSlot, slotRules } = await import('../../src/scheduler/next-slot.js');
    const { createTask } = await import('node-cron');
    process.env['TZ'] = 'America/New_York';
    const change = Date.UTC(2026, 10, 1, 6, 0, 0);
    const expression = '0 0 */2 1 1 *';
    const task = createTask(expression, () => undefined, { timezone: 'America/New_York' });
    let matches = 0;
    // node-cron's own answer is a year away: the whole span is searched.
    const matcher = { match: (date: Date) => (matches++, task.match(date)), getNextRuns: () => [new Date(Date.UTC(2027, 0, 1, 5))] };
    // Asked at the present, as the schedules ask: node-cron's answer is then checked for no second passed over.
    vi.useFakeTimers({ now: change - HOUR, toFake: ['Date'] });
    try {
      expect(nextSlot(matcher, slotRules(expression), change - HOUR, HOUR)).toEqual({ at: Date.UTC(2027, 0, 1, 5), runs: true });
    } finally {
      vi.useRealTimers();
      void task.destroy();
    }
    expect(matches).toBeGreaterThan(60);
    expect(matches).toBeLessThanOrEqual(121);
  });
});
