/**
 * What the rows of a `POST /ping` reply say beyond their last row's totals: which pings were answered, and their
 * round trips. Shared by the ping collector and the tunnel probe, which read the same replies.
 */
import type { FieldReader } from '../analysis/decoding.js';
import { finish, type Steps } from '../util/slices.js';

/**
 * A row for a reply from the target. Timeouts, unreachables and TTL exceeded carry a `status`; an IPv4 reply none,
 * an IPv6 reply `echo reply` (MikroTik's ping manual, its `ff02::1` example: every duplicate row says so).
 */
export function isReply(row: unknown): row is Record<string, unknown> {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return false;
  const status = (row as Record<string, unknown>)['status'];
  return status === undefined || status === '' || status === 'echo reply';
}

/**
 * How many of the `sent` pings were answered. RouterOS counts every reply in `received`, duplicates too (a
 * multicast target answers one ping from several hosts), so duplicates can hide loss even where `received` does
 * not pass `sent` (two of three pings lost, the third answered by three hosts: 3 of 3). Where the reply rows show
 * duplicates (more rows than seqs) or `received` passes `sent`, the answered pings are the distinct `seq` of the
 * reply rows; otherwise `received`. Undefined when duplicates leave the rows unable to tell (a reply row without
 * a seq, none at all, or more seqs than were sent): the loss is then unknown, not 0.
 */
export function answeredPings(rows: readonly unknown[], sent: number, received: number): number | undefined {
  return finish(answeredPingsSteps(rows, sent, received));
}

/** Rows read between two places where a ping reply's mapping may pause (999,000 rows held the loop 0.3–0.5 s). */
export const ROWS_PER_STEP = 1024;

/** answeredPings as steps (util/slices.ts). */
export function* answeredPingsSteps(rows: readonly unknown[], sent: number, received: number): Steps<number | undefined> {
  const seqs = new Set<string>();
  let replies = 0;
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    if (!isReply(row)) continue;
    const seq = row['seq'];
    if (typeof seq !== 'string') return received <= sent ? received : undefined;
    seqs.add(seq);
    replies++;
  }
  if (replies === seqs.size && received <= sent) return received;
  return seqs.size > 0 && seqs.size <= sent ? seqs.size : undefined;
}

/** The problem when a reply's `sent` passes the pings asked for, worded once for the ping collector and the tunnel probe. */
export function sentPastCount(sent: number, count: number): string {
  return `sent ${sent} is more than the ${count} pings asked for`;
}

/** The problem when answeredPings cannot tell, worded once for the ping collector and the tunnel probe. */
export function untoldAnswers(sent: number, received: number): string {
  return `received ${received} of ${sent} pings sent counts duplicate replies, and the rows do not tell which pings were answered`;
}

/**
 * Round trips of the reply rows' own `time`, for a last row without min/avg/max-rtt: a router that prints the
 * statistics only from the second reply on leaves them out of a one-ping run (captured: `ping__two_replies`).
 */
export function roundTripsOfRows(rows: readonly unknown[], read: FieldReader): RoundTrips {
  return finish(roundTripsOfRowsSteps(rows, read));
}

export interface RoundTrips {
  min?: number;
  avg?: number;
  max?: number;
}

/** roundTripsOfRows as steps (util/slices.ts). */
export function* roundTripsOfRowsSteps(rows: readonly unknown[], read: FieldReader): Steps<RoundTrips> {
  // Folded as it goes: Math.min(...times) put every row on the stack, and ~120,000 rows overflowed it (found by review).
  let count = 0;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    if (!isReply(row) || typeof row['time'] !== 'string') continue;
    const seconds = read.rtt({ time: row['time'] }, 'time');
    if (seconds === undefined) continue;
    count++;
    sum += seconds;
    min = Math.min(min, seconds);
    max = Math.max(max, seconds);
  }
  return count === 0 ? {} : { min, avg: sum / count, max };
}
