/**
 * `bandwidth_test`: POST /rest/tool/bandwidth-test on the router, always bounded by `duration`.
 * The reply is one row per second (`.section`); the final row carries the totals and the end status.
 * A test that could not run (e.g. "can not connect") is a successful collection with success 0.
 */
import type { BandwidthTestConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { recordListSteps } from '../routeros/records.js';
import { finish, finishInSlices, someSteps, type Steps } from '../util/slices.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { BANDWIDTH_TEST, BANDWIDTH_TEST_FAMILIES as F } from './bandwidth-test.contract.js';
import { FieldReader, given, problemsOf } from '../analysis/decoding.js';
import { RouterOsError } from '../routeros/errors.js';
import { chosenTwinRowsSteps, type RowOrder } from '../analysis/twin-rows.js';
import { compositeJobKey, type Collector, type JobContext, type JobResult } from './types.js';

/** What a run keeps beside its samples: the test as configured and what it found, no router text (the status is read into `success`). */
export interface BandwidthTestData {
  target: string;
  name: string;
  success: boolean;
  receiveBitsPerSecond: number | undefined;
  transmitBitsPerSecond: number | undefined;
  finishedAt: number;
}

export function bandwidthTestParameters(test: BandwidthTestConfig): Record<string, string> {
  const body: Record<string, string> = {
    address: test.target,
    duration: `${test.durationSeconds}s`,
    direction: test.direction,
    protocol: test.protocol,
  };
  if (test.user !== undefined) body['user'] = test.user;
  if (test.password !== undefined) body['password'] = test.password.reveal();
  return body;
}

/** Rows read between two places where mapping a test's reply may pause (one row a second; a hostile reply more). */
const ROWS_PER_STEP = 1024;

/**
 * Which of a section's rows counts when a reply lists a `.section` twice (twin-rows.ts): sections carry no `.id` and
 * nothing names them beyond their number, so the one with the larger traffic, then by their whole text.
 */
const SECTION_ROWS: RowOrder = { identityKeys: [], trafficKeys: ['rx-total-average', 'tx-total-average'] };

/**
 * The run's lost packets: the sum of its sections'. RouterOS counts them per section, not as a running total (the
 * manual's capture goes 0, 0, 581175, 9014), so the last row alone is only the last second's. Each `.section`
 * counts once: RouterOS lists each once, and a reply listing one three times summed it three times (1010 lost read
 * 3010: found by a hostile tester); of its rows, the same one whatever the reply's order, and the repeat is counted
 * as a problem. Undefined when a counted section's count did not decode (the total is then unknown) or no row has
 * one (a TCP test).
 */
function* lostPackets(read: FieldReader, rows: readonly RouterRecord[]): Steps<number | undefined> {
  const chosen = yield* chosenTwinRowsSteps(rows, (row) => row['.section'], SECTION_ROWS, ROWS_PER_STEP);
  if (chosen !== undefined) read.problem(`${chosen.repeats} rows repeat the .section of another; each section's lost-packets is counted once, from one of its rows`);
  let total: number | undefined;
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    if (chosen !== undefined && row['.section'] !== undefined && !chosen.rows.has(row)) continue;
    if (!given(row, 'lost-packets')) continue;
    const lost = read.counter(row, 'lost-packets');
    if (lost === undefined) return undefined;
    total = (total ?? 0) + lost;
  }
  return total;
}

export function mapBandwidthTest(...args: Parameters<typeof mapBandwidthTestSteps>): JobResult<BandwidthTestData> {
  return finish(mapBandwidthTestSteps(...args));
}

/** mapBandwidthTest as steps, a pause possible every 1,024 rows, as a ping's (its rows held the loop 0.1 s; found by review). */
export function* mapBandwidthTestSteps(
  rows: readonly RouterRecord[],
  test: BandwidthTestConfig,
  routerLabel: RouterLabel,
  now: number,
): Steps<JobResult<BandwidthTestData>> {
  const read = new FieldReader(`bandwidth-test ${test.target}`);
  // Every row RouterOS sends while a test runs has a status (connecting, running, done testing): a reply with
  // none (`[]`, a proxy's object) is not a test that failed but no answer from the test at all.
  if (!(yield* someSteps(rows, (row) => given(row, 'status'), ROWS_PER_STEP))) {
    throw new RouterOsError('ROS_ERR_SHAPE', `bandwidth-test ${test.target}: none of the ${rows.length} rows has a status; the reply is not a bandwidth test's`);
  }
  const samples = new SampleSet();
  const last = rows.at(-1) ?? {};
  const status = last['status'] ?? '';
  const success = status === 'done testing';
  const labels = seriesLabels(F.btSuccess, routerLabel, [test.target, test.name]);
  const rx = read.value('bitsPerSecond', last, 'rx-total-average');
  const tx = read.value('bitsPerSecond', last, 'tx-total-average');
  const lost = yield* lostPackets(read, rows);
  samples.add(F.btSuccess, labels, success ? 1 : 0);
  samples.add(F.btLastRun, labels, Math.round(now / 1000));
  if (success) {
    // RouterOS reports bits per second; Prometheus' base unit is bytes.
    if (rx !== undefined) samples.add(F.btRx, labels, rx / 8);
    if (tx !== undefined) samples.add(F.btTx, labels, tx / 8);
    if (lost !== undefined) samples.add(F.btLost, labels, lost);
  }
  return {
    samples,
    ...problemsOf(read),
    data: {
      target: test.target,
      name: test.name,
      success,
      receiveBitsPerSecond: rx,
      transmitBitsPerSecond: tx,
      finishedAt: now,
    },
  };
}

export const bandwidthTestCollector: Collector<BandwidthTestData, 'bandwidth_test'> = {
  ...BANDWIDTH_TEST,
  name: 'bandwidth_test',
  jobs: (router) =>
    router.bandwidthTest.map((test) => ({
      collector: 'bandwidth_test' as const,
      job: compositeJobKey('bandwidth_test', test.name, test.target),
      schedule: test.schedule,
      // The router answers after the test's duration; the request timeout comes on top of that.
      deadlineSeconds: test.durationSeconds + router.timeoutSeconds,
      connection: 'commands',
      runsForSeconds: test.durationSeconds,
      waitsForSchedule: true,
      // The btest password counts (revealed only into the fingerprint's digest).
      settings: { ...test, password: test.password?.reveal() ?? null },
      async run(context: JobContext) {
        const reply = await context.client.run('tool/bandwidth-test', bandwidthTestParameters(test), {
          signal: context.signal,
          timeoutMs: (test.durationSeconds + router.timeoutSeconds) * 1000,
        });
        const rows = await finishInSlices(recordListSteps(reply, 'POST /rest/tool/bandwidth-test'), { signal: context.signal });
        return finishInSlices(mapBandwidthTestSteps(rows, test, context.routerLabel, context.now()), { signal: context.signal });
      },
    })),
};
