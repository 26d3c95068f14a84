/**
 * The exporter goes away: no router alert may fire because every series it served went stale at once
 * (issue 11.9). prometheus/tests/stale.yml holds the fleet and the shipped alerts' expectations with
 * Prometheus' staleness markers; this suite checks that fixture and then judges the alert *expressions*
 * (every alert at `for: 0s`, so whatever `for:` a user sets), in two variants:
 * - markers: the series end with `stale`, as when scrapes of a live Prometheus fail. No router alert's
 *   condition may hold at any minute after the stop.
 * - ended: the series just end (no markers: Prometheus restarted meanwhile), so instant selectors keep the
 *   last sample for the 5-minute lookback. The stop may create no condition that did not hold right before
 *   it, and none may hold after the lookback.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { PromtoolResult } from './promtool.js';
import { limiter, promtool } from './promtool.js';
import type { TestFile, TestGroup } from './rule-files.js';
import { ALERTS_FILE, TESTS_DIR, alertRules, durationSeconds, loadRuleFile, loadTestFiles } from './rule-files.js';
import { expandValues, withoutFinalStale } from './series.js';

const EXPORTER_DOWN = 'RouterOSExporterDown';
/**
 * Alerts on Prometheus' own `up`, not on what the exporter served: when the exporter's own target fails, the first
 * fires and the second (a router's /probe target) must not.
 */
const PROBE_FAILING = 'RouterOSProbeFailing';
/** About the exporters of a job as a whole (its shards, or none discovered): silent when the exporter's target fails. */
const SHARD_MISSING = 'RouterOSExporterShardMissing';
/** Prometheus' default lookback delta, in minutes (steps of the fixture). */
const LOOKBACK = 5;

const staleFile = loadTestFiles().find((f) => path.basename(f.path) === 'stale.yml');
if (staleFile === undefined) throw new Error(`${TESTS_DIR}/stale.yml is missing`);
const [group] = staleFile.content.tests;
if (group === undefined || staleFile.content.tests.length !== 1) throw new Error('stale.yml must hold one test group');
const inputs = group.input_series ?? [];
const alerts = alertRules(loadRuleFile(ALERTS_FILE));
const routerAlerts = alerts.filter((a) => a.alert !== EXPORTER_DOWN && a.alert !== PROBE_FAILING && a.alert !== SHARD_MISSING);

const up = inputs.find((s) => s.series.startsWith('up{'));
const served = inputs.filter((s) => s !== up);
const upSteps = expandValues(up?.values ?? '');
/** First step without the exporter (its scrapes fail), the last step with it, and the last step tested. */
const stopStep = upSteps.indexOf(0);
const lastScrape = stopStep - 1;
const end = upSteps.length - 1;
const minutes = (step: number): string => `${step}m`;
const eachAlert = (name: string): string => `ALERTS{alertname="${name}"}`;

/** Every alert at `for: 0s` and without annotations: an alert fires exactly when its expression holds. */
function conditionRules(): string {
  const rules = alerts.map((a) => ({ alert: a.alert, expr: a.expr, for: '0s', labels: a.labels ?? {} }));
  return stringify({ groups: [{ name: 'conditions', rules }] });
}

function testFile(ruleFile: string, groupOf: Omit<TestGroup, 'interval' | 'input_series'>, ended: boolean): TestFile {
  const series = inputs.map((s) => (ended ? { ...s, values: withoutFinalStale(s.values) } : s));
  return {
    rule_files: [ruleFile],
    evaluation_interval: staleFile?.content.evaluation_interval ?? '1m',
    tests: [{ interval: group?.interval ?? '1m', input_series: series, ...groupOf }],
  };
}

const exporterDownFires = {
  expr: `group by (alertname) (${eachAlert(EXPORTER_DOWN)})`,
  eval_time: minutes(end),
  exp_samples: [{ labels: `{alertname="${EXPORTER_DOWN}"}`, value: 1 }],
};
/**
 * The exporter's own target is not a router's probe target, and a failing one is no missing shard: neither
 * RouterOSProbeFailing nor RouterOSExporterShardMissing holds at any minute after the stop.
 */
const exporterAlertsSilent = [PROBE_FAILING, SHARD_MISSING].map((name) => ({ expr: `max_over_time(${eachAlert(name)}[${end - stopStep}m])`, eval_time: minutes(end), exp_samples: [] }));

const runs = {
  /** Right before the stop, the condition of every router alert holds somewhere in the fleet. */
  live: testFile('conditions.yml', {
    promql_expr_test: [
      {
        expr: 'group by (alertname) (ALERTS)',
        eval_time: minutes(lastScrape),
        exp_samples: routerAlerts.map((a) => ({ labels: `{alertname="${a.alert}"}`, value: 1 })),
      },
    ],
  }, false),
  markers: testFile('conditions.yml', {
    promql_expr_test: [
      ...routerAlerts.flatMap((a) => [
        // The first minute on its own too: where range selectors are left-open (Prometheus 3), the window
        // below starts just after it.
        { expr: eachAlert(a.alert), eval_time: minutes(stopStep), exp_samples: [] },
        { expr: `max_over_time(${eachAlert(a.alert)}[${end - stopStep}m])`, eval_time: minutes(end), exp_samples: [] },
      ]),
      exporterDownFires,
      ...exporterAlertsSilent,
    ],
  }, false),
  ended: testFile('conditions.yml', {
    promql_expr_test: [
      ...routerAlerts.flatMap((a) => [
        // During the lookback: only conditions that already held at the last scrape.
        {
          expr: `${eachAlert(a.alert)} unless ${eachAlert(a.alert)} offset 1m`,
          eval_time: minutes(stopStep),
          exp_samples: [],
        },
        {
          expr: `max_over_time(${eachAlert(a.alert)}[${LOOKBACK - 1}m]) unless ${eachAlert(a.alert)} offset ${LOOKBACK}m`,
          eval_time: minutes(lastScrape + LOOKBACK),
          exp_samples: [],
        },
        {
          expr: `max_over_time(${eachAlert(a.alert)}[${end - (lastScrape + LOOKBACK + 1)}m])`,
          eval_time: minutes(end),
          exp_samples: [],
        },
      ]),
      exporterDownFires,
      ...exporterAlertsSilent,
    ],
  }, true),
  /** The shipped rules and stale.yml's own expectations from the end of the lookback on. */
  endedShipped: testFile(ALERTS_FILE, {
    alert_rule_test: (group.alert_rule_test ?? []).filter(
      (t) => durationSeconds(t.eval_time) / 60 > lastScrape + LOOKBACK,
    ),
  }, true),
};

let workDir = '';
const results = new Map<keyof typeof runs, PromtoolResult>();

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'routeros-stale-'));
  await writeFile(path.join(workDir, 'conditions.yml'), conditionRules());
  const run = limiter(2);
  await Promise.all(
    (Object.keys(runs) as (keyof typeof runs)[]).map((name) =>
      run(async () => {
        await writeFile(path.join(workDir, `${name}.yml`), stringify(runs[name]));
        results.set(name, await promtool(['test', 'rules', `${name}.yml`], workDir));
      }),
    ),
  );
}, 60_000);

afterAll(async () => {
  if (workDir !== '') await rm(workDir, { recursive: true, force: true });
});

const expectPass = (name: keyof typeof runs): void => {
  const result = results.get(name);
  expect(result?.code, result?.output).toBe(0);
};

describe('the fixture', () => {
  it('stops every served series at once, while up turns 0 and stays there', () => {
    expect(stopStep).toBeGreaterThan(LOOKBACK);
    expect(upSteps.slice(0, stopStep).every((v) => v === 1)).toBe(true);
    expect(upSteps.slice(stopStep).every((v) => v === 0)).toBe(true);
    const ends = served.map((s) => ({ series: s.series, steps: expandValues(s.values) }));
    for (const { series, steps } of ends) {
      // Each ends with one marker, at the stop or (a series the router dropped earlier) before it.
      expect(steps.at(-1), series).toBe('stale');
      expect(steps.indexOf('stale'), series).toBe(steps.length - 1);
      expect(steps.length - 1, series).toBeLessThanOrEqual(stopStep);
    }
    expect(ends.filter((e) => e.steps.length - 1 === stopStep).length).toBeGreaterThan(ends.length / 2);
  });

  it('goes on past the longest range plus the longest for: of any router alert', () => {
    const ranges = routerAlerts.flatMap((a) => [...a.expr.matchAll(/\[(\w+)\]/g)].map((m) => durationSeconds(m[1] ?? '')));
    const fors = routerAlerts.map((a) => durationSeconds(a.for ?? '0s'));
    expect((end - lastScrape) * 60).toBeGreaterThanOrEqual(Math.max(...ranges) + Math.max(...fors));
  });

  it('expects every alert after the stop: no router alert right after it and at the end, RouterOSExporterDown firing', () => {
    const cases = group.alert_rule_test ?? [];
    const at = (name: string, step: number): typeof cases =>
      cases.filter((t) => t.alertname === name && durationSeconds(t.eval_time) === step * 60);
    for (const a of routerAlerts) {
      for (const step of [stopStep, lastScrape + LOOKBACK + 1, end]) {
        expect(at(a.alert, step).map((t) => t.exp_alerts ?? []), `${a.alert} at ${step}m`).toEqual([[]]);
      }
    }
    expect(at(EXPORTER_DOWN, end)[0]?.exp_alerts?.length).toBe(1);
  });

  it('holds the condition of every router alert right before the stop, so every guard is exercised', () => {
    expectPass('live');
  });
});

describe('alert conditions after the stop, whatever for:', () => {
  it('with staleness markers: none holds at any minute after the stop; RouterOSExporterDown does', () => {
    expectPass('markers');
  });

  it('with series that just end: none appears during the lookback, none holds after it', () => {
    expectPass('ended');
  });
});

it('with series that just end, the shipped alerts meet stale.yml from the end of the lookback on', () => {
  expectPass('endedShipped');
});
