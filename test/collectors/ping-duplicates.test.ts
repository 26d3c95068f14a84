/**
 * Ping replies with duplicates (a multicast target answered by several hosts), generated as RouterOS writes them:
 * one row per reply or per ping that timed out, totals cumulative, `received` counting every reply. Whatever the
 * mix, the ping collector and the tunnel probe read the loss as the pings no host answered, never less.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mapPing } from '../../src/collectors/ping.js';
import { readProbeReply } from '../../src/collectors/wireguard-probe-reply.js';
import { FieldReader } from '../../src/analysis/decoding.js';
import { routerLabel } from '../../src/metrics/family.js';

/** The rows of `answers.length` pings, ping i answered by answers[i] hosts (0: a timeout row). */
function pingRows(answers: readonly number[]): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  let received = 0;
  answers.forEach((hosts, seq) => {
    const sent = String(seq + 1);
    if (hosts === 0) {
      rows.push({ host: 'ff02::1', seq: String(seq), status: 'timeout', sent, received: String(received), 'packet-loss': String(Math.round(100 - (received * 100) / (seq + 1))) });
      return;
    }
    for (let host = 1; host <= hosts; host++) {
      received++;
      rows.push({ host: `fe80::${host}`, seq: String(seq), time: `${host}ms`, ttl: '64', sent, received: String(received), 'packet-loss': String(Math.round(100 - (received * 100) / (seq + 1))), 'min-rtt': '1ms', 'avg-rtt': '1ms', 'max-rtt': `${Math.max(1, hosts)}ms` });
    }
  });
  return rows;
}

const answersArb = fc.array(fc.nat(4), { minLength: 1, maxLength: 10 });

describe('ping replies with duplicates', () => {
  it('the ping collector reads the loss as the pings no host answered, and counts each answered ping once', () => {
    fc.assert(
      fc.property(answersArb, (answers) => {
        const target = { target: 'ff02::1', name: 'm', count: answers.length, intervalSeconds: 1, schedule: '* * * * *' };
        const result = mapPing(pingRows(answers), target, routerLabel('hq'), new Map());
        const answered = answers.filter((hosts) => hosts > 0).length;
        expect(result.data.lossRatio).toBeCloseTo((answers.length - answered) / answers.length, 12);
        expect(result.data.received).toBe(answered);
        expect(result.data.success).toBe(answered > 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('the tunnel probe judges by the pings answered, whatever duplicates came', () => {
    fc.assert(
      fc.property(answersArb, (answers) => {
        const result = readProbeReply(pingRows(answers), new FieldReader('ping (tunnel probe)'));
        const answered = answers.filter((hosts) => hosts > 0).length;
        expect(result.outcome).toBe(answered === 0 ? 'failed' : answered === answers.length ? 'ok' : 'partial');
        expect(result.lossRatio).toBeCloseTo((answers.length - answered) / answers.length, 12);
      }),
      { numRuns: 1000 },
    );
  });
});
