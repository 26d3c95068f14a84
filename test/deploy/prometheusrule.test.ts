/**
 * The Kubernetes PrometheusRule embeds prometheus/rules.yml and prometheus/alerts.yml, and is current.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  PROMETHEUS_RULE_PATH,
  RULE_SOURCES,
  buildPrometheusRule,
  renderPrometheusRule,
  ruleGroups,
} from '../../scripts/dashboards/prometheusrule.js';
import { repoRoot } from '../dashboards/shipped.js';

const committed = readFileSync(join(repoRoot, PROMETHEUS_RULE_PATH), 'utf8');

it('is what the generator makes from the rule files as they are now', () => {
  expect(committed, 'stale: run `npx tsx scripts/dashboards/generate.ts` and commit the result').toBe(
    renderPrometheusRule(repoRoot),
  );
});

it('embeds every group of the shipped rule files, rule for rule', () => {
  const manifest = parse(committed) as { kind: string; apiVersion: string; spec: { groups: unknown[] } };
  expect(manifest.kind).toBe('PrometheusRule');
  expect(manifest.apiVersion).toBe('monitoring.coreos.com/v1');
  const sources = RULE_SOURCES.filter((path) => existsSync(join(repoRoot, path)));
  const expected = sources.flatMap((path) => ruleGroups(path, readFileSync(join(repoRoot, path), 'utf8')));
  expect(manifest.spec.groups).toEqual(expected);
});

describe('buildPrometheusRule', () => {
  const rules = 'groups:\n  - name: a\n    rules:\n      - record: x:y\n        expr: sum(x)\n';
  it('names a missing source in its header and embeds the others', () => {
    const text = buildPrometheusRule([
      { path: 'r.yml', text: rules },
      { path: 'alerts.yml', text: undefined },
    ]);
    expect(text).toContain('# alerts.yml did not exist');
    expect((parse(text) as { spec: { groups: { name: string }[] } }).spec.groups.map((g) => g.name)).toEqual(['a']);
  });
  it('refuses a group defined twice and a file without groups', () => {
    const twice = [
      { path: 'r.yml', text: rules },
      { path: 's.yml', text: rules },
    ];
    expect(() => buildPrometheusRule(twice)).toThrow(/defined twice/);
    expect(() => buildPrometheusRule([{ path: 'r.yml', text: 'rules: []' }])).toThrow(/no top-level groups/);
  });
});
