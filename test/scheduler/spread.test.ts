/**
 * The tick's spread (issue 14): with jitter on, a fleet on one schedule does not start in one millisecond, yet
 * every router has started within 3 s of the tick, and a router's jobs start together (one delay per router).
 * Driven by the scheduler's own timers under fake time, with a scripted client (no network).
 */
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { testConfig } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';

const ROUTERS = 300;
const SYSTEM_AND_WIREGUARD = Object.fromEntries(COLLECTOR_NAMES.map((name) => [name, name === 'system' || name === 'wireguard']));

afterEach(() => {
  vi.useRealTimers();
});

describe('tick spread', () => {
  it('starts a fleet over the first 3 s after the tick, both jobs of a router together', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const names = Array.from({ length: ROUTERS }, (_, i) => `site-${i}`);
    const clients = new Map(names.map((name) => [name, new FakeClient()]));
    const triggers = new ManualTriggers();
    const scheduler = new Scheduler({
      store: new SnapshotStore(),
      logger: pino({ level: 'silent' }),
      clientFor: (router) => clients.get(router.name) as FakeClient,
      triggerFactory: triggers.factory,
      maxInFlight: ROUTERS * 2,
    });
    const every = '*/30 * * * * *';
    scheduler.load(
      testConfig({
        defaults: { username: 'u', password: 'p', collectors: SYSTEM_AND_WIREGUARD, schedules: { system: every, wireguard: every } },
        routers: names.map((name, i) => ({ name, url: `https://192.0.2.${(i % 250) + 1}:${8000 + i}` })),
      }),
    );
    scheduler.start(false);
    for (const name of triggers.ticks.keys()) triggers.fire(name);

    const started = (): FakeClient[] => [...clients.values()].filter((client) => client.calls > 0);
    await vi.advanceTimersByTimeAsync(0);
    // No herd: the tick itself starts few routers.
    expect(started().length).toBeLessThan(ROUTERS / 10);
    const seen: number[] = [];
    for (let ms = 250; ms <= 3_000; ms += 250) {
      await vi.advanceTimersByTimeAsync(250);
      seen.push(started().length);
      // A router's system and wireguard jobs start in the same moment: every started router has both calls.
      for (const client of started()) expect(client.calls).toBeGreaterThanOrEqual(2);
    }
    // Spread evenly-ish over the window, and all started by its end.
    expect(seen.at(-1)).toBe(ROUTERS);
    expect(seen[Math.floor(seen.length / 2) - 1]).toBeGreaterThan(ROUTERS * 0.3);
    expect(seen[Math.floor(seen.length / 2) - 1]).toBeLessThan(ROUTERS * 0.7);
    console.log(`tick spread: ${ROUTERS} routers started by 250 ms steps: ${seen.join(', ')}`);
    await scheduler.stop();
  });
});
