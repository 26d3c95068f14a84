/**
 * The metric names promised to users (CONTRACT_METRIC_NAMES, kept in the repository: the project owns its
 * contract) are all served, docs/metrics.md is current, and the exporter's own metrics are documented as
 * prom-client serves them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/metrics/families.js';
import { CONTRACT_METRIC_NAMES, CONTRACT_RENAMES, metricsMarkdown, SELF_METRICS, servedContractNames } from '../../src/metrics/doc.js';
import { SelfMetrics } from '../../src/metrics/self.js';

describe('metric names', () => {
  const served = new Set([...FAMILIES.map((family) => family.name), ...SELF_METRICS.map((metric) => metric.name)]);

  it('serves every metric the contract names', () => {
    expect(CONTRACT_METRIC_NAMES.length).toBeGreaterThan(30);
    expect(new Set(CONTRACT_METRIC_NAMES).size).toBe(CONTRACT_METRIC_NAMES.length);
    expect(CONTRACT_METRIC_NAMES.filter((name) => !served.has(name))).toEqual([]);
  });

  it('serves the names of the contract draft under their documented new names', () => {
    expect([...servedContractNames(Object.keys(CONTRACT_RENAMES))].filter((name) => !served.has(name))).toEqual([]);
    for (const [draft, now] of Object.entries(CONTRACT_RENAMES)) expect(metricsMarkdown()).toContain(`| \`${draft}\` | \`${now}\` |`);
  });

  it('docs/metrics.md is current', () => {
    expect(readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')).toBe(metricsMarkdown());
  });

  it('follows the naming conventions: counters end in _total, info metrics in _info, nothing else does', () => {
    for (const family of FAMILIES) {
      expect(family.name.endsWith('_total'), family.name).toBe(family.type === 'counter');
      expect(family.name.endsWith('_info'), family.name).toBe(family.type === 'info');
      expect(family.name).toMatch(/^routeros_[a-z_]+$/);
    }
  });

  it("documents the exporter's own metrics exactly as prom-client serves them", async () => {
    const text = await new SelfMetrics({ version: 'test' }).render('text');
    const own = [...text.matchAll(/^# HELP (routeros_exporter_\w+) (.*)\n# TYPE \1 (\w+)$/gm)].map(([, name, help, type]) => ({ name, help, type }));
    expect(own.length).toBeGreaterThan(2);
    const documented = SELF_METRICS.map(({ name, help, type }) => ({ name, help, type: type === 'info' ? 'gauge' : type }));
    expect(documented).toEqual(own);
  });
});
