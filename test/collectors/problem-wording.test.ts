/**
 * A reply full of odd values costs work by its size, not by the wording of each problem: every odd value is
 * counted, but only the first few (KEPT_PROBLEMS) are worded — quoting and redacting router text is the costly
 * part, and a hostile 32 MiB reply holds millions of values. Counted here by how often router text is quoted,
 * which is deterministic where a time limit would not be.
 */
import { describe, expect, it, vi } from 'vitest';

const quoted = vi.hoisted(() => {
  // Test files share a worker's modules (vitest.config.ts): the collectors below may already hold the real
  // text.js from an earlier file, so they are evaluated afresh, against the mock.
  vi.resetModules();
  return { calls: 0 };
});
vi.mock('../../src/util/text.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/util/text.js')>();
  return {
    ...actual,
    quoteRouterText: (text: string, max: number): string => {
      quoted.calls++;
      return actual.quoteRouterText(text, max);
    },
  };
});

const { mapWireguard } = await import('../../src/collectors/wireguard.js');
const { mapSystemHealth } = await import('../../src/collectors/system-health.js');
const { routerLabel } = await import('../../src/metrics/family.js');
const { testRouter } = await import('../helpers/config.js');
const { FieldReader } = await import('../../src/analysis/decoding.js');

const N = 5_000;
const NOW = 1_800_000_000_000;
/** Each reader words at most 20 problems; one problem quotes at most two router texts. */
const WORDING_BOUND = 2 * 20;

function quotesDuring(work: () => void): number {
  quoted.calls = 0;
  work();
  return quoted.calls;
}

describe('problems are counted in full and worded only while kept', () => {
  it('a peers reply whose every value is odd: each counted, at most 20 worded per reader', () => {
    const peers = Array.from({ length: N }, (_, i) => ({
      interface: 'wg0',
      // Every key twice: twins are a problem per record too.
      'public-key': `key-${i >> 1}-000000000000000000000000000000000=`,
      rx: `bad-${i}`,
      tx: '-5',
      'last-handshake': 'zz',
      'persistent-keepalive': '99999999s',
    }));
    let result!: ReturnType<typeof mapWireguard>;
    const calls = quotesDuring(() => {
      result = mapWireguard([{ name: 'wg0', 'public-key': 'S3rv3r', running: 'maybe', disabled: 'false', 'listen-port': '70000' }], peers, routerLabel('hq'), testRouter().health, NOW);
    });
    expect(result.decodeErrors).toBeGreaterThanOrEqual(N);
    expect(result.problems).toHaveLength(20);
    expect(result.problems[0]).toMatch(/^interface\/wireguard /);
    expect(calls).toBeLessThanOrEqual(2 * WORDING_BOUND);
  });

  it('a health reply naming one sensor thousands of times, with states that are none', () => {
    const rows = Array.from({ length: N }, (_, i) => ({ name: i % 2 === 0 ? 'psu1-state' : `psu-${i}-state`, value: 'maybe', type: '' }));
    let result!: ReturnType<typeof mapSystemHealth>;
    const calls = quotesDuring(() => {
      result = mapSystemHealth(rows, routerLabel('hq'));
    });
    expect(result.decodeErrors).toBeGreaterThan(20);
    expect(result.problems.length).toBeLessThanOrEqual(20);
    expect(calls).toBeLessThanOrEqual(WORDING_BOUND);
  });

  it('a field reader words the first 20 of its odd values, in order, and counts the rest', () => {
    const read = new FieldReader('system/resource');
    const calls = quotesDuring(() => {
      for (let i = 0; i < N; i++) read.counter({ rx: `x${i}` }, 'rx');
    });
    expect(read.errors).toBe(N);
    expect(read.problems).toEqual(Array.from({ length: 20 }, (_, i) => `system/resource rx: not a RouterOS integer: "x${i}" (expected decimal digits without units)`));
    expect(calls).toBe(20);
  });
});
