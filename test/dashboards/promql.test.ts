/**
 * The small PromQL readers the asset tests rely on.
 */
import { expect, it } from 'vitest';
import { callArguments, isBalanced, metricNames, rangeSelectors } from '../../scripts/dashboards/promql.js';

it('finds metric names, not functions, aggregations, keywords, labels or strings', () => {
  const expr =
    'sum by (router) (rate(routeros_a_total{router=~"x", name="up"}[5m])) * on (job, instance) group_left (version) ' +
    'routeros_b_info or vector(0) unless up == bool 1 and ns:rule:rate5m offset 5m';
  expect(metricNames(expr)).toEqual(['routeros_a_total', 'routeros_b_info', 'up', 'ns:rule:rate5m']);
  expect(metricNames('topk(10, (rate(a[1m]) + rate(b[1m])) * 8)')).toEqual(['a', 'b']);
  expect(metricNames('quantile_over_time(0.95, (sum without (x) (c))[1d:5m]) > 1e3')).toEqual(['c']);
});

it('extracts call arguments with nested parentheses', () => {
  expect(callArguments('1 - rate(a{b="(x"}[1m]) / irate(c[2m])', 'rate')).toEqual(['a{b="(x"}[1m]']);
  expect(callArguments('sum(rate((a)[5m:1m]))', 'rate')).toEqual(['(a)[5m:1m]']);
  expect(callArguments('quantile_over_time(0.9, x[1d])', 'rate')).toEqual([]);
});

it('lists range selectors', () => {
  expect(rangeSelectors('rate(a[$__rate_interval]) + b[5m:1m]')).toEqual(['$__rate_interval', '5m:1m']);
});

it('checks brackets', () => {
  expect(isBalanced('sum(rate(a{b="}"}[1m]))')).toBe(true);
  expect(isBalanced('sum(rate(a[1m])')).toBe(false);
  expect(isBalanced('a{b="x"]')).toBe(false);
});
