/**
 * One tunnel probe's `POST /ping` reply → its result. Rows are cumulative (real-formats §4): the last row has
 * the totals. Loss comes from the counts (exact, never above 1), not from `packet-loss` (a rounded percent);
 * rtt is the reply's `avg-rtt`, in seconds, read within FIELD_KINDS.rtt.
 */
import type { ProbeOutcome } from '../analysis/liveness.js';
import type { FieldReader } from '../analysis/decoding.js';
import { finish, type Steps } from '../util/slices.js';
import { answeredPingsSteps, roundTripsOfRowsSteps, sentPastCount } from './ping-rows.js';

export interface ProbeResult {
  outcome: ProbeOutcome;
  /** Average round trip of the answered pings, seconds; only when some were answered and it decoded. */
  rttSeconds?: number;
  /** Lost pings over sent ones, 0..1; only when the probe ran and its reply told both counts. */
  lossRatio?: number;
  /** Unix ms the probe ran, for a result a later run reuses (wireguard-probe.ts); absent: this run's own. */
  at?: number;
}

/**
 * `ok` all answered, `partial` some, `failed` none; a reply without readable totals, with more sent than the
 * `count` pings asked for, or whose rows refute its totals, is `error` (not judged).
 */
export function readProbeReply(reply: unknown, read: FieldReader, count: number): ProbeResult {
  return finish(readProbeReplySteps(reply, read, count));
}

/** readProbeReply as steps, a pause possible every 1,024 rows (ping-rows.ts). */
export function* readProbeReplySteps(reply: unknown, read: FieldReader, count: number): Steps<ProbeResult> {
  const rows = Array.isArray(reply) ? (reply as unknown[]) : [];
  const raw = rows.at(-1);
  const last = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const record: Record<string, string> = {};
  for (const key of ['sent', 'received', 'avg-rtt'] as const) {
    const value = last[key];
    if (typeof value === 'string') record[key] = value;
  }
  const sent = read.counter(record, 'sent');
  const received = read.counter(record, 'received');
  if (sent === undefined || received === undefined || sent === 0) {
    read.problem(rows.length === 0 ? 'reply has no rows' : 'last row has no sent/received totals');
    return { outcome: 'error' };
  }
  // The ping collector refuses the same reply: a 1-ping probe answered "sent 5, received 1" is no 80 % loss (found
  // by review).
  if (sent > count) {
    read.problem(sentPastCount(sent, count));
    return { outcome: 'error' };
  }
  // Duplicate replies (a multicast target) make received exceed sent: the pings answered are what the rows tell.
  // Totals the rows refute (every row a timeout, 1 of 1 received) are no probe answered (found by a hostile tester).
  const answers = yield* answeredPingsSteps(rows, sent, received);
  if (answers.answered === undefined) {
    read.problem(answers.problem);
    return { outcome: 'error' };
  }
  const answered = answers.answered;
  const lossRatio = (sent - answered) / sent;
  if (answered === 0) return { outcome: 'failed', lossRatio };
  // Without avg-rtt on the last row (a one-ping probe on a router that prints it from the second reply on), the
  // rows' own times.
  const rttSeconds = record['avg-rtt'] === undefined ? (yield* roundTripsOfRowsSteps(rows, read)).avg : read.rtt(record, 'avg-rtt');
  return { outcome: answered === sent ? 'ok' : 'partial', lossRatio, ...(rttSeconds === undefined ? {} : { rttSeconds }) };
}
