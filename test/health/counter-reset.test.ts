/**
 * A counter that fell was reset in the window (the router restarted, or the peer was re-created), and what it holds
 * now was counted since: growth. Read as "did not grow", a dead link this side keeps sending to was `never`, not
 * expected and healthy at the first read after the reset, between two pages (found by the hostile generator of
 * test/health/peer-sequences.property.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { routerLabel } from '../../src/metrics/family.js';
import { evaluateRouter } from '../../src/health/evaluate.js';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import { testConfig } from '../helpers/config.js';
import { sampleText } from '../collectors/sample-text.js';
import { systemOk, T0 } from './snapshots.js';
import { verdictLog } from './verdict-log.js';

const IFACE: RouterRecord = { name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };

interface Read {
  wall: number;
  rx: number;
  tx: number;
  age: number | undefined;
}

function peerAt(read: Read): RouterRecord {
  return {
    interface: 'wg0',
    'public-key': `${'K'.repeat(43)}=`,
    name: 'site',
    'allowed-address': '10.9.0.2/32',
    'endpoint-address': '198.51.100.7',
    'endpoint-port': '13231',
    rx: String(read.rx),
    tx: String(read.tx),
    ...(read.age === undefined ? {} : { 'last-handshake': formatSeconds(read.age) }),
  };
}

async function collect(reads: readonly Read[]) {
  const config = testConfig({ defaults: { username: 'monitor', password: 'x' }, routers: [{ name: 'hq', url: 'https://192.0.2.1', schedules: { wireguard: '*/30 * * * * *' } }] });
  const router = config.routers[0];
  if (router === undefined) throw new Error('no router');
  const memory = new Map<string, number>();
  const log = verdictLog(config);
  const seen: { collected: string | undefined; healthy: string | undefined; status: string }[] = [];
  for (const read of reads) {
    const at = T0 + read.wall * 1000;
    const result = mapWireguard([IFACE], [peerAt(read)], routerLabel('hq'), router.health, at, memory, undefined, undefined, undefined, 1_000_000 + read.wall * 1000);
    const text = sampleText(result.samples);
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: at, durationSeconds: 0.1, lastSuccessAt: at, chunks: [], data: result.data };
    seen.push({
      collected: /routeros_wireguard_peer_state\{[^}]*state="([a-z]+)"\} 1/.exec(text)?.[1],
      healthy: /routeros_wireguard_peer_healthy\{[^}]*\} ([01])/.exec(text)?.[1],
      status: evaluateRouter(router, [systemOk(at), snapshot], at).health.status,
    });
    log.record(systemOk(at), at);
    log.record(snapshot, at);
    await log.settled();
  }
  log.stop();
  return { seen, messages: log.messages.filter((line) => line.includes('site')) };
}

describe('a dead link this side keeps sending to, its counters reset', () => {
  for (const [title, handshake] of [
    ['by a reboot of the router (the handshake forgotten too)', undefined],
    ['with the handshake kept (a hostile router): still the old one', 1_090],
  ] as const) {
    it(`${title}: stays a problem through the read after the reset, no recovery logged`, async () => {
      const { seen, messages } = await collect([
        { wall: 0, rx: 5_000, tx: 5_000, age: 1_000 },
        // This side sends, nothing answers: one window of it (idle: a healthy tunnel this side wakes, its response
        // lost, looks so for 5 s), then down at the second in a row (its handshake 1,060 s old, no keepalive: expected
        // for the sending).
        { wall: 30, rx: 5_000, tx: 5_444, age: 1_030 },
        { wall: 60, rx: 5_000, tx: 5_888, age: 1_060 },
        // Reset between the reads: tx holds the initiations sent since, rx nothing.
        { wall: 90, rx: 0, tx: 296, age: handshake },
        { wall: 120, rx: 0, tx: 740, age: handshake === undefined ? undefined : handshake + 30 },
      ]);
      expect(seen.map((each) => each.healthy)).toEqual(['1', '1', '0', '0', '0']);
      expect(seen.slice(2).map((each) => each.status)).toEqual(['critical', 'critical', 'critical']);
      expect(seen[3]?.collected).toBe(handshake === undefined ? 'never' : 'down');
      // One line when it went bad; none saying it recovered.
      expect(messages.some((line) => /recovered|no longer a problem/.test(line)), messages.join('\n')).toBe(false);
    });
  }

  it('a live link whose counters reset: rx since the reset is data, the fresh handshake is up', async () => {
    const { seen } = await collect([
      { wall: 0, rx: 5_000, tx: 5_000, age: 20 },
      { wall: 30, rx: 9_000, tx: 9_000, age: 50 },
      { wall: 60, rx: 600, tx: 700, age: 10 },
    ]);
    expect(seen.map((each) => each.collected)).toEqual(['up', 'up', 'up']);
    expect(seen.map((each) => each.status)).toEqual(['ok', 'ok', 'ok']);
  });

  it('a counter that fell to 0 did not grow: an idle link re-created is not expected for it', async () => {
    const { seen } = await collect([
      { wall: 0, rx: 5_000, tx: 5_000, age: 1_000 },
      { wall: 30, rx: 5_000, tx: 5_000, age: 1_030 },
      { wall: 60, rx: 0, tx: 0, age: undefined },
    ]);
    expect(seen.map((each) => each.collected)).toEqual(['idle', 'idle', 'never']);
    expect(seen.map((each) => each.healthy)).toEqual(['1', '1', '1']);
  });
});
