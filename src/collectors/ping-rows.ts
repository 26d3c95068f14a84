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
 * A reply row that says what came back (its time, ttl or size). A bare row without a status is no evidence either
 * way: it neither shows a ping answered nor one lost.
 */
export function showsReply(row: unknown): boolean {
  if (!isReply(row)) return false;
  return ['time', 'ttl', 'size'].some((key) => typeof row[key] === 'string' && row[key] !== '');
}

/**
 * How many of the `sent` pings were answered, or why the reply cannot tell (a problem: the loss is unknown, not 0).
 * `someAnswered`: duplicate replies came, so some ping surely was answered though the rows do not tell how many;
 * never for totals the rows refute, which tell nothing.
 */
export type AnsweredPings = { readonly answered: number } | { readonly answered: undefined; readonly problem: string; readonly someAnswered: boolean };

/**
 * How many of the `sent` pings were answered. RouterOS counts every reply in `received`, duplicates too (a
 * multicast target answers one ping from several hosts), so duplicates can hide loss even where `received` does
 * not pass `sent` (two of three pings lost, the third answered by three hosts: 3 of 3). Where the reply rows show
 * duplicates (more rows than seqs) or `received` passes `sent`, the answered pings are the distinct `seq` of the
 * reply rows; otherwise `received`. Untold when duplicates leave the rows unable to tell (a reply row without a
 * seq, none at all, or more seqs than were sent), or when the rows refute the count: a seq whose rows are all
 * timeouts (or another status) is a ping lost, and one with a row showing what came back a ping answered, so
 * the answered pings lie between the latter and `sent` less the former. Rows all timeouts with totals of 1 sent,
 * 1 received were read as no loss (found by a hostile tester). A seq without a row refutes nothing: rows that
 * are missing are not pings lost.
 */
export function answeredPings(rows: readonly unknown[], sent: number, received: number): AnsweredPings {
  return finish(answeredPingsSteps(rows, sent, received));
}

/** Rows read between two places where a ping reply's mapping may pause (999,000 rows held the loop 0.3–0.5 s). */
export const ROWS_PER_STEP = 1024;

/** answeredPings as steps (util/slices.ts). */
export function* answeredPingsSteps(rows: readonly unknown[], sent: number, received: number): Steps<AnsweredPings> {
  const replySeqs = new Set<string>();
  const shownAnsweredSeqs = new Set<string>();
  const otherSeqs = new Set<string>();
  let replies = 0;
  let replyWithoutSeq = false;
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) continue;
    const seq = (row as Record<string, unknown>)['seq'];
    if (!isReply(row)) {
      if (typeof seq === 'string') otherSeqs.add(seq);
      continue;
    }
    replies++;
    if (typeof seq !== 'string') {
      replyWithoutSeq = true;
      continue;
    }
    replySeqs.add(seq);
    if (showsReply(row)) shownAnsweredSeqs.add(seq);
  }
  // A reply row for a seq outweighs its timeout row: a reply that came late is still a ping answered.
  let shownLost = 0;
  for (const seq of otherSeqs) if (!replySeqs.has(seq)) shownLost++;
  const refuted = (): AnsweredPings => ({ answered: undefined, problem: refutedAnswers(sent, received, shownAnsweredSeqs.size, shownLost), someAnswered: false });
  const duplicates = received > sent || (!replyWithoutSeq && replies !== replySeqs.size);
  if (duplicates && (replyWithoutSeq || replySeqs.size === 0 || replySeqs.size > sent)) {
    // Duplicates are replies, which rows showing every ping lost refute.
    return shownLost > 0 && shownLost >= sent ? refuted() : { answered: undefined, problem: untoldAnswers(sent, received), someAnswered: true };
  }
  const answered = duplicates ? replySeqs.size : received;
  if (answered > sent - shownLost || answered < shownAnsweredSeqs.size) return refuted();
  return { answered };
}

/** The problem when a reply's `sent` passes the pings asked for, worded once for the ping collector and the tunnel probe. */
export function sentPastCount(sent: number, count: number): string {
  return `sent ${sent} is more than the ${count} pings asked for`;
}

/** The problem when duplicates leave answeredPings unable to tell. */
function untoldAnswers(sent: number, received: number): string {
  return `received ${received} of ${sent} pings sent counts duplicate replies, and the rows do not tell which pings were answered`;
}

/** The problem when the rows refute the totals. */
function refutedAnswers(sent: number, received: number, shownAnswered: number, shownLost: number): string {
  return `received ${received} of ${sent} pings sent contradicts the rows, which show ${shownAnswered} answered and ${shownLost} lost`;
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
