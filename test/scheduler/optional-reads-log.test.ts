/**
 * What the job logs of the reads that only add to a run (JobResult.optionalReads): a warning when a part is left
 * out or its cause changes, a line when it answers again, nothing for a run that did not read that part. Found by
 * review: a run that made no such read (no running ethernet port, no probes wanted) counted as "nothing left out",
 * so a flapping port logged a warning and an "answers again" every run; and a new cause for a part already left
 * out (a timeout turned into a refused permission) was never told.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/scheduler/runner.js';
import { Semaphore } from '../../src/scheduler/semaphore.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { SampleSet } from '../../src/metrics/samples.js';
import type { JobDefinition, OptionalRead, OptionalReadFailure } from '../../src/collectors/types.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import { FakeClient } from '../helpers/fake-client.js';
import { captureLogs } from '../helpers/log-capture.js';
import { readUnlessFailed } from '../../src/collectors/optional-read.js';
import { mapStatusError } from '../../src/routeros/transport-errors.js';

const RATES = 'the ethernet link rates';
const UPTIME = "the router's start";
const TIMEOUT: OptionalReadFailure = { cause: 'ROS_ERR_TIMEOUT', message: 'timed out after 3 s' };
const REFUSED: OptionalReadFailure = { cause: 'ROS_ERR_PERMISSION', message: 'not enough permissions (9)' };

/** A runner whose runs return the optional reads given to `next`, and the log lines it writes. */
function scripted() {
  const logs = captureLogs();
  const store = new SnapshotStore();
  store.plan(new Map([['hq', [{ collector: 'interface' as const, job: 'interface' }]]]));
  let reads: readonly OptionalRead[] | undefined;
  const definition: JobDefinition = {
    collector: 'interface',
    job: 'interface',
    schedule: '*/30 * * * * *',
    deadlineSeconds: 10,
    connection: 'reads',
    settings: null,
    run: () => Promise.resolve({ samples: new SampleSet(), data: undefined, problems: [], decodeErrors: 0, ...(reads === undefined ? {} : { optionalReads: reads }) }),
  };
  const make = (): JobRunner =>
    new JobRunner({ router: testRouter({ name: 'hq' }), definition, client: new FakeClient(), store, semaphore: new Semaphore(1), logger: logs.logger, now: Date.now, routerLabel: routerLabel('hq') });
  const runner = make();
  const lines = () => logs.lines().filter((line) => line['left_out'] !== undefined || line['answered_again'] !== undefined);
  const next = async (made: readonly OptionalRead[] | undefined, job = runner): Promise<void> => {
    reads = made;
    expect(await job.trigger()).toBe('ok');
  };
  return { runner, make, next, lines };
}

describe('the reads that only add to a run, as the job logs them', () => {
  it('a run that did not make the read says nothing of it: no "answers again", no second warning', async () => {
    const { next, lines } = scripted();
    await next([{ what: RATES, failure: TIMEOUT }]);
    // The port went down: no monitor asked for, twice; then up again and the monitor still failing.
    await next(undefined);
    await next([]);
    await next([{ what: RATES, failure: TIMEOUT }]);
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 40, job: 'interface', left_out: [`${RATES}: timed out after 3 s`] });
    await next([{ what: RATES }]);
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatchObject({ level: 30, job: 'interface', answered_again: [RATES] });
  });

  it('a part left out for another cause is told again; the same cause with another message is not', async () => {
    const { next, lines } = scripted();
    await next([{ what: RATES, failure: TIMEOUT }]);
    await next([{ what: RATES, failure: { ...TIMEOUT, message: 'timed out after 3.1 s' } }]);
    expect(lines()).toHaveLength(1);
    await next([{ what: RATES, failure: REFUSED }]);
    expect(lines()).toHaveLength(2);
    expect(lines()[1]?.['left_out']).toEqual([`${RATES}: not enough permissions (9)`]);
  });

  it('two parts: each is told when it goes and when it comes back, the warning naming every part left out', async () => {
    const { next, lines } = scripted();
    await next([{ what: RATES, failure: TIMEOUT }, { what: UPTIME }]);
    await next([{ what: RATES, failure: TIMEOUT }, { what: UPTIME, failure: REFUSED }]);
    expect(lines()[1]?.['left_out']).toEqual([`${RATES}: timed out after 3 s`, `${UPTIME}: not enough permissions (9)`]);
    await next([{ what: RATES }, { what: UPTIME, failure: REFUSED }]);
    expect(lines()).toHaveLength(3);
    expect(lines()[2]?.['answered_again']).toEqual([RATES]);
  });

  it('what a runner knew carries to the runner a reload makes in its place (scheduler.ts)', async () => {
    const { runner, make, next, lines } = scripted();
    await next([{ what: RATES, failure: TIMEOUT }]);
    const reloaded = make();
    reloaded.leftOut = runner.leftOut;
    await next([{ what: RATES, failure: TIMEOUT }], reloaded);
    await next([{ what: RATES }], reloaded);
    expect(lines().map((line) => line['level'])).toEqual([40, 30]);
  });

  it('for any runs, a line is logged exactly when a part read changes from how it was last read', async () => {
    // Per run and part: not read, answered, or failed for one of two causes.
    const outcome = fc.constantFrom<OptionalReadFailure | 'answered' | undefined>(undefined, 'answered', TIMEOUT, REFUSED);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(outcome, outcome), { maxLength: 12 }), async (runs) => {
        const { next, lines } = scripted();
        const last = new Map<string, string>();
        let warnings = 0;
        let answeredAgain = 0;
        for (const run of runs) {
          const made: OptionalRead[] = [];
          let warned = false;
          let answered = false;
          for (const [what, result] of [
            [RATES, run[0]],
            [UPTIME, run[1]],
          ] as const) {
            if (result === undefined) continue;
            if (result === 'answered') {
              made.push({ what });
              if (last.has(what) && last.get(what) !== 'answered') answered = true;
              last.set(what, 'answered');
            } else {
              made.push({ what, failure: result });
              if (last.get(what) !== result.cause) warned = true;
              last.set(what, result.cause);
            }
          }
          await next(made);
          warnings += warned ? 1 : 0;
          answeredAgain += answered ? 1 : 0;
        }
        expect(lines().filter((line) => line['level'] === 40)).toHaveLength(warnings);
        expect(lines().filter((line) => line['level'] === 30)).toHaveLength(answeredAgain);
      }),
      { numRuns: 150 },
    );
  });

  it('a status the router or a proxy in front of it picks is no new cause: 502, 503, 504 in turn warn once (found by review)', async () => {
    // The cause held the HTTP status, whatever number the far end sent: a gateway answering 502 and 503 in turn
    // logged a warning every run, where the failed run's own line goes by its reason.
    const context = { signal: new AbortController().signal };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 500, max: 599 }), { minLength: 1, maxLength: 8 }), async (statuses) => {
        const { next, lines } = scripted();
        for (const status of statuses) {
          const made: OptionalRead[] = [];
          await readUnlessFailed(context, () => Promise.reject(mapStatusError(status, undefined, 'POST interface/ethernet/monitor')), RATES, made);
          await next(made);
        }
        expect(lines()).toHaveLength(1);
      }),
      { numRuns: 60 },
    );
  });
});
