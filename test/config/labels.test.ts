/** `labels:`: merged over defaults key by key, names checked against Prometheus and the exporter's own labels. */
import { describe, expect, it } from 'vitest';
import { labelNameProblem } from '../../src/config/labels.js';
import { EXPORTER_LABELS, FAMILIES } from '../../src/metrics/families.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { jobFingerprint } from '../../src/scheduler/definition.js';
import { BASE, firstRouter, problemsOf, resolve } from './helpers.js';

function withLabels(router: unknown, defaults?: unknown): unknown {
  return {
    defaults: defaults === undefined ? BASE.defaults : { ...BASE.defaults, labels: defaults },
    routers: [{ name: 'hq', url: 'https://192.0.2.1', ...(router === undefined ? {} : { labels: router }) }],
  };
}

describe('labels', () => {
  it('are empty when no layer sets them', () => {
    expect(firstRouter(resolve(BASE)).labels).toEqual({});
  });

  it("merge over defaults.labels key by key, the router's value winning", () => {
    const router = firstRouter(resolve(withLabels({ site: 'lon', rack: 'r1' }, { site: 'ams', env: 'prod' })));
    expect(router.labels).toEqual({ site: 'lon', rack: 'r1', env: 'prod' });
  });

  it('take any UTF-8 text as a value, and plain numbers and booleans as their text', () => {
    const router = firstRouter(resolve(withLabels({ note: 'Zürich "Nord"\nrack ☃', floor: 3, managed: true })));
    expect(router.labels).toEqual({ note: 'Zürich "Nord"\nrack ☃', floor: '3', managed: 'true' });
  });

  it.each([
    ['data-centre', 'is not a Prometheus label name'],
    ['1st', 'is not a Prometheus label name'],
    ['', 'is not a Prometheus label name'],
    ['__name__', 'starts with "__"'],
    ['__x', 'starts with "__"'],
    ['_site', 'starts with "_", which OpenMetrics reserves'],
    ['siteName', 'is camelCase, which promtool check metrics flags; write it in snake_case ("site_name")'],
    ['router', 'is a label the exporter sets itself (on every series)'],
    ['interface', 'is a label the exporter sets itself'],
    ['collector', 'is a label the exporter sets itself (on routeros_collector_success)'],
    ['reason', 'is a label the exporter sets itself (on routeros_collector_errors_total)'],
    ['instance', 'is set by Prometheus on every scraped series'],
    ['job', 'arrive renamed to exported_job'],
  ])('refuse the name %j: %s', (name, message) => {
    const problems = problemsOf(withLabels({ [name]: 'x' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toMatch(/^routers\[0\]\.labels/);
    expect(problems[0]?.message).toContain(message);
  });

  it('refuse in defaults too, reported once at the defaults path', () => {
    const raw = { defaults: { ...BASE.defaults, labels: { public_key: 'x' } }, routers: [...BASE.routers, { name: 'b', url: 'https://192.0.2.2' }] };
    expect(problemsOf(raw)).toEqual([{ path: 'defaults.labels.public_key', message: expect.stringContaining('the exporter sets itself') }]);
  });

  it('refuse values that are empty, nothing, lists or mappings, and a labels value that is not a mapping', () => {
    expect(problemsOf(withLabels({ a: '', b: null, c: [1], d: { e: 1 } })).map((p) => [p.path, p.message.split(' (')[0]])).toEqual([
      ['routers[0].labels.a', 'must not be empty'],
      ['routers[0].labels.b', 'must be text'],
      ['routers[0].labels.c', 'must be text'],
      ['routers[0].labels.d', 'must be text'],
    ]);
    expect(problemsOf(withLabels(['site']))[0]).toMatchObject({ path: 'routers[0].labels', message: expect.stringContaining('must be a mapping') });
  });

  it('reserve every label any family declares, so a new collector is covered without a list to update', () => {
    for (const family of FAMILIES) {
      for (const label of family.labels) {
        expect(EXPORTER_LABELS.has(label)).toBe(true);
        expect(labelNameProblem(label)).toContain('the exporter sets itself');
      }
    }
    expect(labelNameProblem('site')).toBeUndefined();
    expect(labelNameProblem('site_name2')).toBeUndefined();
    expect(labelNameProblem('SITE')).toBeUndefined();
  });

  it("refuse a histogram's le and a summary's quantile: on every series they make promtool flag each family (found by the exposition's generator)", () => {
    for (const name of ['le', 'quantile']) {
      expect(labelNameProblem(name)).toContain("histogram's buckets or a summary's quantiles");
      expect(problemsOf(withLabels({ [name]: 'a' }))).toEqual([{ path: `routers[0].labels.${name}`, message: expect.stringContaining('choose another name') }]);
    }
    expect(labelNameProblem('level')).toBeUndefined();
  });

  it("are part of every job's definition, so a reload that changes them replaces the jobs (and their series)", () => {
    const fingerprints = (labels: unknown): string[] => {
      const router = firstRouter(resolve(withLabels(labels)));
      return jobsFor(router).map((job) => jobFingerprint(router, job));
    };
    const ams = fingerprints({ site: 'ams', rack: 'r1' });
    expect(ams.length).toBeGreaterThan(0);
    expect(fingerprints({ rack: 'r1', site: 'ams' })).toEqual(ams);
    const lon = fingerprints({ site: 'lon', rack: 'r1' });
    lon.forEach((fingerprint, i) => expect(fingerprint).not.toBe(ams[i]));
  });
});
