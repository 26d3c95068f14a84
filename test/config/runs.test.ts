/**
 * runSchedules reads from the config alone (the config layer cannot ask the collectors) what the collector
 * catalog's jobs run on: the two must not drift apart, or the client's keep-alive and the no-runs warning would
 * count runs that do not happen, or miss ones that do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSchedules } from '../../src/config/runs.js';
import { jobsFor } from '../../src/collectors/catalog.js';
import { testRouter } from '../helpers/config.js';

const COLLECTORS = ['system', 'wireguard', 'interface', 'health', 'firmware', 'ping', 'bandwidth_test', 'wireguard_setup'] as const;
const SCHEDULES = ['*/15 * * * * *', '*/30 * * * * *', '0 * * * * *', '0 3 * * *'];

describe('runSchedules', () => {
  it('property: the schedules of the jobs the catalog makes, for any collectors, pings and bandwidth tests', () => {
    const router = fc.record({
      on: fc.record(Object.fromEntries(COLLECTORS.map((name) => [name, fc.boolean()])) as Record<(typeof COLLECTORS)[number], fc.Arbitrary<boolean>>),
      pings: fc.array(fc.option(fc.constantFrom(...SCHEDULES), { nil: undefined }), { maxLength: 3 }),
      tests: fc.array(fc.constantFrom('0 3 * * *', '0 4 * * 0'), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(router, ({ on, pings, tests }) => {
        const config = testRouter({
          collectors: on,
          ping: pings.map((schedule, i) => ({ target: `10.0.0.${i + 1}`, ...(schedule === undefined ? {} : { schedule }) })),
          bandwidth_test: tests.map((schedule, i) => ({ target: `10.0.1.${i + 1}`, duration: '5s', schedule })),
        });
        expect(runSchedules(config).sort()).toEqual(jobsFor(config).map((job) => job.schedule).sort());
      }),
      { numRuns: 200 },
    );
  });
});
