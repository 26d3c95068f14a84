/**
 * `ping`: POST /rest/ping on the router, one job per configured target, always bounded by `count`
 * (an unbounded ping runs into the router's 60 s limit). Rows are cumulative: the last row has the totals.
 */
import type { PingTargetConfig } from '../config/types.js';
import type { RouterRecord } from '../routeros/records.js';
import { asRecordList } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { F } from '../metrics/families.js';
import { labelPair } from '../metrics/text.js';
import { FieldReader } from './decoding.js';
import type { Collector, JobContext, JobResult } from './types.js';

export interface PingData {
  target: string;
  name: string;
  sent: number;
  received: number;
  lossRatio: number | undefined;
  rttSeconds: { min?: number; avg?: number; max?: number };
  success: boolean;
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
  routerLabel: string,
  totals: Map<string, number>,
): JobResult<PingData> {
  const read = new FieldReader(`ping ${target.target}`);
  const samples = new SampleSet();
  const last = rows.at(-1) ?? {};
  const sent = read.integer(last, 'sent') ?? rows.length;
  const received = read.integer(last, 'received') ?? 0;
  const loss = read.number(last, 'packet-loss');
  const lossRatio = loss !== undefined ? loss / 100 : sent > 0 ? 1 - received / sent : undefined;
  const labels = `${routerLabel},${labelPair('target', target.target)},${labelPair('name', target.name)}`;
  const success = received > 0;

  samples.add(F.pingSuccess, labels, success ? 1 : 0);
  const rtt: PingData['rttSeconds'] = {};
  if (received > 0) {
    for (const stat of ['min', 'avg', 'max'] as const) {
      const seconds = read.duration(last, `${stat}-rtt`);
      if (seconds === undefined) continue;
      rtt[stat] = seconds;
      samples.add(F.pingRtt, `${labels},${labelPair('stat', stat)}`, seconds);
    }
  }
  if (lossRatio !== undefined) samples.add(F.pingLoss, labels, lossRatio);
  totals.set('sent', (totals.get('sent') ?? 0) + Math.max(sent, 0));
  totals.set('received', (totals.get('received') ?? 0) + Math.max(received, 0));
  samples.add(F.pingSent, labels, totals.get('sent') ?? 0);
  samples.add(F.pingReceived, labels, totals.get('received') ?? 0);
  return {
    samples,
    problems: read.problems,
    data: { target: target.target, name: target.name, sent, received, lossRatio, rttSeconds: rtt, success },
  };
}

export const pingCollector: Collector = {
  name: 'ping',
  description: 'Bounded pings run on the router (POST /ping) to configured targets',
  defaultEnabled: true,
  jobs: (router) =>
    router.ping.map((target) => ({
      collector: 'ping' as const,
      job: `ping:${target.name}:${target.target}`,
      schedule: target.schedule,
      // The router answers only after count × interval; the request timeout comes on top of that.
      timeoutSeconds: target.count * target.intervalSeconds + router.timeoutSeconds,
      async run(context: JobContext) {
        const reply = await context.client.run('ping', pingParameters(target), {
          signal: context.signal,
          timeoutMs: (target.count * target.intervalSeconds + router.timeoutSeconds) * 1000,
        });
        return mapPing(asRecordList(reply, 'POST /rest/ping'), target, context.routerLabel, context.memory);
      },
    })),
};
