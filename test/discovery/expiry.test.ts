/**
 * When a discovered target is forgotten by default (src/discovery/expiry.ts): ten times the longest schedule of
 * the jobs its profile runs, never under the minute an explicit `forget_after` is held to.
 */
import { describe, expect, it } from 'vitest';
import { forgetAfterMsOf } from '../../src/discovery/expiry.js';
import { MIN_FORGET_AFTER_SECONDS } from '../../src/config/profiles.js';
import type { ProfileConfig } from '../../src/config/types.js';
import { testConfig } from '../helpers/config.js';

const ONLY_SYSTEM = { wireguard: false, interface: false, health: false, firmware: false, ping: false, bandwidth_test: false };

function profile(settings: Record<string, unknown>): ProfileConfig {
  const config = testConfig({ profiles: { lab: { targets: ['10.0.0.0/8'], username: 'monitor', password: 'x', ...settings } } });
  return (config.profiles as ProfileConfig[])[0] as ProfileConfig;
}

describe('forget_after by default', () => {
  it.each([
    ['*/5 * * * * *', 60],
    ['*/6 * * * * *', 60],
    ['*/10 * * * * *', 100],
    ['*/30 * * * * *', 300],
  ])('a profile running only a %s job forgets its targets after %i s', (schedule, seconds) => {
    const only = profile({ collectors: ONLY_SYSTEM, timeout: '1s', schedules: { system: schedule } });
    expect(forgetAfterMsOf(only)).toBe(seconds * 1000);
    expect(forgetAfterMsOf(only)).toBeGreaterThanOrEqual(MIN_FORGET_AFTER_SECONDS * 1000);
  });

  it('an explicit forget_after wins', () => {
    expect(forgetAfterMsOf(profile({ collectors: ONLY_SYSTEM, timeout: '1s', schedules: { system: '*/5 * * * * *' }, forget_after: '90s' }))).toBe(90_000);
  });
});
