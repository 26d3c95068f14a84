/** The contract's metric names are all served (or deliberately renamed, documented in docs/metrics.md). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/metrics/families.js';
import { CONTRACT_RENAMES, metricsMarkdown, SELF_METRICS } from '../../src/metrics/doc.js';


describe('metric names', () => {
  const contract = readFileSync(new URL('../../../shared/CONTRACT.md', import.meta.url), 'utf8');
  const named = new Set([...contract.matchAll(/`(routeros_[a-z_]+)`/g)].map((match) => match[1] as string));
  const served = new Set([...FAMILIES.map((family) => family.name), ...SELF_METRICS.map((metric) => metric.name)]);

  it('serves every metric the contract names', () => {
    expect(named.size).toBeGreaterThan(30);
    const missing = [...named].filter((name) => !served.has(CONTRACT_RENAMES[name] ?? name));
    expect(missing).toEqual([]);
  });

  it('docs/metrics.md is current', () => {
    expect(readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')).toBe(metricsMarkdown());
  });

  it('follows the naming conventions: counters end in _total, nothing else does', () => {
    for (const family of FAMILIES) {
      expect(family.name.endsWith('_total'), family.name).toBe(family.type === 'counter');
      expect(family.name).toMatch(/^routeros_[a-z_]+$/);
    }
  });
});
