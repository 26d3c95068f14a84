import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigValueError, cronIntervalSeconds, formatDuration, parseDuration, parseShard } from '../../src/config/index.js';
import { getTasks } from 'node-cron';

describe('parseDuration', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['0s', 0],
    ['500ms', 0.5],
    ['1ms', 0.001],
    ['15s', 15],
    ['5m', 300],
    ['1h', 3_600],
    ['1h30m', 5_400],
    ['1d', 86_400],
    ['1w', 604_800],
    ['1y', 31_536_000],
    ['1y2w3d4h5m6s7ms', 31_536_000 + 2 * 604_800 + 3 * 86_400 + 4 * 3_600 + 5 * 60 + 6.007],
    ['90s', 90],
    ['1s500ms', 1.5],
  ])('%s → %d s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '10', '1.5s', '-5s', '5 s', ' 5s', '5S', '5sec', '1m1h', '5s5s', '1us', 'PT5S', 's', '1e3s', '${X}'])(
    'rejects %j',
    (text) => {
      expect(() => parseDuration(text)).toThrow(ConfigValueError);
      expect(() => parseDuration(text)).toThrow(`${JSON.stringify(text)} is not a duration`);
    },
  );

  it('has a stable error code for callers', () => {
    try {
      parseDuration('soon');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ name: 'ConfigValueError', code: 'CONFIG_VALUE_INVALID' });
    }
  });
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [0, '0s'],
    [0.01, '10ms'],
    [0.5, '500ms'],
    [45, '45s'],
    [60, '60s'],
    [119, '119s'],
    [300, '5m'],
    [5_400, '1h30m'],
    [86_400, '1d'],
    [604_800, '1w'],
  ])('%d → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it('reads back through parseDuration', () => {
    for (const seconds of [0.25, 7, 300, 5_400, 90_061, 31_536_000]) {
      expect(parseDuration(formatDuration(seconds))).toBe(seconds);
    }
  });
});

describe('parseShard', () => {
  it.each<[string, number, number]>([
    ['0/1', 0, 1],
    ['0/4', 0, 4],
    ['3/4', 3, 4],
    ['2/4', 2, 4],
  ])('%s → index %d of %d', (text, index, count) => {
    expect(parseShard(text)).toEqual({ index, count });
  });

  it.each<[string, string]>([
    ['4/4', 'index 4 must be 0 to 3 (0-based, below count 4)'],
    ['1/1', 'index 1 must be 0 to 0'],
    ['0/0', 'count must be a whole number from 1 to 1000000'],
    // One bound with the config file's shard: (found by a hostile tester: the flag took these, or said "at least 1").
    ['0/1000001', 'count must be a whole number from 1 to 1000000'],
    ['5/99999999999999999999', 'count must be a whole number from 1 to 1000000'],
    ['2', 'is not a shard'],
    ['-1/4', 'is not a shard'],
    ['1.5/4', 'is not a shard'],
    ['a/b', 'is not a shard'],
    ['1 / 4', 'is not a shard'],
    ['', 'is not a shard'],
  ])('rejects %j', (text, message) => {
    expect(() => parseShard(text)).toThrow(ConfigValueError);
    expect(() => parseShard(text)).toThrow(message);
  });
});

describe('cronIntervalSeconds', () => {
  it.each<[string, number]>([
    ['*/15 * * * * *', 15],
    ['*/30 * * * * *', 30],
    ['* * * * * *', 1],
    ['* * * * *', 60],
    ['*/5 * * * *', 300],
    ['0 */5 * * * *', 300],
    ['0 0 3 * * *', 86_400],
    ['0 3 * * *', 86_400],
    ['0 9 * * 1-5', 86_400],
    ['0 0 * * 1', 604_800],
    // Uneven steps: the wrap from :56 to the next minute's :00 is the shortest gap.
    ['*/7 * * * * *', 4],
    ['5,10 * * * * *', 5],
    // 23:59:59 → 00:00:00 the next day.
    ['0,59 0,59 0,23 * * *', 1],
    // 28 days in February.
    ['0 0 0 1 * *', 28 * 86_400],
    ['0 0 0 L * *', 28 * 86_400],
    // 29 February only: four years apart.
    ['0 0 0 29 2 *', (4 * 365 + 1) * 86_400],
  ])('%s → %d s', (expression, seconds) => {
    expect(cronIntervalSeconds(expression)).toBe(seconds);
  });

  it('is the shortest gap between the times of day a daily list names, whatever its order and repeats (generator; a repeat read as 0 s)', () => {
    const values = (most: number) => fc.array(fc.integer({ min: 0, max: most }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(values(59), values(59), values(23), (seconds, minutes, hours) => {
        const times = new Set<number>();
        for (const h of hours) for (const m of minutes) for (const s of seconds) times.add(h * 3600 + m * 60 + s);
        const sorted = [...times].sort((a, b) => a - b);
        let shortest = (sorted[0] as number) + 86_400 - (sorted.at(-1) as number);
        for (let i = 1; i < sorted.length; i++) shortest = Math.min(shortest, (sorted[i] as number) - (sorted[i - 1] as number));
        expect(cronIntervalSeconds(`${seconds.join(',')} ${minutes.join(',')} ${hours.join(',')} * * *`)).toBe(shortest);
      }),
      { numRuns: 300 },
    );
    expect(cronIntervalSeconds('0 0 3,3 * * *')).toBe(86_400);
    expect(cronIntervalSeconds('*/30,0 * * * * *')).toBe(30);
  });

  it.each(['', 'every minute', '* * * *', '61 * * * * *', '* * * * * * *', '0 0 30 2 *'])('rejects %j', (expression) => {
    expect(() => cronIntervalSeconds(expression)).toThrow(ConfigValueError);
    expect(() => cronIntervalSeconds(expression)).toThrow('is not a valid cron expression');
  });

  it('leaves no task behind in node-cron', () => {
    const before = getTasks().size;
    cronIntervalSeconds('0 0 12 * * 3');
    expect(getTasks().size).toBe(before);
  });
});
