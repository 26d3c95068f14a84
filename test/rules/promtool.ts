/** Runs promtool, a few at a time, and builds self-contained rule + test file pairs for one rule. */
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { AlertRule, LoadedTestFile, RecordingRule, TestFile, TestGroup } from './rule-files.js';
import { durationSeconds, isAlertRule } from './rule-files.js';

export interface PromtoolResult {
  code: number;
  output: string;
}

export function promtool(args: string[], cwd: string): Promise<PromtoolResult> {
  return new Promise((resolve) => {
    // The timeout is for a promtool that hangs, not a slow one: a loaded 2-core machine took one test file past 60 s.
    execFile('promtool', args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
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

/** A group evaluated past this many minutes (a day of a rule's windows): ~1 s of promtool each at 1 m steps. */
const LONG_GROUP_MINUTES = 6 * 60;

/** Whether a test group runs its rules for long: every step evaluates day-long windows, so its cost is quadratic. */
export function isLongGroup(group: TestGroup): boolean {
  const times = [...(group.alert_rule_test ?? []), ...(group.promql_expr_test ?? [])].map((t) => durationSeconds(t.eval_time));
  return times.some((seconds) => seconds > LONG_GROUP_MINUTES * 60);
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

/**
 * Runs promtool with its standard output and error into one file, in the order written: `test rules` prints a
 * file's name on one and its failures on the other.
 */
function promtoolInterleaved(args: string[], cwd: string, logFile: string): Promise<PromtoolResult> {
  const fd = openSync(logFile, 'w');
  return new Promise<PromtoolResult>((resolve) => {
    // A batch takes ~20-40 s on a 2-core machine; a loaded one took past 60 s, and the kill cut the last file's
    // section short, which then read as a mutation promtool did not notice.
    const child = spawn('promtool', args, { cwd, stdio: ['ignore', fd, fd], timeout: 240_000 });
    let finished = false;
    const done = (code: number): void => {
      // 'error' (promtool missing) may be followed by 'close'.
      if (finished) return;
      finished = true;
      closeSync(fd);
      resolve({ code, output: readFileSync(logFile, 'utf8') });
    };
    child.once('error', () => done(-1));
    child.once('close', (code) => done(code ?? -1));
  });
}

/**
 * Runs the isolated rules' tests (see writeIsolatedRule), each folder's result apart, in as many promtool runs
 * as there are cores: one run per folder cost the suite ~0.3 s of CPU each (160 folders, 50 s), most of it
 * promtool starting. promtool judges each test file on its own and prints its verdict under `Unit Testing:
 * <file>`; a folder whose section is missing (promtool stopped) gets the whole run's output and code -1.
 */
export async function testIsolatedRules(dirs: readonly string[], cwd: string): Promise<PromtoolResult[]> {
  const runs = Math.max(1, Math.min(availableParallelism(), dirs.length));
  const batches = Array.from({ length: runs }, (_, run) => dirs.filter((_dir, index) => index % runs === run));
  const results = new Map<string, PromtoolResult>();
  await Promise.all(
    batches.map(async (batch, index) => {
      const files = batch.map((dir) => path.join(path.relative(cwd, dir), 'tests.yml'));
      const run = await promtoolInterleaved(['test', 'rules', ...files], cwd, path.join(cwd, `batch-${index}.log`));
      const sections = run.output.split(/^Unit Testing:[ \t]+/m).slice(1);
      for (const [at, section] of sections.entries()) {
        const file = section.slice(0, section.indexOf('\n')).trim();
        // The last section of a run that was stopped (its timeout) may be cut short: no verdict of its own.
        if (at === sections.length - 1 && run.code !== 0 && run.code !== 1) continue;
        const failed = section.includes('FAILED') || !section.includes('SUCCESS');
        results.set(file, { code: failed ? 1 : 0, output: section });
      }
      // No verdict of its own (promtool stopped before it): not proof of anything. The whole run's output held other
      // files' failures, and a mutation promtool had not noticed read as caught (found by review).
      for (const file of files) if (!results.has(file)) results.set(file, { code: -1, output: `no verdict of its own: promtool stopped (code ${String(run.code)})` });
    }),
  );
  return dirs.map((dir) => results.get(path.join(path.relative(cwd, dir), 'tests.yml')) ?? { code: -1, output: 'no result' });
}
