/**
 * Typed access to the shipped Prometheus rule files and their promtool unit-test files. Schemas are strict,
 * so a misspelt key (`annotation:`, `exp_label:`) fails loudly instead of being ignored.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PROMETHEUS_DIR = path.join(REPO_ROOT, 'prometheus');
export const ALERTS_FILE = path.join(PROMETHEUS_DIR, 'alerts.yml');
export const RECORDING_FILE = path.join(PROMETHEUS_DIR, 'rules.yml');
export const TESTS_DIR = path.join(PROMETHEUS_DIR, 'tests');
export const RUNBOOK_FILE = path.join(REPO_ROOT, 'docs', 'runbook.md');
/**
 * The metric reference, generated from the exporter's family registry (src/metrics/doc.ts). The rules are
 * checked against it, not against a draft outside the repository: a clone must test with nothing beside it.
 */
export const METRICS_DOC_FILE = path.join(REPO_ROOT, 'docs', 'metrics.md');

/** Every file the rule tests read, to check that none lies outside the repository. */
export const READ_PATHS = [PROMETHEUS_DIR, ALERTS_FILE, RECORDING_FILE, TESTS_DIR, RUNBOOK_FILE, METRICS_DOC_FILE];

const stringMap = z.record(z.string(), z.string());

const alertRuleSchema = z.strictObject({
  alert: z.string(),
  expr: z.string(),
  for: z.string().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
});
const recordingRuleSchema = z.strictObject({
  record: z.string(),
  expr: z.string(),
  labels: stringMap.optional(),
});
const ruleFileSchema = z.strictObject({
  groups: z.array(
    z.strictObject({
      name: z.string(),
      interval: z.string().optional(),
      rules: z.array(z.union([alertRuleSchema, recordingRuleSchema])),
    }),
  ),
});

const alertTestSchema = z.strictObject({
  eval_time: z.string(),
  alertname: z.string(),
  exp_alerts: z
    .array(z.strictObject({ exp_labels: stringMap.optional(), exp_annotations: stringMap.optional() }))
    .optional(),
});
const exprTestSchema = z.strictObject({
  expr: z.string(),
  eval_time: z.string(),
  exp_samples: z.array(z.strictObject({ labels: z.string(), value: z.number() })).optional(),
});
const testGroupSchema = z.strictObject({
  name: z.string().optional(),
  interval: z.string().optional(),
  input_series: z.array(z.strictObject({ series: z.string(), values: z.string() })).optional(),
  alert_rule_test: z.array(alertTestSchema).optional(),
  promql_expr_test: z.array(exprTestSchema).optional(),
});
const testFileSchema = z.strictObject({
  rule_files: z.array(z.string()),
  evaluation_interval: z.string().optional(),
  tests: z.array(testGroupSchema),
});

export type AlertRule = z.infer<typeof alertRuleSchema>;
export type RecordingRule = z.infer<typeof recordingRuleSchema>;
export type RuleFile = z.infer<typeof ruleFileSchema>;
export type TestGroup = z.infer<typeof testGroupSchema>;
export type TestFile = z.infer<typeof testFileSchema>;

export function isAlertRule(rule: AlertRule | RecordingRule): rule is AlertRule {
  return 'alert' in rule;
}

export function loadRuleFile(file: string): RuleFile {
  return ruleFileSchema.parse(parse(readFileSync(file, 'utf8')));
}

export function alertRules(file: RuleFile): AlertRule[] {
  return file.groups.flatMap((g) => g.rules.filter(isAlertRule));
}

export function recordingRules(file: RuleFile): RecordingRule[] {
  return file.groups.flatMap((g) => g.rules.filter((r): r is RecordingRule => !isAlertRule(r)));
}

export interface LoadedTestFile {
  path: string;
  content: TestFile;
}

export function loadTestFiles(): LoadedTestFile[] {
  return readdirSync(TESTS_DIR)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => {
      const file = path.join(TESTS_DIR, f);
      return { path: file, content: testFileSchema.parse(parse(readFileSync(file, 'utf8'))) };
    });
}

/** Prometheus duration (`90s`, `5m`, `1h30m`) in seconds. */
export function durationSeconds(text: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ''] ?? Number.NaN), 0);
}
