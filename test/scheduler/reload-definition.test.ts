/** A job's definition for reloads: what changes it (and so replaces the job), what does not. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobsFor } from '../../src/collectors/catalog.js';
import { gatesReadiness, jobFingerprint } from '../../src/scheduler/definition.js';
import type { RouterConfig } from '../../src/config/types.js';
import { testConfig } from '../helpers/config.js';
import { registerSecret } from '../../src/util/redact.js';

const base = {
  url: 'https://192.0.2.1',
  ping: [{ target: '192.0.2.50' }, { target: '192.0.2.51' }],
  bandwidth_test: [{ target: '192.0.2.60', duration: '10s', user: 'btest', password: 'one' }],
};

/** Fingerprints by job name of router `a` for a config changed by `edit`. */
function fingerprints(edit: (router: Record<string, unknown>, top: Record<string, unknown>) => void = () => {}): Map<string, string> {
  const router: Record<string, unknown> = structuredClone({ name: 'a', ...base });
  const top: Record<string, unknown> = { defaults: { username: 'u', password: 'p' } };
  edit(router, top);
  const config = testConfig({ ...top, routers: [router, { name: 'b', url: 'https://192.0.2.2' }] });
  const a = config.routers.find((r) => r.name === 'a') as RouterConfig;
  return new Map(jobsFor(a).map((job) => [job.job, jobFingerprint(a, job)]));
}

/** Names of the jobs whose fingerprint differs from the base config's. */
function changedBy(edit: Parameters<typeof fingerprints>[0]): string[] {
  const before = fingerprints();
  const after = fingerprints(edit);
  return [...after].filter(([job, print]) => before.get(job) !== print).map(([job]) => job).sort();
}

const ALL = ['bandwidth_test:["192.0.2.60","192.0.2.60"]', 'firmware', 'health', 'interface', 'ping:["192.0.2.50","192.0.2.50"]', 'ping:["192.0.2.51","192.0.2.51"]', 'system', 'wireguard'];

describe('job definitions', () => {
  it('property: mappings in another key order, and set-like lists in another order, change no fingerprint', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const settings = fc.record({
      expect: fc.dictionary(name, fc.constantFrom('always', 'on_demand', 'auto'), { maxKeys: 6 }),
      probe: fc.dictionary(name, fc.constantFrom('on', 'off'), { maxKeys: 6 }),
      excludePeers: fc.uniqueArray(name, { maxLength: 5 }),
      includeTypes: fc.uniqueArray(fc.constantFrom('ether', 'bridge', 'vlan', 'wg', 'pppoe-out', 'bond'), { minLength: 1 }),
      excludeTypes: fc.uniqueArray(fc.constantFrom('loopback', 'pppoe-in', 'l2tp-in'), { maxLength: 3 }),
    });
    const reversed = <T>(record: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(record).reverse());
    fc.assert(
      fc.property(settings, ({ expect: modes, probe, excludePeers, includeTypes, excludeTypes }) => {
        const written = (reorder: boolean) =>
          fingerprints((r) => {
            r.health = {
              expect: reorder ? reversed(modes) : modes,
              probe: reorder ? reversed(probe) : probe,
              exclude_peers: reorder ? [...excludePeers].reverse() : excludePeers,
            };
            r.interfaces = { include_types: reorder ? [...includeTypes].reverse() : includeTypes, exclude_types: reorder ? [...excludeTypes].reverse() : excludeTypes };
          });
        expect(written(true)).toEqual(written(false));
      }),
      { numRuns: 100 },
    );
    // And a value that does change still shows.
    expect(changedBy((r) => (r.health = { expect: { 'wg-sites': 'always' } }))).toEqual(['wireguard']);
  });

  it('are stable: the same file read twice gives the same fingerprints', () => {
    expect(changedBy(() => {})).toEqual([]);
  });

  it('connection settings change every job of the router', () => {
    expect(changedBy((r) => (r.url = 'https://192.0.2.9'))).toEqual(ALL);
    expect(changedBy((r) => (r.password = 'other'))).toEqual(ALL);
    expect(changedBy((r) => (r.timeout = '3s'))).toEqual(ALL);
    expect(changedBy((r) => (r.tls = { server_name: 'router.example' }))).toEqual(ALL);
    expect(changedBy((r) => (r.tls = { insecure_skip_verify: true }))).toEqual(ALL);
  });

  it("a job's own settings change that job only", () => {
    expect(changedBy((r) => (r.ping = [{ target: '192.0.2.50', count: 5 }, { target: '192.0.2.51' }]))).toEqual(['ping:["192.0.2.50","192.0.2.50"]']);
    expect(changedBy((r) => (r.schedules = { system: '*/30 * * * * *' }))).toEqual(['system']);
    expect(changedBy((r) => (r.bandwidth_test = [{ ...base.bandwidth_test[0], password: 'two' }]))).toEqual(['bandwidth_test:["192.0.2.60","192.0.2.60"]']);
    // Peer verdicts are made inside the wireguard run; ping loss is judged from the config at /health time.
    expect(changedBy((r) => (r.health = { handshake_stale_after: '10m' }))).toEqual(['wireguard']);
    expect(changedBy((r) => (r.health = { exclude_peer_pattern: 'lab-.*' }))).toEqual(['wireguard']);
    expect(changedBy((r) => (r.health = { ping_loss_critical: 0.2 }))).toEqual(['wireguard']);
  });

  it('top-level settings and added siblings change nothing', () => {
    expect(changedBy((_r, top) => Object.assign(top, { log_level: 'debug', listen: '127.0.0.1:9999' }))).toEqual([]);
    // Only the new target is new; the two that were there keep their definition.
    expect(changedBy((r) => (r.ping = [{ target: '192.0.2.50' }, { target: '192.0.2.51' }, { target: '192.0.2.52' }]))).toEqual([
      'ping:["192.0.2.52","192.0.2.52"]',
    ]);
  });

  it('never hold a password', () => {
    for (const print of fingerprints().values()) expect(print).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('readiness gating', () => {
  const router = testConfig({
    defaults: { username: 'u', password: 'p', collectors: { wireguard_setup: true } },
    routers: [
      {
        name: 'a',
        url: 'https://192.0.2.1',
        ping: [{ target: '192.0.2.50' }, { target: '192.0.2.51', schedule: '0 */15 * * * *' }],
        bandwidth_test: [{ target: '192.0.2.60', duration: '10s', schedule: '0 */2 * * * *' }],
      },
    ],
  }).routers[0] as RouterConfig;
  const gates = Object.fromEntries(jobsFor(router).map((job) => [job.job, gatesReadiness(job)]));

  it('frequent jobs gate; bandwidth tests and jobs rarer than every 10 minutes do not', () => {
    expect(gates).toEqual({
      system: true,
      interface: true,
      wireguard: true,
      // every 5 minutes by default
      wireguard_setup: true,
      'ping:["192.0.2.50","192.0.2.50"]': true,
      'ping:["192.0.2.51","192.0.2.51"]': false,
      'bandwidth_test:["192.0.2.60","192.0.2.60"]': false,
      health: true,
      // hourly
      firmware: false,
    });
  });
});

describe('the label text in a job\'s definition', () => {
  it('changes when redaction changes a configured router\'s labels, never for a discovered target\'s typed name', () => {
    const base = testConfig({ defaults: { username: 'u', password: 'pw-1234' }, routers: [{ name: 'placeholder', url: 'https://192.0.2.7', labels: { role: 'corp-winter2031' } }] });
    const typed = { ...base.routers[0]!, name: 'winter2031-guess.branch.example:443', labels: {} };
    const configured = base.routers[0]!;
    const [job] = jobsFor(configured);
    const before = { typed: jobFingerprint(typed, job!, true), configured: jobFingerprint(configured, job!) };
    // Another router's new password, read by a reload.
    registerSecret('winter2031');
    // The configured router's series now carry `corp-[REDACTED:…]`: its jobs must be replaced with them.
    expect(jobFingerprint(configured, job!)).not.toBe(before.configured);
    // A discovered target's series carry its name as typed: its jobs stay (being replaced would tell that a password
    // is in the name, found by review).
    expect(jobFingerprint(typed, job!, true)).toBe(before.typed);
  });
});
