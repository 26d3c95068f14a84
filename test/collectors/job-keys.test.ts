/**
 * Job keys tell a router's jobs apart in the scheduler (a second job with a key already taken replaces the
 * first). Keys built from user values must therefore be injective: distinct (name, target) pairs, distinct keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandwidthTestCollector } from '../../src/collectors/bandwidth-test.js';
import { pingCollector } from '../../src/collectors/ping.js';
import type { RouterConfig } from '../../src/config/types.js';
import type { JobContext } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';

/** Only what jobs() reads: the per-target settings and the router's timeout. */
function router(pairs: [name: string, target: string][]): RouterConfig {
  const common = { schedule: '*/30 * * * * *' };
  return {
    timeoutSeconds: 10,
    ping: pairs.map(([name, target]) => ({ ...common, name, target, count: 3, intervalSeconds: 1 })),
    bandwidthTest: pairs.map(([name, target]) => ({ ...common, name, target, durationSeconds: 5 })),
  } as unknown as RouterConfig;
}

// Colons, quotes and backslashes are what a naive join or escape confuses; IPv6 targets are full of colons.
const PART = fc.string({ unit: fc.constantFrom('a', '1', '2', ':', '"', '\\', ',', '[', ']', '\u0000'), maxLength: 6 });

describe('job keys', () => {
  it.each([pingCollector, bandwidthTestCollector])('$name: distinct (name, target) pairs give distinct keys', (collector) => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(PART, PART), { selector: (pair) => JSON.stringify(pair), maxLength: 6 }), (pairs) => {
        const keys = collector.jobs(router(pairs)).map((job) => job.job);
        expect(new Set(keys).size).toBe(pairs.length);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([pingCollector, bandwidthTestCollector])('$name: pairs that join to the same text still give distinct keys', (collector) => {
    // The second pair re-splits "name:target" of the first at another colon: the pairs a plain join confuses.
    fc.assert(
      fc.property(PART, PART, fc.nat(), (name, target, pick) => {
        const joined = `${name}:${target}`;
        const colons = [...joined].flatMap((char, i) => (char === ':' ? [i] : []));
        const at = colons[pick % colons.length] ?? name.length;
        const other: [string, string] = [joined.slice(0, at), joined.slice(at + 1)];
        fc.pre(other[0] !== name || other[1] !== target);
        const keys = collector.jobs(router([[name, target], other])).map((job) => job.job);
        expect(new Set(keys).size).toBe(2);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps the reviewer’s two ping targets apart', () => {
    const keys = pingCollector.jobs(router([['a:1', '2::3'], ['a', '1:2::3']])).map((job) => job.job);
    expect(new Set(keys).size).toBe(2);
  });
});

describe('command replies of any length', () => {
  /**
   * Rows whose checking takes at least 50 ms on any machine: each has a field whose read waits 0.05 ms. A check in
   * slices of 10 ms must then pause; one in one go cannot. (Real replies have no getters; this one stands for a long
   * reply without depending on how fast the machine checks strings.)
   */
  const rows = (status?: string) =>
    Array.from({ length: 1_000 }, (_, i) =>
      Object.defineProperty({ sent: String(i + 1), received: String(i + 1), ...(status === undefined ? {} : { status }) }, 'slow', {
        enumerable: true,
        get: () => {
          const until = performance.now() + 0.05;
          while (performance.now() < until);
          return 'x';
        },
      }),
    );

  it.each([
    [pingCollector, () => rows()],
    [bandwidthTestCollector, () => rows('running')],
  ] as const)('$name: the reply is checked in slices that give the event loop back (~1 million rows or 5,000 fields each took 0.7–2.4 s in one go)', async (collector, reply) => {
    const config = router([['a', '10.0.0.1']]);
    const [job] = collector.jobs(config);
    const client = { list: async () => [], getSingleton: async () => ({}), run: async () => reply() };
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    await job?.run({ router: config, client, routerLabel: routerLabel('hq'), now: () => 0, signal: new AbortController().signal, memory: new Map() } as unknown as JobContext);
    expect(turned).toBe(true);
  });
});
