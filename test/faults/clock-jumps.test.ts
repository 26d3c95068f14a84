/**
 * The wall clock may jump (NTP stepping it, an operator setting it): durations are measured on the monotonic
 * clock, so a jump neither stretches nor cuts them. Here the wall clock the exporter is given is set back an hour.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { JobRunner } from '../../src/scheduler/runner.js';
import { Semaphore } from '../../src/scheduler/semaphore.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import type { JobDefinition } from '../../src/collectors/types.js';
import { testRouter } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { routerLabel } from '../../src/metrics/family.js';
import { CLOCK_WATCH_MS } from '../../src/scheduler/trigger.js';

/** The schedulers' timers and both clocks, faked together: the wall clock can then be stepped apart from the rest. */
const TIMERS_AND_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] };

afterEach(() => {
  vi.useRealTimers();
});

/** A system job every second, running `run`. */
function systemJob(run: JobDefinition['run']): JobDefinition {
  return { collector: 'system', job: 'system', schedule: '* * * * * *', deadlineSeconds: 5, connection: 'reads', settings: null, run };
}

describe('a wall clock set back', () => {
  it('does not stretch a backoff: 30 s after an authentication failure the job runs again', async () => {
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    const router = testRouter({ name: 'hq' });
    const store = new SnapshotStore();
    store.plan(new Map([['hq', [{ collector: 'system' as const, job: 'system' }]]]));
    let wall = Date.UTC(2026, 10, 25, 12, 0, 0);
    let runs = 0;
    const definition = systemJob(() => {
      runs++;
      return Promise.reject(new RouterOsError('ROS_ERR_AUTH', 'GET /rest/system/resource: refused', { status: 401 }));
    });
    const job = new JobRunner({ router, definition, client: new FakeClient(), store, semaphore: new Semaphore(1), logger: pino({ level: 'silent' }), now: () => wall, routerLabel: routerLabel('hq') });
    expect(await job.trigger()).toBe('failed');
    expect(await job.trigger()).toBe('skipped');
    wall -= 3_600_000;
    await vi.advanceTimersByTimeAsync(31_000);
    wall += 31_000;
    expect(await job.trigger()).toBe('failed');
    expect(runs).toBe(2);
  });
});

describe('a wall clock set back, at a run', () => {
  it('gives the run the runner\'s monotonic clock (JobContext.elapsed): the wireguard counter window is measured on it, not on the wall clock', async () => {
    const router = testRouter({ name: 'hq' });
    const store = new SnapshotStore();
    store.plan(new Map([['hq', [{ collector: 'system' as const, job: 'system' }]]]));
    let wall = Date.UTC(2026, 10, 25, 12, 0, 0);
    let monotonic = 1_000;
    const seen: { wall: number; elapsed: number | undefined }[] = [];
    const definition = systemJob((context) => {
      seen.push({ wall: context.now(), elapsed: context.elapsed?.() });
      return Promise.resolve({ samples: new SampleSet(), data: undefined, problems: [], decodeErrors: 0 });
    });
    const job = new JobRunner({ router, definition, client: new FakeClient(), store, semaphore: new Semaphore(1), logger: pino({ level: 'silent' }), now: () => wall, elapsed: () => monotonic, routerLabel: routerLabel('hq') });
    expect(await job.trigger()).toBe('ok');
    wall -= 3_600_000 - 30_000;
    monotonic += 30_000;
    expect(await job.trigger()).toBe('ok');
    expect(seen.map((each) => each.elapsed)).toEqual([1_000, 31_000]);
    expect((seen[1]?.wall ?? 0) - (seen[0]?.wall ?? 0)).toBe(-3_570_000);
  });
});

describe('a wall clock set back, at the HTTP server', () => {
  it('does not silence the log of rejected credentials: a minute later on the monotonic clock, it logs again', async () => {
    const { BasicAuth } = await import('../../src/server/auth.js');
    const { captureLogs } = await import('../helpers/log-capture.js');
    const bcrypt = (await import('bcryptjs')).default;
    const logs = captureLogs();
    const auth = new BasicAuth(logs.logger);
    const users = new Map([['alice', bcrypt.hashSync('right', 4)]]);
    const attempt = async (): Promise<void> => {
      const req = { headers: { authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` }, socket: { remoteAddress: '192.0.2.9', once: () => undefined }, url: '/metrics' };
      const res = { setHeader: () => undefined, writeHead: () => res, end: () => undefined, headersSent: false, once: () => res, off: () => res };
      expect(await auth.admit(users, req as never, res as never)).toBe(false);
    };
    const rejections = (): number => logs.lines().filter((line) => String(line['msg']).startsWith('rejected HTTP requests')).length;
    try {
      vi.useFakeTimers({ toFake: ['Date', 'performance'] });
      await attempt();
      expect(rejections()).toBe(1);
      vi.advanceTimersByTime(61_000);
      vi.setSystemTime(Date.now() - 3_600_000);
      await attempt();
      expect(rejections()).toBe(2);
    } finally {
      vi.useRealTimers();
      await auth.close();
    }
  });
});

describe('a wall clock stepped, at the schedules', () => {
  it.each([
    ['set back an hour', -3_600_000],
    ['set forward an hour', 3_600_000],
  ])('%s: every-second schedules go on ticking within the watchdog period, and keep ticking', async (_what, step) => {
    const { cronTrigger, CLOCK_WATCH_MS, sharedTaskCount } = await import('../../src/scheduler/trigger.js');
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    vi.setSystemTime(Date.UTC(2026, 10, 25, 12, 0, 0));
    let ticks = 0;
    const trigger = cronTrigger('* * * * * *', () => ticks++, 'every second');
    try {
      await vi.advanceTimersByTimeAsync(5_000);
      expect(ticks).toBeGreaterThanOrEqual(4);
      // setSystemTime moves the wall clock only; the monotonic clock goes on.
      vi.setSystemTime(Date.now() + step);
      await vi.advanceTimersByTimeAsync(CLOCK_WATCH_MS + 1_000);
      const after = ticks;
      await vi.advanceTimersByTimeAsync(10_000);
      // Before: node-cron slept the hour away (0 ticks in these 10 s).
      expect(ticks - after).toBeGreaterThanOrEqual(9);
    } finally {
      trigger.stop();
      vi.useRealTimers();
    }
    expect(sharedTaskCount()).toBe(0);
  });
});

describe('a wall clock stepped far forward', () => {
  it.each([
    ['30 days, every second', '* * * * * *', 30 * 86_400_000],
    ['55 years (a board that boots in 1970, then NTP), every 15 s', '*/15 * * * * *', 55 * 365 * 86_400_000],
  ])('%s: the slots jumped over cost nothing, and the schedule goes on', async (_what, expression, step) => {
    const { cronTrigger } = await import('../../src/scheduler/trigger.js');
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    vi.setSystemTime(step > 365 * 86_400_000 ? Date.UTC(1970, 0, 1, 0, 0, 10) : Date.UTC(2026, 10, 25, 12, 0, 0));
    let ticks = 0;
    const trigger = cronTrigger(expression, () => ticks++, 'stepped');
    try {
      await vi.advanceTimersByTimeAsync(31_000);
      const before = ticks;
      expect(before).toBeGreaterThanOrEqual(2);
      vi.setSystemTime(Date.now() + step);
      // node-cron's runner walked every slot in between, one by one: 6.5 s of blocked event loop for a day of
      // seconds, and out of memory for decades. process.hrtime is not faked: it measures the real cost.
      const started = process.hrtime.bigint();
      await vi.advanceTimersByTimeAsync(61_000);
      const costMs = Number(process.hrtime.bigint() - started) / 1e6;
      expect(costMs).toBeLessThan(1_000);
      expect(ticks - before).toBeGreaterThanOrEqual(2);
    } finally {
      trigger.stop();
      vi.useRealTimers();
    }
  });
});

describe('summer time ending', () => {
  it('an every-10-seconds schedule goes on ticking through the repeated hour (it skipped the whole hour)', async () => {
    const { cronTrigger } = await import('../../src/scheduler/trigger.js');
    const zone = process.env['TZ'];
    process.env['TZ'] = 'Europe/Berlin';
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    // 02:58:30 CEST, the first pass through 02:xx on 2026-10-25; at 03:00 CEST the clocks go back to 02:00 CET.
    vi.setSystemTime(Date.UTC(2026, 9, 25, 0, 58, 30));
    let ticks = 0;
    const trigger = cronTrigger('*/10 * * * * *', () => ticks++, 'dst');
    try {
      await vi.advanceTimersByTimeAsync(120_000);
      expect(ticks).toBeGreaterThanOrEqual(11);
    } finally {
      trigger.stop();
      vi.useRealTimers();
      if (zone === undefined) delete process.env['TZ'];
      else process.env['TZ'] = zone;
    }
  });
});

describe('a tick that wakes late', () => {
  it('still runs up to the end of the second after its slot, as node-cron reckoned it', async () => {
    const { cronTrigger } = await import('../../src/scheduler/trigger.js');
    vi.useFakeTimers(TIMERS_AND_CLOCKS);
    vi.setSystemTime(Date.UTC(2026, 10, 25, 12, 0, 0, 100));
    let ticks = 0;
    const trigger = cronTrigger('*/10 * * * * *', () => ticks++, 'late');
    try {
      // The slot is 12:00:10, its timer due 1.9 s after 12:00:08.1. Moving the wall clock 1.2 s ahead of the
      // timers (less than the watchdog's next look) makes it fire at 12:00:11.2: 1.2 s late, as on a busy loop.
      await vi.advanceTimersByTimeAsync(8_000);
      vi.setSystemTime(Date.UTC(2026, 10, 25, 12, 0, 9, 300));
      await vi.advanceTimersByTimeAsync(1_900);
      expect(new Date().toISOString()).toBe('2026-11-25T12:00:11.200Z');
      expect(ticks).toBe(1);
    } finally {
      trigger.stop();
      vi.useRealTimers();
    }
  });
});

/** An every-second schedule on faked timers and clocks, its log lines collected. */
async function everySecondLogged(): Promise<{ trigger: { stop(): void }; lines: string[] }> {
  const { cronTrigger, setTriggerLogger } = await import('../../src/scheduler/trigger.js');
  const lines: string[] = [];
  setTriggerLogger(pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }));
  vi.useFakeTimers(TIMERS_AND_CLOCKS);
  vi.setSystemTime(Date.UTC(2026, 10, 25, 12, 0, 0));
  return { trigger: cronTrigger('* * * * * *', () => undefined, 'every second'), lines };
}

describe("node-cron's own messages", () => {
  it('go to the exporter\'s logger in its words, never to the console as coloured text', async () => {
    const consoleWarn = vi.spyOn(console, 'warn');
    const consoleInfo = vi.spyOn(console, 'info');
    const { trigger, lines } = await everySecondLogged();
    try {
      await vi.advanceTimersByTimeAsync(2_000);
      // A step forward makes node-cron miss the slots it jumped over.
      vi.setSystemTime(Date.now() + 3_600_000);
      await vi.advanceTimersByTimeAsync(2_000);
    } finally {
      trigger.stop();
      vi.useRealTimers();
      consoleWarn.mockRestore();
      consoleInfo.mockRestore();
    }
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(consoleInfo).not.toHaveBeenCalled();
    // Bounded: one line a minute per schedule, however many slots the step jumped over.
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ schedule: '* * * * * *', msg: expect.stringMatching(/^scheduled ticks were missed/) as unknown });
  });
});

describe('missed ticks in the log', () => {
  it('are told once their minute is over, without waiting for the next miss (a burst then silence was never told)', async () => {
    const { trigger, lines } = await everySecondLogged();
    try {
      await vi.advanceTimersByTimeAsync(2_000);
      vi.setSystemTime(Date.now() + 3_600_000);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(lines).toHaveLength(1);
      // A second step within the minute, between two of the clock watchdog's looks: counted, not said yet.
      await vi.advanceTimersByTimeAsync(12_000);
      vi.setSystemTime(Date.now() + 3_600_000);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(lines).toHaveLength(1);
      // Then nothing more is missed: the count is said when the minute ends.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[1] ?? '{}')).toMatchObject({ schedule: '* * * * * *', missed: expect.any(Number) as unknown });
      expect((JSON.parse(lines[1] ?? '{}') as { missed: number }).missed).toBeGreaterThan(0);
    } finally {
      trigger.stop();
      vi.useRealTimers();
    }
  });
});

/**
 * A cron trigger on `schedule` from wall time `start`, with `drive` moving the timers and the wall clock; what it ran
 * (wall times) and the missed-tick warnings it logged.
 */
async function driveTrigger(schedule: string, start: number, drive: () => Promise<void>): Promise<{ ticks: number[]; missed: unknown[] }> {
  const { cronTrigger, setTriggerLogger } = await import('../../src/scheduler/trigger.js');
  vi.useFakeTimers(TIMERS_AND_CLOCKS);
  vi.setSystemTime(start);
  const missed: unknown[] = [];
  setTriggerLogger({ warn: (fields: unknown) => missed.push(fields), error: () => undefined });
  const ticks: number[] = [];
  const trigger = cronTrigger(schedule, () => ticks.push(Date.now()), 'driven');
  try {
    await drive();
  } finally {
    trigger.stop();
    setTriggerLogger({ warn: () => undefined, error: () => undefined });
    vi.useRealTimers();
  }
  return { ticks, missed };
}

describe('a wall clock stepped forward past a slot, seen by the watchdog before the slot\'s timer fires', () => {
  it('the slot is judged as its timer would judge it: run when within the tolerance (it was passed over unrun and uncounted)', async () => {
    const slot = Date.UTC(2026, 10, 25, 12, 0, 30);
    // The watchdog looks at 5, 10, … s from the start; the slot's timer is due 30.3 s from it.
    const { ticks, missed } = await driveTrigger('*/30 * * * * *', slot - 30_300, async () => {
      // At 29 s (12:00:28.7) the wall clock is stepped 1.5 s, to 12:00:30.2: the watchdog's look at 30 s re-arms,
      // 1.2 s past the slot, before its timer (which would have run it, late within the tolerance) fires.
      await vi.advanceTimersByTimeAsync(29_000);
      vi.setSystemTime(Date.now() + 1_500);
      await vi.advanceTimersByTimeAsync(10_000);
    });
    expect(missed).toEqual([]);
    // Run at once, at the look: 1.2 s late.
    expect(ticks.map((t) => t - slot)).toEqual([-30_000, 1_200]);
  });

  it('a slot stepped over by more than the tolerance is counted missed, as a late timer counts it (it was not counted)', async () => {
    const slot = Date.UTC(2026, 10, 25, 12, 0, 30);
    const { ticks, missed } = await driveTrigger('*/30 * * * * *', slot - 30_300, async () => {
      // At 26 s (12:00:25.7) stepped 10 s, to 12:00:35.7: the look at 30 s re-arms; the slot's timer is due later.
      await vi.advanceTimersByTimeAsync(26_000);
      vi.setSystemTime(Date.now() + 10_000);
      await vi.advanceTimersByTimeAsync(70_000);
    });
    expect(missed).toEqual([{ schedule: '*/30 * * * * *', missed: 1 }]);
    // Then on time again: 12:01:00, 12:01:30.
    expect(ticks.map((t) => Math.floor(t / 1000) * 1000)).toEqual([slot - 30_000, slot + 30_000, slot + 60_000]);
  });
});

describe('a wall clock stepped forward by less than a second, more than once', () => {
  it('a slot the wall clock then reaches in order still runs: the steps add up, and the schedule follows them (it was missed)', async () => {
    const start = Date.UTC(2026, 10, 25, 12, 0, 0);
    const { ticks, missed } = await driveTrigger('*/30 * * * * *', start, async () => {
      // Three steps of 0.7 s, each below the watchdog's threshold and 6 s apart (each seen by a look of its own),
      // all well before the slot at 12:00:30: the timer armed at 12:00:00 would wake 2.1 s past the slot.
      for (let step = 0; step < 3; step++) {
        await vi.advanceTimersByTimeAsync(6_000);
        vi.setSystemTime(Date.now() + 700);
      }
      await vi.advanceTimersByTimeAsync(15_000);
    });
    expect(missed).toEqual([]);
    // Re-armed once the first two add up past the threshold; the third, after that, leaves it 0.7 s late.
    expect(ticks.map((t) => t - start)).toEqual([30_700]);
  });
});

describe('a process paused (or a wall clock stepped) over many slots', () => {
  it.each([
    ['10 minutes on a 15 s schedule', '*/15 * * * * *', 10 * 60_000, 40],
    ['an hour on a per-second schedule', '* * * * * *', 3_600_000, 3_600],
    ['a day on a 5-minute schedule', '0 */5 * * * *', 86_400_000, 288],
    ['three days on a 15 s schedule (past the day counted one by one, the rest reckoned)', '*/15 * * * * *', 3 * 86_400_000, 17_280],
    ['10 minutes on an hourly schedule, over no slot', '0 0 * * * *', 10 * 60_000, 0],
  ])('%s: the slots jumped over are told missed (it said 1), in one line, and no burst follows', async (_what, schedule, step, slots) => {
    const start = Date.UTC(2026, 10, 25, 12, 0, 0, 500);
    const { ticks, missed } = await driveTrigger(schedule, start, async () => {
      await vi.advanceTimersByTimeAsync(1_000);
      // The timers do not run in the jump: the watchdog's next look finds the slots passed, as a late timer would.
      vi.setSystemTime(Date.now() + step);
      await vi.advanceTimersByTimeAsync(CLOCK_WATCH_MS + 1_000);
    });
    const told = missed.map((fields) => (fields as { missed: number }).missed);
    if (slots === 0) {
      // 12:00:00 is before the start, 13:00 not reached: nothing missed, nothing said.
      expect(told).toEqual([]);
      return;
    }
    expect(told).toHaveLength(1);
    // The watchdog looks up to 5 s after the jump: the slots of those seconds are missed too.
    expect(told[0]).toBeGreaterThanOrEqual(slots);
    expect(told[0]).toBeLessThanOrEqual(slots + 6);
    // No burst: never two runs in one second.
    expect(new Set(ticks.map((t) => Math.floor(t / 1000))).size).toBe(ticks.length);
  });
});
