import { describe, expect, it } from 'vitest';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';

function router(settings: Record<string, unknown>): unknown {
  return { defaults: BASE.defaults, routers: [{ name: 'hq', url: 'https://192.0.2.1', ...settings }] };
}

describe('timeout against schedules', () => {
  it('only counts schedules that run: disabled collectors and target-less ping/bandwidth do not', () => {
    const config = resolve(
      router({
        timeout: '20s',
        schedules: { system: '*/30 * * * * *', interface: '*/30 * * * * *', wireguard: '*/5 * * * * *', ping: '*/5 * * * * *', bandwidth_test: '* * * * * *' },
        collectors: { wireguard: false },
      }),
    );
    expect(firstRouter(config).timeoutSeconds).toBe(20);
  });

  it('counts the wireguard_setup schedule once it is switched on', () => {
    expect(
      problemsOf(router({ timeout: '20s', collectors: { wireguard_setup: true }, schedules: { system: '0 * * * * *', wireguard: '0 * * * * *', wireguard_setup: '*/10 * * * * *' } })),
    ).toEqual([
      {
        path: 'routers[0].timeout',
        message: '20s must be shorter than the 10s between runs of schedules.wireguard_setup "*/10 * * * * *" (set at routers[0].schedules.wireguard_setup)',
      },
    ]);
  });

  it('counts ping targets, through their own schedule or schedules.ping', () => {
    const schedules = { system: '0 * * * * *', interface: '0 * * * * *', wireguard: '0 * * * * *', health: '0 * * * * *' };
    expect(problemsOf(router({ timeout: '30s', schedules, ping: [{ target: '10.0.0.1' }] }))).toEqual([
      {
        path: 'routers[0].timeout',
        message: '30s must be shorter than the 30s between runs of schedules.ping "*/30 * * * * *" (built-in default)',
      },
    ]);
    const own = [{ target: '10.0.0.1', schedule: '*/20 * * * * *' }];
    expect(problemsOf(router({ timeout: '30s', schedules, ping: own }))[0]?.message).toBe(
      '30s must be shorter than the 20s between runs of routers[0].ping[0].schedule "*/20 * * * * *"',
    );
  });

  it('names the defaults when the timeout comes from there', () => {
    const problems = problemsOf({
      defaults: { ...BASE.defaults, timeout: '15s' },
      routers: [{ name: 'hq', url: 'https://192.0.2.1' }],
    });
    expect(problems).toEqual([
      {
        path: 'routers[0].timeout',
        message: '15s (set at defaults.timeout) must be shorter than the 15s between runs of schedules.system "*/15 * * * * *" (built-in default)',
      },
    ]);
  });

  it('names the built-in timeout when a schedule is too tight for it', () => {
    const problems = problemsOf(router({ schedules: { system: '*/5 * * * * *' } }));
    expect(problems[0]?.message).toBe(
      '10s (built-in default) must be shorter than the 5s between runs of schedules.system "*/5 * * * * *" (set at routers[0].schedules.system)',
    );
  });

  it('does not check an invalid schedule twice', () => {
    // system's own schedule is invalid, so the timeout is judged against wireguard's, not system's default.
    expect(problemsOf(router({ timeout: '20s', schedules: { system: 'often', interface: '0 * * * * *' } }))).toEqual([
      { path: 'routers[0].timeout', message: expect.stringContaining('between runs of schedules.wireguard') as string },
      { path: 'routers[0].schedules.system', message: expect.stringContaining('"often" is not a valid cron expression') as string },
    ]);
  });
});

describe('run length against schedules', () => {
  it('accepts a ping that fits its schedule and the budget', () => {
    const config = resolve(router({ ping: [{ target: '10.0.0.1', count: 45, interval: '1s', schedule: '0 * * * * *' }] }));
    expect(firstRouter(config).ping[0]?.count).toBe(45);
  });

  it('refuses a bandwidth test longer than the gap between its runs', () => {
    expect(problemsOf(router({ schedules: { bandwidth_test: '*/30 * * * * *' }, bandwidth_test: [{ target: '10.0.0.1', duration: '40s' }] }))).toEqual([
      {
        path: 'routers[0].bandwidth_test[0]',
        message: 'a run takes duration = 40s, not shorter than the 30s between runs of schedules.bandwidth_test "*/30 * * * * *" (set at routers[0].schedules.bandwidth_test)',
      },
    ]);
  });

  it.each<[number, string, boolean]>([
    [45, '1s', true],
    [46, '1s', false],
    [100, '450ms', true],
    [100, '460ms', false],
  ])('count %d × interval %s within the 45s budget: %s', (count, interval, ok) => {
    const raw = router({ ping: [{ target: '10.0.0.1', count, interval, schedule: '0 * * * * *' }] });
    if (ok) expect(firstRouter(resolve(raw)).ping).toHaveLength(1);
    else expect(problemsOf(raw)[0]?.path).toBe('routers[0].ping[0]');
  });
});
