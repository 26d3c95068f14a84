/**
 * `ping`: POST /rest/ping on the router, one job per configured target, always bounded by `count`
 * (an unbounded ping runs into the router's 60 s limit). Rows are cumulative: the last row has the totals.
 */
import type { PingTargetConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { asRecordList } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { PING, PING_FAMILIES as F } from './ping.contract.js';
import { FieldReader, problemsOf } from '../analysis/decoding.js';
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
export function mapPing(
  rows: readonly RouterRecord[],
  target: PingTargetConfig,
  routerLabel: RouterLabel,
  totals: Map<string, number>,
): JobResult<PingData> {
  const read = new FieldReader(`ping ${target.target}`);
  const samples = new SampleSet();
  const last = rows.at(-1) ?? {};
  const sent = read.counter(last, 'sent');
  const reported = read.counter(last, 'received');
  // Without both totals, loss and success are unknown: a missing "received" is not "none received".
  if (last['sent'] === undefined || last['received'] === undefined) {
    read.problem(rows.length === 0 ? 'reply has no rows' : 'last row has no sent/received totals');
  }
  // RouterOS counts duplicate replies (multicast targets): received above sent, packet-loss below 0. A probe
  // is answered once, so there is no loss to report and the received counter never outgrows the sent one.
  const duplicates = sent !== undefined && reported !== undefined && reported > sent;
  const received = duplicates ? sent : reported;
  const lossRatio = duplicates ? 0 : read.ratioFromPercent(last, 'packet-loss') ?? derivedLoss(sent, received);
  const labels = seriesLabels(F.pingSuccess, routerLabel, [target.target, target.name]);
  // A run counts only with both totals: one alone would move one counter and not the other (received past sent:
  // a loss rate below 0, or a made-up 100 % loss), and says nothing of success.
  const counted = sent !== undefined && received !== undefined;
  const success = counted ? received > 0 : undefined;

  if (success !== undefined) samples.add(F.pingSuccess, labels, success ? 1 : 0);
  const rtt: PingData['rttSeconds'] = {};
  if (success === true) {
    for (const stat of ['min', 'avg', 'max'] as const) {
      const seconds = read.rtt(last, `${stat}-rtt`);
      if (seconds === undefined) continue;
      rtt[stat] = seconds;
      samples.addExtended(F.pingRtt, labels, [stat], seconds);
    }
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
      lossUnreadable: lossRatio === undefined && sent !== 0,
      rttSeconds: rtt,
      success,
    },
  };
}

/** Loss from the totals when packet-loss is absent or unreadable; none when nothing was sent. */
function derivedLoss(sent: number | undefined, received: number | undefined): number | undefined {
  return sent === undefined || received === undefined || sent === 0 ? undefined : 1 - received / sent;
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
        return mapPing(asRecordList(reply, 'POST /rest/ping'), target, context.routerLabel, context.memory);
      },
    })),
};
