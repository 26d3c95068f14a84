/**
 * max_targets lowered by a reload holds at once: the registry checks the cap only when it creates a target, so a
 * reload once kept all 50 targets of a profile whose cap went to 2. The least recently probed are forgotten
 * (reason max_targets), the others kept untouched. Registry alone, on an injected clock.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { DiscoveryRegistry, type ForgetReason } from '../../src/discovery/registry.js';
import { testConfig } from '../helpers/config.js';

function setup(): { registry: DiscoveryRegistry; forgotten: [string, ForgetReason][]; counts: Map<string, number>; tick: () => void } {
  let clock = 0;
  const forgotten: [string, ForgetReason][] = [];
  const counts = new Map<string, number>();
  const registry = new DiscoveryRegistry({
    now: () => clock,
    store: { subscribe: () => () => undefined, tried: () => false, triedJobs: () => false, snapshots: () => [], recorded: 0 },
    changed: () => undefined,
    logger: pino({ level: 'silent' }),
    metrics: {
      targets: (now) => {
        counts.clear();
        for (const [profile, count] of now) counts.set(profile, count);
      },
      created: () => undefined,
      forgotten: (profile, reason) => forgotten.push([profile, reason]),
      refused: () => undefined,
    },
  });
  return { registry, forgotten, counts, tick: () => (clock += 1_000) };
}

const config = (a: number, b = 100) =>
  testConfig({
    defaults: { username: 'm', password: 'p' },
    routers: [],
    profiles: { a: { targets: ['10.20.0.0/16'], max_targets: a }, b: { targets: ['10.30.0.0/16'], max_targets: b } },
  });

describe('a reload that lowers max_targets', () => {
  it('forgets the least recently probed targets down to the new cap, counted as max_targets; then new targets are full', async () => {
    const { registry, forgotten, counts, tick } = setup();
    registry.configure(config(50));
    for (let i = 1; i <= 50; i++) {
      tick();
      await registry.discover(`10.20.0.${i}`, 'a', 0);
    }
    await registry.discover('10.30.0.1', 'b', 0);
    // Probed again: these two are now the most recent, whatever their creation order.
    tick();
    await registry.discover('10.20.0.7', 'a', 0);
    tick();
    await registry.discover('10.20.0.3', 'a', 0);
    registry.configure(config(2));
    expect(registry.routers().map((router) => router.name).sort()).toEqual(['10.20.0.3', '10.20.0.7', '10.30.0.1']);
    expect(forgotten).toHaveLength(48);
    expect(forgotten.every(([profile, reason]) => profile === 'a' && reason === 'max_targets')).toBe(true);
    expect(counts.get('a')).toBe(2);
    expect((await registry.discover('10.20.1.1', 'a', 0)).kind).toBe('full');
    registry.close();
  });

  it('keeps exactly the min(cap, count) most recently probed of each profile, for any probe order and cap (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(19), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 25 }), async (probes, cap) => {
        const { registry, forgotten, tick } = setup();
        registry.configure(config(20));
        const last = new Map<string, number>();
        for (const [order, i] of probes.entries()) {
          tick();
          await registry.discover(`10.20.0.${i + 1}`, 'a', 0);
          last.set(`10.20.0.${i + 1}`, order);
        }
        registry.configure(config(cap));
        const expected = [...last.entries()].sort((x, y) => y[1] - x[1]).slice(0, cap).map(([name]) => name);
        expect(registry.routers().map((router) => router.name).sort()).toEqual(expected.sort());
        expect(forgotten).toEqual(Array.from({ length: last.size - expected.length }, () => ['a', 'max_targets']));
        registry.close();
      }),
      { numRuns: 200 },
    );
  });
});
