/**
 * The catalog is the one list of collectors: every other place that names them derives from it. A collector added
 * to the catalog must show up in config (names, defaults, schedule checks, unknown-key suggestions), in the
 * scheduler's jobs and in /health's re-evaluation, with nothing else to edit.
 */
import { describe, expect, it } from 'vitest';
import { COLLECTOR_DESCRIPTORS, COLLECTOR_NAMES } from '../../src/collectors/descriptors.js';
import { CATALOG, collectors, jobsFor } from '../../src/collectors/catalog.js';
import { COLLECTOR_NAMES as CONFIG_NAMES } from '../../src/config/types.js';
import { DEFAULT_COLLECTORS, DEFAULT_SCHEDULES } from '../../src/config/defaults.js';
import { BASE, problemsOf } from '../config/helpers.js';
import { testRouter } from '../helpers/config.js';

describe('collector catalog', () => {
  it('has one runtime entry per descriptor, under its own name, carrying the descriptor', () => {
    expect(Object.keys(CATALOG).sort()).toEqual([...COLLECTOR_NAMES].sort());
    for (const descriptor of COLLECTOR_DESCRIPTORS) {
      expect(CATALOG[descriptor.name]).toMatchObject(descriptor);
    }
    expect(collectors().map((collector) => collector.name)).toEqual(COLLECTOR_NAMES);
  });

  it('is where config takes its names, default on/off states and default schedules from', () => {
    expect(CONFIG_NAMES).toEqual(COLLECTOR_NAMES);
    for (const descriptor of COLLECTOR_DESCRIPTORS) {
      expect(DEFAULT_COLLECTORS[descriptor.name]).toBe(descriptor.defaultEnabled);
      expect(DEFAULT_SCHEDULES[descriptor.name]).toBe(descriptor.defaultSchedule);
    }
    const router = testRouter({ name: 'hq', url: 'https://192.0.2.1', username: 'u', password: 'p' });
    for (const descriptor of COLLECTOR_DESCRIPTORS) {
      expect(router.collectors[descriptor.name]).toBe(descriptor.defaultEnabled);
      expect(router.schedules[descriptor.name]).toBe(descriptor.defaultSchedule);
    }
  });

  it('turns each collector on and off through config, and its jobs carry its schedule', () => {
    for (const descriptor of COLLECTOR_DESCRIPTORS.filter((collector) => collector.jobsPer === 'router')) {
      const on = testRouter({
        name: 'hq',
        url: 'https://192.0.2.1',
        username: 'u',
        password: 'p',
        collectors: { [descriptor.name]: true },
        schedules: { [descriptor.name]: '7 * * * * *' },
      });
      expect(jobsFor(on).find((job) => job.collector === descriptor.name)?.schedule).toBe('7 * * * * *');
      const off = testRouter({ name: 'hq', url: 'https://192.0.2.1', username: 'u', password: 'p', collectors: { [descriptor.name]: false } });
      expect(jobsFor(off).some((job) => job.collector === descriptor.name)).toBe(false);
    }
  });

  it('checks the schedule of every per-router collector against the timeout (none is skipped)', () => {
    const perRouter = COLLECTOR_DESCRIPTORS.filter((collector) => collector.jobsPer === 'router').map((collector) => collector.name);
    for (const name of perRouter) {
      const schedules = Object.fromEntries(perRouter.map((other) => [other, other === name ? '*/5 * * * * *' : '0 * * * * *']));
      const collectorsOn = Object.fromEntries(perRouter.map((other) => [other, true]));
      const problems = problemsOf({
        defaults: BASE.defaults,
        routers: [{ name: 'hq', url: 'https://192.0.2.1', timeout: '30s', collectors: collectorsOn, schedules }],
      });
      expect(problems.map((problem) => problem.message).join('\n'), name).toContain(`schedules.${name}`);
    }
  });
});
