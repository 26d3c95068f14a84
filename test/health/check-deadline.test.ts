/**
 * `check`'s deadline is the whole check's: Nagios kills a plugin at its own timeout whatever the plugin was doing.
 * It was counted from after the configuration was loaded and the app made (4.7 s for a 5,000-router config on this
 * machine), and the answer waited for the app's stop after it (2 s more there): `-t 3` answered after 10 s (found
 * by review). The time is stepped here: reading the config's environment takes 2 s of the check's clock, and a stop
 * that never ends is mocked in.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSilentRouter, type SilentRouter } from '../helpers/silent-router.js';
import { tempFile } from '../helpers/emulator-config.js';

const stopping = vi.hoisted(() => {
  // check.ts may hold the real app.js from an earlier file of the worker (vitest.config.ts): loaded afresh.
  vi.resetModules();
  return { hang: false };
});
vi.mock('../../src/app.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/app.js')>();
  return {
    ...original,
    createApp: (...args: Parameters<typeof original.createApp>) => {
      const app = original.createApp(...args);
      const stop = app.stop.bind(app);
      return { ...app, stop: async () => (stopping.hang ? new Promise<void>(() => void stop()) : stop()) };
    },
  };
});

const { check } = await import('../../src/cli/check.js');

let silent: SilentRouter;
let config: string;

beforeAll(async () => {
  silent = await startSilentRouter();
  // The password from the environment: reading it is where the stepped clock moves.
  config = tempFile('routeros-exporter.yml', JSON.stringify({ defaults: { username: 'monitor', password: '${ROUTER_PASSWORD}', timeout: '1s' }, routers: [{ name: 'hq', url: silent.url }] }));
});

afterAll(() => {
  silent.close();
});

describe("check's deadline", () => {
  it('counts the time the configuration took to load: 2 s of a 10 s -t leave 8 s to wait (it waited 10 s more)', async () => {
    let clock = 0;
    const env = new Proxy<NodeJS.ProcessEnv>({ ROUTER_PASSWORD: 'pw-check-deadline-1' }, {
      get(target, key) {
        if (key === 'ROUTER_PASSWORD') clock += 2_000;
        return Reflect.get(target, key) as string | undefined;
      },
    });
    const waits: number[] = [];
    await check(config, undefined, { env, elapsed: () => clock, timeoutSeconds: 10, deadline: async (ms) => void waits.push(ms) });
    expect(waits).toEqual([8_000]);
  });

  it('answers at its deadline though the app\'s stop never ends (the answer waited for it)', async () => {
    stopping.hang = true;
    try {
      let deadlinePassed = false;
      let clock = 0;
      const deadline = async (ms: number): Promise<void> => {
        clock += ms;
        deadlinePassed = true;
      };
      const out = await Promise.race([
        check(config, undefined, { env: { ROUTER_PASSWORD: 'pw-check-deadline-1' }, elapsed: () => clock, timeoutSeconds: 10, deadline }),
        // Far longer than any grace the answer may give the stop, far shorter than the test's timeout.
        new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 4_000).unref()),
      ]);
      expect(deadlinePassed).toBe(true);
      expect(out).not.toBe('held');
      expect(out === 'held' ? '' : out.text.split('\n')[0]).toMatch(/^ROUTEROS (UNKNOWN|CRITICAL) - /);
    } finally {
      stopping.hang = false;
    }
  }, 10_000);
});
