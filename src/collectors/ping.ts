/**
 * `ping`: POST /rest/ping on the router, one job per configured target, always bounded by `count`
 * (an unbounded ping runs into the router's 60 s limit). Rows are cumulative: the last row has the totals.
 */
import type { PingTargetConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { recordListSteps } from '../routeros/records.js';
import { finish, finishInSlices, someSteps, type Steps } from '../util/slices.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { PING, PING_FAMILIES as F } from './ping.contract.js';
import { FieldReader, given, problemsOf } from '../analysis/decoding.js';
import { RouterOsError } from '../routeros/errors.js';
import { answeredPingsSteps, ROWS_PER_STEP, roundTripsOfRowsSteps, sentPastCount, showsReply } from './ping-rows.js';
import { compositeJobKey, type Collector, type JobContext, type JobResult } from './types.js';

export interface PingData {
  target: string;
  name: string;
  /** Probes sent and answered in the last run; undefined when the reply did not say (or said the impossible). */
  sent: number | undefined;
  received: number | undefined;
  lossRatio: number | undefined;
  /** The reply did not tell the loss in a readable way (as opposed to "no packets sent"). */
  lossUnreadable: boolean;
  rttSeconds: { min?: number; avg?: number; max?: number };
  /** Any reply; undefined when the reply did not say how many. */
  success: boolean | undefined;
}

/** The request body: count always; the optional knobs only when configured. */
export function pingParameters(target: PingTargetConfig): Record<string, string> {
  const body: Record<string, string> = {
    address: target.target,
    count: String(target.count),
    interval: `${Math.round(target.intervalSeconds * 1000)}ms`,
  };
  if (target.interface !== undefined) body['interface'] = target.interface;
  if (target.srcAddress !== undefined) body['src-address'] = target.srcAddress;
  if (target.size !== undefined) body['size'] = String(target.size);
  return body;
}

/** Pure mapping of the ping rows; `totals` holds the counters summed across runs and is updated. */
export function mapPing(...args: Parameters<typeof mapPingSteps>): JobResult<PingData> {
  return finish(mapPingSteps(...args));
}

/** mapPing as steps, a pause possible every 1,024 rows: a reply of 999,000 rows held the loop 0.3–0.5 s (found by review). */
export function* mapPingSteps(
  rows: readonly RouterRecord[],
  target: PingTargetConfig,
  routerLabel: RouterLabel,
  totals: Map<string, number>,
): Steps<JobResult<PingData>> {
  const read = new FieldReader(`ping ${target.target}`);
  // Every row RouterOS sends for a ping, reply or timeout, has its seq and the counts so far: a reply with none of
  // them in any row (`[]`, `[{}]`, a proxy's object) is not a ping that failed but no answer from the ping at all
  // (found by review: it was a run that succeeded, with a decode error). A ping's row without its totals is the
  // loss left unread, below.
  if (!(yield* someSteps(rows, (row) => given(row, 'sent') || given(row, 'received') || given(row, 'seq'), ROWS_PER_STEP))) {
    throw new RouterOsError('ROS_ERR_SHAPE', `ping ${target.target}: none of the ${rows.length} rows has a seq or a count; the reply is not a ping's`);
  }
  const samples = new SampleSet();
  const last = rows.at(-1) ?? {};
  const sentRead = read.counter(last, 'sent');
  const sent = withinCount(sentRead, target.count, read);
  // A `sent` past the count is no count of this run, and neither is the packet-loss of that row (found by review:
  // sent 5 of 3 with 0 % loss read as a loss of 0 and /health ok while the run was not counted).
  const notThisRun = sentRead !== undefined && sent === undefined;
  const reported = read.counter(last, 'received');
  // Without both totals, loss and success are unknown: a missing "received" is not "none received".
  if (last['sent'] === undefined || last['received'] === undefined) read.problem('last row has no sent/received totals');
  // RouterOS counts duplicate replies (multicast targets) in received: past sent (packet-loss below 0), or hiding
  // pings lost. The pings answered are what the rows tell (ping-rows.ts), and the received counter never outgrows
  // the sent one. Totals the rows refute leave the loss unknown.
  const bothRead = sent !== undefined && reported !== undefined;
  const answers = bothRead ? yield* answeredPingsSteps(rows, sent, reported) : undefined;
  const received = answers === undefined ? reported : answers.answered;
  const duplicates = bothRead && received !== reported;
  const untold = answers !== undefined && answers.answered === undefined ? answers : undefined;
  if (untold !== undefined) read.problem(`${untold.problem}; loss left out`);
  // With duplicates packet-loss counts them (below 0, or too low): no percent to check the counts against.
  const lossRatio = notThisRun
    ? undefined
    : !bothRead
      ? yield* lossWithoutTotals(rows, last, read)
      : received === undefined
        ? undefined
        : !duplicates
          ? lossOf(last, sent, received, read)
          : sent === 0
            ? undefined
            : (sent - received) / sent;
  const labels = seriesLabels(F.pingSuccess, routerLabel, [target.target, target.name]);
  // A run counts only with both totals: one alone would move one counter and not the other (received past sent:
  // a loss rate below 0, or a made-up 100 % loss), and says nothing of success.
  const counted = sent !== undefined && received !== undefined;
  // Duplicates are replies: some ping was answered even when the rows do not tell which. Totals the rows refute
  // tell nothing of success.
  const success = counted ? received > 0 : untold?.someAnswered === true ? true : undefined;

  if (success !== undefined) samples.add(F.pingSuccess, labels, success ? 1 : 0);
  const rtt: PingData['rttSeconds'] = success === true ? yield* roundTrips(rows, last, read) : {};
  for (const stat of ['min', 'avg', 'max'] as const) {
    const seconds = rtt[stat];
    if (seconds !== undefined) samples.addExtended(F.pingRtt, labels, [stat], seconds);
  }
  if (lossRatio !== undefined) samples.add(F.pingLoss, labels, lossRatio);
  if (counted) {
    totals.set('sent', (totals.get('sent') ?? 0) + sent);
    totals.set('received', (totals.get('received') ?? 0) + received);
  }
  samples.add(F.pingSent, labels, totals.get('sent') ?? 0);
  samples.add(F.pingReceived, labels, totals.get('received') ?? 0);
  return {
    samples,
    ...problemsOf(read),
    data: {
      target: target.target,
      name: target.name,
      sent,
      received,
      lossRatio,
      // A reply contradicting itself is unreadable, even one saying no ping was sent.
      lossUnreadable: lossRatio === undefined && (sent !== 0 || untold !== undefined),
      rttSeconds: rtt,
      success,
    },
  };
}

/**
 * A run's `sent` as it can be: at most the pings it asked for. More is no count of this run, and summed into the
 * counters it would stay there (a `sent` of 2^53 made the sent counter step by 4 for every 3 pings ever after, a
 * loss that never was).
 */
function withinCount(sent: number | undefined, count: number, read: FieldReader): number | undefined {
  if (sent === undefined || sent <= count) return sent;
  read.problem(() => `${sentPastCount(sent, count)}; the run is not counted`);
  return undefined;
}

/**
 * Loss from the counts, which are exact (received is already capped at sent). A percent that contradicts the counts
 * (more than its rounding) is counted as a problem: a reply saying 10 sent, 0 received and 0 % loss is not a healthy
 * target.
 */
function lossOf(last: RouterRecord, sent: number, received: number, read: FieldReader): number | undefined {
  if (sent === 0) return undefined;
  const loss = (sent - received) / sent;
  const percent = read.ratioFromPercent(last, 'packet-loss');
  if (percent !== undefined && Math.abs(percent - loss) > 0.01) {
    read.problem(`packet-loss ${Math.round(percent * 100)} % contradicts sent ${sent} and received ${received}; loss taken from the counts`);
  }
  return loss;
}

/**
 * Without both counts, `packet-loss` (a rounded percent) as long as the rows agree with it: no row a reply and less
 * than 100 %, or some row a reply and 100 %, is a reply contradicting itself, and the loss is unknown (rows that
 * were all timeouts read as a target without loss, check OK: found by a hostile tester).
 */
function* lossWithoutTotals(rows: readonly RouterRecord[], last: RouterRecord, read: FieldReader): Steps<number | undefined> {
  const percent = read.ratioFromPercent(last, 'packet-loss');
  if (percent === undefined) return undefined;
  const answered = yield* someSteps(rows, showsReply, ROWS_PER_STEP);
  if (answered ? percent < 1 : percent >= 1) return percent;
  read.problem(`packet-loss ${Math.round(percent * 100)} % contradicts the rows, ${answered ? 'some of which are replies' : 'none of which is a reply'}; loss left out`);
  return undefined;
}

/**
 * The answered pings' round trips. min ≤ avg ≤ max holds for any real reply; one that breaks it (within the
 * microsecond RouterOS prints) leaves all three out and counts a problem, as an impossible part-and-whole does.
 */
function* roundTrips(rows: readonly RouterRecord[], last: RouterRecord, read: FieldReader): Steps<PingData['rttSeconds']> {
  // None of the three: the rows' own times (a one-ping run on a router that prints them from the second reply on).
  if (!given(last, 'min-rtt') && !given(last, 'avg-rtt') && !given(last, 'max-rtt')) return yield* roundTripsOfRowsSteps(rows, read);
  const min = read.rtt(last, 'min-rtt');
  const avg = read.rtt(last, 'avg-rtt');
  const max = read.rtt(last, 'max-rtt');
  const above = (a: number | undefined, b: number | undefined) => a !== undefined && b !== undefined && a > b + 1e-6;
  if (above(min, max) || above(min, avg) || above(avg, max)) {
    read.problem('min-rtt, avg-rtt and max-rtt are out of order; round trips left out');
    return {};
  }
  return { ...(min === undefined ? {} : { min }), ...(avg === undefined ? {} : { avg }), ...(max === undefined ? {} : { max }) };
}

/** The router answers only after count × interval; the request timeout comes on top of that. */
function pingSeconds(target: PingTargetConfig, timeoutSeconds: number): number {
  return target.count * target.intervalSeconds + timeoutSeconds;
}

export const pingCollector: Collector<PingData, 'ping'> = {
  ...PING,
  name: 'ping',
  jobs: (router) =>
    router.ping.map((target) => ({
      collector: 'ping' as const,
      job: compositeJobKey('ping', target.name, target.target),
      schedule: target.schedule,
      deadlineSeconds: pingSeconds(target, router.timeoutSeconds),
      connection: 'commands',
      runsForSeconds: target.count * target.intervalSeconds,
      settings: target,
      async run(context: JobContext) {
        const reply = await context.client.run('ping', pingParameters(target), {
          signal: context.signal,
          timeoutMs: pingSeconds(target, router.timeoutSeconds) * 1000,
        });
        const rows = await finishInSlices(recordListSteps(reply, 'POST /rest/ping'), { signal: context.signal });
        return finishInSlices(mapPingSteps(rows, target, context.routerLabel, context.memory), { signal: context.signal });
      },
    })),
};
