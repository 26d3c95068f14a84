/**
 * The shipped Prometheus rules: promtool accepts them and their unit tests pass; the unit tests bite (every
 * alert and record, deliberately broken, makes them fail); and the rules follow the house conventions and
 * use only metrics from the contract.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutationsFor } from './mutations.js';
import {
  documentedMetricNames,
  markdownAnchors,
  metricNames,
  templateQueries,
  templateQueryCalls,
} from './promql.js';
import type { PromtoolResult } from './promtool.js';
import { isLongGroup, limiter, promtool, testGroupsFor, testIsolatedRules, writeIsolatedRule } from './promtool.js';
import type { AlertRule, RecordingRule } from './rule-files.js';
import {
  ALERTS_FILE,
  METRICS_DOC_FILE,
  READ_PATHS,
  RECORDING_FILE,
  REPO_ROOT,
  RUNBOOK_FILE,
  alertRules,
  durationSeconds,
  isAlertRule,
  loadRuleFile,
  loadTestFiles,
  recordingRules,
} from './rule-files.js';

const alerts = alertRules(loadRuleFile(ALERTS_FILE));
const records = recordingRules(loadRuleFile(RECORDING_FILE));
const rules: (AlertRule | RecordingRule)[] = [...alerts, ...records];
const testFiles = loadTestFiles();
const mutations = mutationsFor(rules).map((m, index) => ({ ...m, index }));
const nameOf = (rule: AlertRule | RecordingRule): string => (isAlertRule(rule) ? rule.alert : rule.record);

let workDir = '';
let checkResult: PromtoolResult;
let testResult: PromtoolResult;
let baselineResults: PromtoolResult[] = [];
let mutationResults: PromtoolResult[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'routeros-rules-'));
  const intervals = new Set(testFiles.map((f) => f.content.evaluation_interval ?? '1m'));
  expect(intervals.size, 'all test files share one evaluation_interval').toBe(1);
  const interval = [...intervals][0] ?? '1m';
  const run = limiter();
  const byName = new Map(rules.map((r) => [nameOf(r), r]));
  const isolated = async (dir: string, rule: AlertRule | RecordingRule, groups = testGroupsFor(rule, testFiles)): Promise<string> => {
    await writeIsolatedRule(path.join(workDir, dir), rule, groups, interval);
    return path.join(workDir, dir);
  };
  const mutated = mutations.map((m) => {
    const rule = byName.get(m.rule);
    if (rule === undefined) throw new Error(`no rule ${m.rule}`);
    const groups = testGroupsFor(rule, testFiles);
    const short = groups.filter((group) => !isLongGroup(group));
    return { index: m.index, rule: m.apply(rule), groups, short: short.length > 0 && short.length < groups.length ? short : groups };
  });
  const baselineDirs = await Promise.all(rules.map((rule, i) => isolated(`baseline-${i}`, rule)));
  // A mutation is first tried against its rule's short groups; only one they miss gets the day-long ones too:
  // those evaluate a day of windows at every step, and ran for most of this file's time with every mutation.
  const mutationDirs = await Promise.all(mutated.map((m) => isolated(`mutation-${m.index}`, m.rule, m.short)));
  // A run per test file, on as many cores as there are: one run of all of them took ~45 s of one core, and past its
  // timeout on a loaded 2-core machine (the file with the day-long groups is most of it).
  const fileResults = await Promise.all(testFiles.map((f) => run(() => promtool(['test', 'rules', f.path], REPO_ROOT))));
  testResult = {
    code: fileResults.find((result) => result.code !== 0)?.code ?? 0,
    output: fileResults.map((result) => result.output).join('\n'),
  };
  checkResult = await run(() => promtool(['check', 'rules', ALERTS_FILE, RECORDING_FILE], REPO_ROOT));
  const isolatedResults = await testIsolatedRules([...baselineDirs, ...mutationDirs], workDir);
  baselineResults = isolatedResults.slice(0, baselineDirs.length);
  mutationResults = isolatedResults.slice(baselineDirs.length);
  const missed = mutated.filter((m) => m.short !== m.groups && !isCaught(mutationResults[m.index]));
  const again = await Promise.all(missed.map((m) => isolated(`mutation-${m.index}-all`, m.rule, m.groups)));
  const retried = again.length === 0 ? [] : await testIsolatedRules(again, workDir);
  for (const [at, result] of retried.entries()) mutationResults[missed[at]?.index ?? -1] = result;
  console.log(`promtool mutations: ${mutated.length}, ${mutated.filter((m) => m.short !== m.groups).length} tried first without their rule's day-long groups, ${missed.length} of those tried again with them`);
}, 300_000);

/** A promtool run that failed on an expectation, not on a rule or file it could not load. */
function isCaught(result: PromtoolResult | undefined): boolean {
  return result !== undefined && result.code !== 0 && /\bexp:[\s\S]*\bgot:/.test(result.output);
}

afterAll(async () => {
  if (workDir !== '') await rm(workDir, { recursive: true, force: true });
});

describe('promtool', () => {
  it('check rules accepts alerts.yml and rules.yml', () => {
    expect(checkResult.code, checkResult.output).toBe(0);
    expect(checkResult.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(checkResult.output).toContain(`SUCCESS: ${records.length} rules found`);
  });

  it('test rules passes every test file', () => {
    expect(testFiles.length).toBeGreaterThan(0);
    expect(testResult.code, testResult.output).toBe(0);
    expect(testResult.output).not.toContain('FAILED');
    // Each file judged, by its own run.
    for (const file of testFiles) expect(testResult.output).toMatch(new RegExp(`Unit Testing: +${file.path.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+SUCCESS`));
  });
});

describe('mutation test: broken rules make the unit tests fail', () => {
  it.each(rules.map((rule, i) => ({ name: nameOf(rule), i })))(
    'the tests of $name alone pass on the unmutated rule',
    ({ i }) => {
      const result = baselineResults[i];
      expect(result?.code, result?.output).toBe(0);
    },
  );

  it.each(mutations)('$rule with $what is caught', ({ index }) => {
    const result = mutationResults[index];
    expect(result?.code, `promtool did not notice:\n${result?.output ?? ''}`).not.toBe(0);
    // A failed expectation, not a rule or file that promtool could not load.
    expect(result?.output).toMatch(/\bexp:[\s\S]*\bgot:/);
  });

  it('tries a mutation against the day-long groups only when the short ones miss it', () => {
    const groups = testFiles.flatMap((f) => f.content.tests);
    // The split is real: both kinds exist, and the files' slowest group is a long one.
    expect(groups.filter(isLongGroup).length).toBeGreaterThan(0);
    expect(groups.filter((group) => !isLongGroup(group)).length).toBeGreaterThan(groups.filter(isLongGroup).length);
    expect(isLongGroup({ name: 'a day', alert_rule_test: [{ eval_time: '1480m', alertname: 'X' }] })).toBe(true);
    expect(isLongGroup({ name: 'an hour', alert_rule_test: [{ eval_time: '60m', alertname: 'X' }], promql_expr_test: [{ expr: 'x', eval_time: '2h' }] })).toBe(false);
  });
});

describe('rule lint', () => {
  const contract = documentedMetricNames(readFileSync(METRICS_DOC_FILE, 'utf8'));
  const recorded = new Set(records.map((r) => r.record));
  const runbook = readFileSync(RUNBOOK_FILE, 'utf8');
  const anchors = markdownAnchors(runbook);
  const runbookBase = 'https://github.com/routeros-exporter/routeros-exporter/blob/main/docs/runbook.md#';
  /** Series Prometheus makes itself: a target's `up`, and `ALERTS` (an alert held only while it fires). */
  const PROMETHEUS_OWN = new Set(['up', 'ALERTS']);
  const unknownMetrics = (expr: string): string[] =>
    metricNames(expr).filter((n) => !contract.has(n) && !recorded.has(n) && !PROMETHEUS_OWN.has(n) && !/^(process|nodejs)_/.test(n));

  it('reads the served metric names from docs/metrics.md, inside the repository', () => {
    expect(contract.has('routeros_up')).toBe(true);
    expect(contract.has('routeros_wireguard_peer_healthy')).toBe(true);
    expect(contract.has('routeros_exporter_build_info')).toBe(true);
    // A name of the contract draft that is served under another name is not a served name.
    expect(contract.has('routeros_system_cpu_count')).toBe(false);
    expect(contract.size).toBeGreaterThan(30);
    // A fresh clone has nothing beside it: no file these tests read may lie outside the repository.
    for (const file of READ_PATHS) expect(path.relative(REPO_ROOT, file), file).not.toMatch(/^\.\.(?:[/\\]|$)/);
  });

  it('extracts metric names from PromQL, not functions, labels, keywords or durations', () => {
    const expr = 'sum without (a, b) (rate(foo_total{x="y{z}"}[5m] offset 1h)) > 0.5 and on (c) bar:baz:rate5m == bool 1e3';
    expect(metricNames(expr)).toEqual(['bar:baz:rate5m', 'foo_total']);
    expect(metricNames('time() - last_over_time(ts[1d:1m]) unless ignoring(i) group_left(j) k')).toEqual(['k', 'ts']);
  });

  it('gives every alert a CamelCase RouterOS name, a for, a severity, a summary, a description and a runbook', () => {
    const problems: string[] = [];
    const names = new Set<string>();
    for (const a of alerts) {
      const p = (msg: string): number => problems.push(`${a.alert}: ${msg}`);
      if (!/^RouterOS(?:[A-Z][a-z0-9]*)+$/.test(a.alert)) p('name is not CamelCase with the RouterOS prefix');
      if (names.has(a.alert)) p('name used twice');
      names.add(a.alert);
      if (a.for === undefined || !(durationSeconds(a.for) > 0)) p('needs a for: longer than 0');
      if (!['critical', 'warning', 'info'].includes(a.labels?.severity ?? '')) p('severity not critical/warning/info');
      if (!a.annotations?.summary) p('no summary');
      if (!a.annotations?.description?.includes('$labels.')) p('description does not name what is affected');
      const anchor = a.alert.toLowerCase();
      if (a.annotations?.runbook_url !== runbookBase + anchor) p(`runbook_url is not ${runbookBase}${anchor}`);
      if (!anchors.has(anchor)) p(`docs/runbook.md has no section #${anchor}`);
    }
    expect(problems).toEqual([]);
  });

  it('states no for: duration in a description, since a user may tune it', () => {
    // Template actions (queries, with their own windows) are left out; the prose is what a reader takes as fact.
    const forPhrase = /\bfor\s+(?:more\s+than\s+|over\s+|at\s+least\s+|longer\s+than\s+)?\d+\s*(?:s|m|h|d|seconds?|minutes?|hours?|days?)\b/i;
    const problems = alerts
      .map((a) => ({ a, prose: (a.annotations?.description ?? '').replace(/\{\{[\s\S]*?\}\}/g, ' ') }))
      .filter(({ prose }) => forPhrase.test(prose))
      .map(({ a, prose }) => `${a.alert}: ${forPhrase.exec(prose)?.[0] ?? ''}`);
    expect(problems).toEqual([]);
    expect(forPhrase.test('has failed for more than 5 minutes'), 'the check itself').toBe(true);
  });

  it('uses only metrics of the contract, in expressions and in annotation queries', () => {
    const problems: string[] = [];
    for (const a of alerts) {
      const bad = unknownMetrics(a.expr);
      if (bad.length > 0) problems.push(`${a.alert} expr: ${bad.join(', ')}`);
      for (const [key, text] of Object.entries(a.annotations ?? {})) {
        const queries = templateQueries(text);
        if (queries.length !== templateQueryCalls(text)) problems.push(`${a.alert} ${key}: write queries as printf \`...\``);
        const badInQueries = queries.flatMap(unknownMetrics);
        if (badInQueries.length > 0) problems.push(`${a.alert} ${key}: ${badInQueries.join(', ')}`);
      }
    }
    for (const r of records) {
      const bad = unknownMetrics(r.expr).filter((n) => n !== r.record);
      if (bad.length > 0) problems.push(`${r.record}: ${bad.join(', ')}`);
    }
    for (const file of testFiles) {
      for (const series of file.content.tests.flatMap((g) => g.input_series ?? [])) {
        const bad = unknownMetrics(series.series);
        if (bad.length > 0) problems.push(`${path.basename(file.path)} input series: ${bad.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names recording rules level:metric:operations after a contract metric', () => {
    const problems = records
      .filter((r) => !/^[a-z_]+:routeros_[a-z0-9_]+:[a-z0-9_]+$/.test(r.record) || r.record.includes('_total:'))
      .map((r) => r.record);
    expect(problems).toEqual([]);
    expect(new Set(records.map((r) => r.record)).size).toBe(records.length);
  });

  it('tests every alert firing, not yet firing and without data, with exact labels and annotations', () => {
    const problems: string[] = [];
    const groups = testFiles.flatMap((f) => f.content.tests);
    for (const a of alerts) {
      const p = (msg: string): number => problems.push(`${a.alert}: ${msg}`);
      // ALERTS is Prometheus' own record of the rules' alerts: no test feeds it.
      const metrics = new Set(metricNames(a.expr).filter((n) => n !== 'ALERTS'));
      const cases = groups.flatMap((g) =>
        (g.alert_rule_test ?? [])
          .filter((t) => t.alertname === a.alert)
          .map((t) => {
            const present = new Set((g.input_series ?? []).flatMap((s) => metricNames(s.series)));
            // With data: every metric of the expression has series; absent: at least one has none.
            return { t, hasData: [...metrics].every((n) => present.has(n)) };
          }),
      );
      const firing = cases.filter((c) => (c.t.exp_alerts ?? []).length > 0);
      if (firing.length === 0) p('no firing case');
      if (!cases.some((c) => c.hasData && (c.t.exp_alerts ?? []).length === 0)) p('no case with data that must not fire');
      if (!cases.some((c) => !c.hasData && (c.t.exp_alerts ?? []).length === 0)) p('no absent-data case');
      for (const e of firing.flatMap((c) => c.t.exp_alerts ?? [])) {
        if (e.exp_labels?.severity !== a.labels?.severity) p('a firing case does not expect the severity');
        for (const key of ['summary', 'description', 'runbook_url']) {
          if (!e.exp_annotations?.[key]) p(`a firing case does not expect the ${key}`);
        }
      }
    }
    for (const r of records) {
      const cases = groups.flatMap((g) => g.promql_expr_test ?? []).filter((t) => t.expr === r.record);
      if (!cases.some((t) => (t.exp_samples ?? []).length > 0)) problems.push(`${r.record}: no promql_expr_test`);
    }
    expect(problems).toEqual([]);
  });

  it('lists every alert in the runbook table with its severity and for, and documents no other', () => {
    const problems: string[] = [];
    const rows = runbook.split('\n').filter((l) => l.startsWith('|'));
    for (const a of alerts) {
      const cells = rows
        .map((r) => r.split('|').map((c) => c.trim()))
        .find((c) => c[1] === `[${a.alert}](#${a.alert.toLowerCase()})`);
      if (cells === undefined) problems.push(`${a.alert}: no table row`);
      else if (cells[2] !== a.labels?.severity || cells[3] !== a.for) problems.push(`${a.alert}: row says ${cells[2]}, ${cells[3]}`);
    }
    const documented = [...runbook.matchAll(/^#{2,3} (RouterOS\w+)\s*$/gm)].map((m) => m[1]);
    expect(documented.filter((d) => !alerts.some((a) => a.alert === d))).toEqual([]);
    expect(problems).toEqual([]);
  });
});
