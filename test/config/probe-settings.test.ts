/**
 * The tunnel probe settings in the config: `health.probe` (names → on/off, peer over interface, shaped like
 * expect), `health.probe_tunnels` (auto | true | false, the router-wide default; true/false as before) and
 * `health.probe_count` (1–3): merged from defaults, refused with path and reason, and part of the job's settings.
 */
import { describe, expect, it } from 'vitest';
import { testRouter } from '../helpers/config.js';
import { probeSettingOf } from '../../src/analysis/peer.js';
import { jobFingerprint } from '../../src/scheduler/definition.js';
import { wireguardCollector } from '../../src/collectors/wireguard.js';
import { ConfigError } from '../../src/config/types.js';

/** The problems a health section gives, as `path: message` lines. */
function problemsOf(health: Record<string, unknown>, where: 'defaults' | 'router' = 'defaults'): string[] {
  try {
    testRouter(where === 'router' ? { health } : {}, where === 'defaults' ? { health } : {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => `${problem.path}: ${problem.message}`);
    throw error;
  }
  return [];
}

describe('health.probe_tunnels', () => {
  it('is auto when absent, and true / false keep their meaning (every peer expected up / none)', () => {
    expect(testRouter().health.probeTunnels).toBeUndefined();
    expect(testRouter({}, { health: { probe_tunnels: 'auto' } }).health.probeTunnels).toBeUndefined();
    expect(testRouter({}, { health: { probe_tunnels: true } }).health.probeTunnels).toBe('on');
    expect(testRouter({}, { health: { probe_tunnels: false } }).health.probeTunnels).toBe('off');
    // A router's own value wins over the defaults'.
    expect(testRouter({ health: { probe_tunnels: false } }, { health: { probe_tunnels: true } }).health.probeTunnels).toBe('off');
  });

  it('refuses anything else, naming the path', () => {
    expect(problemsOf({ probe_tunnels: 'sometimes' })).toEqual(['defaults.health.probe_tunnels: must be auto, true or false, not "sometimes"']);
    expect(problemsOf({ probe_tunnels: 3 }, 'router')).toEqual(['routers[0].health.probe_tunnels: must be auto, true or false, not 3']);
  });
});

describe('health.probe', () => {
  it('reads on/off (text or boolean); a peer name or comment wins over its interface; undefined when none names it', () => {
    const health = testRouter({}, { health: { probe: { 'wg-sites': 'on', 'branch-9': 'off', 'laptop-anna': true, 'wg-road': false } } }).health;
    expect(probeSettingOf({ name: 'branch-1', comment: undefined, interface: 'wg-sites' }, health)).toBe(true);
    expect(probeSettingOf({ name: 'branch-9', comment: undefined, interface: 'wg-sites' }, health)).toBe(false);
    expect(probeSettingOf({ name: '', comment: 'laptop-anna', interface: 'wg-road' }, health)).toBe(true);
    expect(probeSettingOf({ name: 'laptop-bob', comment: undefined, interface: 'wg-road' }, health)).toBe(false);
    expect(probeSettingOf({ name: 'x', comment: undefined, interface: 'wg-other' }, health)).toBeUndefined();
    expect(probeSettingOf({ name: 'x', comment: undefined, interface: 'wg-other' }, testRouter().health)).toBeUndefined();
  });

  it('a peer called constructor or toString is an ordinary name, not a property of every object', () => {
    const health = testRouter({}, { health: { probe: { toString: 'on' } } }).health;
    expect(probeSettingOf({ name: 'toString', comment: undefined, interface: 'wg0' }, health)).toBe(true);
    expect(probeSettingOf({ name: 'constructor', comment: undefined, interface: 'wg0' }, health)).toBeUndefined();
    expect(probeSettingOf({ name: 'x', comment: undefined, interface: 'hasOwnProperty' }, health)).toBeUndefined();
  });

  it("a router's map replaces the defaults' map", () => {
    const health = testRouter({ health: { probe: { 'wg-road': 'on' } } }, { health: { probe: { 'wg-sites': 'on' } } }).health;
    expect({ ...health.probe }).toEqual({ 'wg-road': true });
  });

  it('refuses a value other than on/off and a non-mapping, naming the key', () => {
    expect(problemsOf({ probe: { 'wg-sites': 'always', 'branch-1': 'on' } })).toEqual(['defaults.health.probe.wg-sites: must be on or off, not "always"']);
    expect(problemsOf({ probe: ['wg-sites'] })).toEqual(['defaults.health.probe: must be a mapping of peer or interface names to on or off']);
  });
});

describe('health.probe_count', () => {
  it('is 1 to 3, absent meaning 1', () => {
    expect(testRouter().health.probeCount).toBeUndefined();
    expect(testRouter({}, { health: { probe_count: 1 } }).health.probeCount).toBeUndefined();
    expect(testRouter({}, { health: { probe_count: 3 } }).health.probeCount).toBe(3);
    expect(testRouter({ health: { probe_count: 2 } }, { health: { probe_count: 3 } }).health.probeCount).toBe(2);
  });

  it('refuses 0, 4, fractions and text with the path and why the bound is low', () => {
    for (const [value, shown] of [[0, 'between 1 and 3, not 0'], [4, 'between 1 and 3, not 4'], [1.5, 'a whole number, not 1.5'], ['two', 'a whole number, not "two"']] as const) {
      const [problem, ...rest] = problemsOf({ probe_count: value }, 'router');
      expect(rest).toEqual([]);
      expect(problem).toContain(`routers[0].health.probe_count: must be ${shown}`);
      expect(problem).toMatch(/pings per probe/);
    }
  });
});

describe('the wireguard job', () => {
  const fingerprint = (health: Record<string, unknown>): string => {
    const router = testRouter({}, { health });
    const [job] = wireguardCollector.jobs(router);
    if (job === undefined) throw new Error('no wireguard job');
    return jobFingerprint(router, job);
  };

  it('is replaced on reload when a probe setting changes (its run reads them)', () => {
    const base = fingerprint({});
    expect(fingerprint({ probe: { 'wg-sites': 'on' } })).not.toBe(base);
    expect(fingerprint({ probe_tunnels: true })).not.toBe(base);
    expect(fingerprint({ probe_tunnels: false })).not.toBe(base);
    expect(fingerprint({ probe_count: 3, probe: { 'wg-sites': 'on' } })).not.toBe(fingerprint({ probe: { 'wg-sites': 'on' } }));
    expect(fingerprint({ probe_tunnels: 'auto' })).toBe(base);
  });

  it('has the three-request deadline unless some peer can be probed, and room for the probe rounds then', () => {
    const deadline = (health: Record<string, unknown>): number => wireguardCollector.jobs(testRouter({ timeout: '5s' }, { health }))[0]?.deadlineSeconds ?? 0;
    // Interfaces, peers, and the uptime when a peer has no handshake.
    expect(deadline({})).toBe(15);
    // auto without expect: always, or everything off: nothing to probe.
    expect(deadline({ expect: { 'wg-road': 'on_demand' } })).toBe(15);
    expect(deadline({ probe_tunnels: false, expect: { 'wg-sites': 'always' } })).toBe(15);
    // 4 requests + rounds of 2 probes, each its timeout plus count × 200 ms: 16 rounds for one ping (8, and each again
    // when its ping was lost), 8 for three.
    expect(deadline({ expect: { 'wg-sites': 'always' } })).toBeCloseTo(5 * 20 + 16 * 0.2);
    expect(deadline({ probe: { 'wg-sites': 'on' }, probe_count: 3 })).toBeCloseTo(5 * 12 + 8 * 3 * 0.2);
  });
});
