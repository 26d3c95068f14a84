/** Runs promtool, a few at a time, and builds self-contained rule + test file pairs for one rule. */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { AlertRule, LoadedTestFile, RecordingRule, TestFile, TestGroup } from './rule-files.js';
import { isAlertRule } from './rule-files.js';

export interface PromtoolResult {
  code: number;
  output: string;
}

export function promtool(args: string[], cwd: string): Promise<PromtoolResult> {
  return new Promise((resolve) => {
    execFile('promtool', args, { cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) {
        resolve({ code: 0, output: stdout + stderr });
        return;
      }
      const code = typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}\n${code === -1 ? error.message : ''}` });
    });
  });
}

/** Wraps async jobs so that at most `max` run at once (promtool is CPU-bound; CI has two cores). */
export function limiter(max = Math.max(2, availableParallelism())): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    while (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await job();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}

/** The test groups that exercise `rule`, each cut down to the cases about it. */
export function testGroupsFor(rule: AlertRule | RecordingRule, files: LoadedTestFile[]): TestGroup[] {
  const groups: TestGroup[] = [];
  for (const file of files) {
    for (const group of file.content.tests) {
      if (isAlertRule(rule)) {
        const cases = (group.alert_rule_test ?? []).filter((t) => t.alertname === rule.alert);
        if (cases.length > 0) groups.push({ ...group, alert_rule_test: cases, promql_expr_test: undefined });
      } else {
        const cases = (group.promql_expr_test ?? []).filter((t) => t.expr === rule.record);
        if (cases.length > 0) groups.push({ ...group, promql_expr_test: cases, alert_rule_test: undefined });
      }
    }
  }
  return groups;
}

/**
 * Writes `dir/rules.yml` holding `rule` alone and `dir/tests.yml` holding the cases about it, so one promtool
 * run judges that rule and nothing else (and stays fast: promtool evaluates every loaded rule at every step).
 */
export async function writeIsolatedRule(
  dir: string,
  rule: AlertRule | RecordingRule,
  groups: TestGroup[],
  evaluationInterval: string,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const rules = { groups: [{ name: 'isolated', rules: [rule] }] };
  const tests: TestFile = { rule_files: ['rules.yml'], evaluation_interval: evaluationInterval, tests: groups };
  await writeFile(path.join(dir, 'rules.yml'), stringify(rules));
  await writeFile(path.join(dir, 'tests.yml'), stringify(tests));
}

/** Runs the isolated rule's tests (see writeIsolatedRule). */
export function testIsolatedRule(dir: string): Promise<PromtoolResult> {
  return promtool(['test', 'rules', 'tests.yml'], dir);
}
