import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapSystem } from '../../src/collectors/system.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import type { PeerTable } from '../../src/collectors/wireguard-peers.js';
import { mapPing, pingParameters } from '../../src/collectors/ping.js';
import { bandwidthTestParameters, mapBandwidthTest, mapBandwidthTestSteps } from '../../src/collectors/bandwidth-test.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { fixtureList, fixtureRecord } from '../helpers/fixtures.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';
import { plainOf } from '../../src/metrics/gzip.js';
import { routerLabel } from '../../src/metrics/family.js';

const ROUTER = routerLabel('hq');
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function text(samples: SampleSet): string {
  return samples
    .toChunks()
    .filter((chunk) => chunk !== undefined)
    .map((chunk) => plainOf(chunk).toString('utf8'))
    .join('');
}

describe('system/resource mapping', () => {
  it('decodes units: load ratio, MHz to Hz, uptime with weeks', () => {
    const result = mapSystem(fixtureRecord('system-resource-7.19-week-uptime.json'), ROUTER);
    const out = text(result.samples);
    expect(out).toContain('routeros_system_cpu_load_ratio{router="hq"} 0.03\n');
    expect(out).toContain('routeros_system_cpu_frequency_hertz{router="hq"} 2099000000\n');
    expect(out).toContain('routeros_system_uptime_seconds{router="hq"} 631072\n');
    expect(out).toContain('routeros_system_disk_total_bytes{router="hq"} 17040297984\n');
    expect(out).toContain('version="7.19.4 (stable)"');
    expect(result.problems).toEqual([]);
  });

  it('leaves out an undecodable value, keeps the rest, and says which', () => {
    const result = mapSystem({ 'cpu-load': 'lots', uptime: '5m', version: '7.16 (stable)' }, ROUTER);
    const out = text(result.samples);
    expect(out).not.toContain('cpu_load_ratio');
    expect(out).not.toContain('NaN');
    expect(out).toContain('routeros_system_uptime_seconds{router="hq"} 300\n');
    expect(result.problems.join()).toMatch(/cpu-load/);
  });
});

describe('wireguard mapping', () => {
  // wg-branch's peers are always-on site links (no keepalive in the capture): judged against handshake_stale_after.
  const health = testRouter({}, { health: { expect: { 'wg-branch': 'always' } } }).health;
  const result = mapWireguard(fixtureList('wireguard-interfaces.json'), fixtureList('wireguard-peers.json'), ROUTER, health, NOW);
  const out = text(result.samples);

  it('names a peer by name, else by comment, and escapes label values', () => {
    expect(out).toContain('name="branch-1"');
    expect(out).toContain('name="Zürich \\\\ \\"lab\\"\\nline2"');
    expect(out).toContain('name="never-seen"');
  });

  it('turns last-handshake ages into timestamps and never into 0', () => {
    expect(out).toMatch(/latest_handshake_timestamp_seconds\{[^}]*name="branch-1"\} 1795262335\n/);
    expect(out).toMatch(/latest_handshake_timestamp_seconds\{[^}]*name="never-seen"\} 0\n/);
  });

  it('judges enabled peers only: stale, never and fresh; disabled peers have no verdict series', () => {
    expect(out).toMatch(/peer_healthy\{[^}]*name="branch-1"\} 1\n/);
    expect(out).toMatch(/peer_healthy\{[^}]*public_key="eLZ[^"]*"[^}]*\} 0\n/);
    expect(out).toMatch(/peer_healthy\{[^}]*name="never-seen"\} 0\n/);
    expect(out).not.toMatch(/peer_healthy\{[^}]*name="laptop"/);
    expect([...result.data.peers].map((peer) => [peer.disabled, peer.latestHandshake === undefined])).toEqual([
      [false, false],
      [false, false],
      [false, true],
      [true, true],
    ]);
  });

  it('keeps for health only what verdicts need: no traffic, endpoints or addresses per peer', () => {
    for (const peer of result.data.peers) {
      expect(Object.keys(peer).sort()).toEqual([
        'comment', 'disabled', 'factsUnreadable', 'handshakeUnreadable', 'hasEndpoint', 'interface', 'keepaliveSeconds', 'latestHandshake', 'name',
        'probe', 'probeLossRatio', 'probeRttSeconds', 'probedAt', 'publicKey', 'rxMoved', 'rxMovedUnknown', 'rxUnanswered', 'txMoved', 'txMovedUnknown', 'unansweredBefore', 'unansweredUnconfirmed',
      ]);
    }
  });

  it('reports the current endpoint, else the configured one, and counters beyond 2^32', () => {
    expect(out).toContain('endpoint="198.51.100.7:51209"');
    expect(out).toContain('endpoint="vpnserver.com:51820"');
    expect(out).toContain('endpoint="[2001:db8::7]:40000"');
    expect(out).toMatch(/transmit_bytes_total\{[^}]*name="branch-1"\} 58834536231\n/);
  });

  it('maps interfaces with running, disabled, port and MTU', () => {
    expect(out).toContain('routeros_wireguard_interface_running{router="hq",interface="wg-road"} 0\n');
    expect(out).toContain('routeros_wireguard_interface_disabled{router="hq",interface="wg-road"} 1\n');
    expect(out).toContain('routeros_wireguard_interface_listen_port{router="hq",interface="wg-branch"} 13231\n');
    expect(out).toContain('routeros_wireguard_interface_mtu_bytes{router="hq",interface="wg-branch"} 1420\n');
  });

  it('excluded peers are reported but not judged', () => {
    const excluded = testRouter({ health: { exclude_peer_pattern: 'never.*' } }).health;
    const mapped = mapWireguard([], fixtureList('wireguard-peers.json'), ROUTER, excluded, NOW);
    expect(text(mapped.samples)).not.toMatch(/peer_healthy\{[^}]*name="never-seen"/);
  });

  it('drops a repeated peer identity instead of emitting duplicate series', () => {
    const peers = fixtureList('wireguard-peers.json');
    const mapped = mapWireguard([], [...peers, ...peers], ROUTER, health, NOW);
    expect(mapped.data.peers).toHaveLength(4);
  });

  it('keeps no room for the repeats of a reply that lists its peers many times over', () => {
    const peers = fixtureList('wireguard-peers.json');
    const mapped = mapWireguard([], Array.from({ length: 1_000 }, () => peers).flat(), ROUTER, health, NOW);
    const kept = mapped.data.peers as PeerTable;
    expect(kept.length).toBe(4);
    expect(kept.capacity).toBe(4);
    // The same rows as a reply listing them twice (repeats are twins: not judged), from a table of their size.
    expect([...kept]).toEqual([...mapWireguard([], [...peers, ...peers], ROUTER, health, NOW).data.peers]);
  });

  it('keeps a table sized by the distinct peers, however often and in whatever order a reply lists them', () => {
    const peer = (i: number): RouterRecord => ({ interface: `wg${i % 3}`, 'public-key': `${String(i).padStart(43, 'P')}=`, name: `p${i}`, rx: '1', tx: '1' });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (distinct, repeats, seed) => {
          // Every distinct peer once and `repeats` more picked at random, in a random order (a hostile reply may
          // list them so); a small generator of its own, as fast-check keeps its arrays short.
          let state = seed;
          const random = (below: number): number => {
            state = (state * 48_271) % 2_147_483_647;
            return state % below;
          };
          const reply = [...Array.from({ length: distinct }, (_, i) => peer(i)), ...Array.from({ length: repeats }, () => peer(random(distinct)))];
          for (let i = reply.length - 1; i > 0; i--) {
            const j = random(i + 1);
            [reply[i], reply[j]] = [reply[j] as RouterRecord, reply[i] as RouterRecord];
          }
          const kept = mapWireguard([], reply, ROUTER, health, NOW).data.peers as PeerTable;
          expect(kept.length).toBe(distinct);
          expect(kept.capacity).toBeLessThanOrEqual(distinct + 16 + distinct / 8);
          expect(new Set([...kept].map((row) => `${row.interface} ${row.publicKey}`)).size).toBe(distinct);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('an undecodable handshake leaves the timestamp out rather than claiming never', () => {
    const mapped = mapWireguard([], [{ interface: 'wg0', 'public-key': 'k', 'last-handshake': 'soon' }], ROUTER, health, NOW);
    const body = text(mapped.samples);
    expect(body).not.toContain('latest_handshake');
    expect(body).not.toContain('peer_healthy');
    expect(mapped.problems[0]).toMatch(/last-handshake/);
  });
});

describe('ping mapping', () => {
  const router = testRouter({ ping: [{ target: '10.10.0.2', count: 3, interval: '200ms', interface: 'wg-branch', name: 'branch' }] });
  const target = router.ping[0];
  if (target === undefined) throw new Error('no target');

  it('always bounds the ping with count and passes the optional knobs', () => {
    expect(pingParameters(target)).toEqual({ address: '10.10.0.2', count: '3', interval: '200ms', interface: 'wg-branch' });
  });

  it('takes the totals from the last row and sums packets across runs', () => {
    const totals = new Map<string, number>();
    mapPing(fixtureList('ping-lossy.json'), target, ROUTER, totals);
    const second = text(mapPing(fixtureList('ping-lossy.json'), target, ROUTER, totals).samples);
    expect(second).toContain('routeros_ping_success{router="hq",target="10.10.0.2",name="branch"} 1\n');
    // From the counts (2 of 3), not the rounded packet-loss of 33.
    expect(second).toContain(`routeros_ping_loss_ratio{router="hq",target="10.10.0.2",name="branch"} ${1 / 3}\n`);
    expect(second).toContain('routeros_ping_rtt_seconds{router="hq",target="10.10.0.2",name="branch",stat="avg"} 0.006543\n');
    expect(second).toContain('routeros_ping_packets_sent_total{router="hq",target="10.10.0.2",name="branch"} 6\n');
    expect(second).toContain('routeros_ping_packets_received_total{router="hq",target="10.10.0.2",name="branch"} 4\n');
  });

  it('property: whatever totals the last row lacks or garbles, received never outgrows sent, neither goes back, and success needs both', () => {
    const total = fc.oneof(fc.constant(undefined), fc.nat(20).map(String), fc.constantFrom('', 'x', '-3', '1.5'));
    // Every ping row has its seq (real-formats §4): a reply without seq or counts is no ping's (ROS_ERR_SHAPE).
    const row = fc.record({ seq: fc.nat(20).map(String), sent: total, received: total, 'packet-loss': fc.oneof(fc.constant(undefined), fc.constantFrom('0', '33', '100')) });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), (rows) => {
        const totals = new Map<string, number>();
        let before = { sent: 0, received: 0 };
        for (const raw of rows) {
          const record = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)) as Record<string, string>;
          const out = text(mapPing([record], target, ROUTER, totals).samples);
          const value = (family: string): number => Number(new RegExp(`^${family}\\{[^}]*\\} (\\S+)$`, 'm').exec(out)?.[1]);
          const now = { sent: value('routeros_ping_packets_sent_total'), received: value('routeros_ping_packets_received_total') };
          expect(now.received).toBeLessThanOrEqual(now.sent);
          expect(now.sent).toBeGreaterThanOrEqual(before.sent);
          expect(now.received).toBeGreaterThanOrEqual(before.received);
          // Both totals read, and no more sent than the run's count asked for (3).
          const both = /^\d+$/.test(record['sent'] ?? '') && /^\d+$/.test(record['received'] ?? '') && Number(record['sent']) <= target.count;
          expect(out.includes('routeros_ping_success{')).toBe(both);
          before = now;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: loss comes from the counts whatever packet-loss says, and round trips come out in order or not at all', () => {
    const count = fc.nat(10).map(String);
    const rtt = fc.oneof(fc.constant(undefined), fc.constantFrom('0ms', '1ms', '2ms500us', '4ms', '900us', '12ms', 'x'));
    const row = fc.record({ seq: fc.constant('0'), sent: count, received: count, 'packet-loss': fc.oneof(fc.constant(undefined), fc.constantFrom('0', '33', '50', '100', '-5')), 'min-rtt': rtt, 'avg-rtt': rtt, 'max-rtt': rtt });
    fc.assert(
      fc.property(row, (raw) => {
        const record = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)) as Record<string, string>;
        const result = mapPing([record], { ...target, count: 10 }, ROUTER, new Map());
        const sent = Number(record['sent']);
        const received = Math.min(Number(record['received']), sent);
        // Duplicates (received above sent): the one reply row answered one ping.
        expect(result.data.lossRatio).toBe(sent === 0 ? undefined : Number(record['received']) > sent ? (sent - 1) / sent : (sent - received) / sent);
        const { min, avg, max } = result.data.rttSeconds;
        if (min !== undefined && max !== undefined) expect(min).toBeLessThanOrEqual(max + 1e-6);
        if (avg !== undefined && min !== undefined) expect(min).toBeLessThanOrEqual(avg + 1e-6);
        if (avg !== undefined && max !== undefined) expect(avg).toBeLessThanOrEqual(max + 1e-6);
      }),
      { numRuns: 1000 },
    );
  });

  it('a reply whose packet-loss contradicts its counts is judged by the counts, and counted as a problem', () => {
    const result = mapPing([{ sent: '3', received: '0', 'packet-loss': '0' }], target, ROUTER, new Map());
    expect(result.data).toMatchObject({ success: false, lossRatio: 1 });
    expect(result.decodeErrors).toBe(1);
    expect(text(result.samples)).toContain('routeros_ping_loss_ratio{router="hq",target="10.10.0.2",name="branch"} 1\n');
  });

  it('a reply with more sent than the run asked for is not counted: the summed counters stay true', () => {
    const totals = new Map<string, number>();
    mapPing([{ sent: '3', received: '3' }], target, ROUTER, totals);
    const odd = mapPing([{ sent: '9007199254740993', received: '0', 'packet-loss': '100' }], target, ROUTER, totals);
    expect(odd.decodeErrors).toBe(1);
    expect(odd.problems[0]).toContain('sent 9007199254740992 is more than the 3 pings asked for');
    expect(odd.data.success).toBeUndefined();
    const after = text(mapPing([{ sent: '3', received: '3' }], target, ROUTER, totals).samples);
    expect(after).toContain('routeros_ping_packets_sent_total{router="hq",target="10.10.0.2",name="branch"} 6\n');
    expect(after).toContain('routeros_ping_packets_received_total{router="hq",target="10.10.0.2",name="branch"} 6\n');
  });

  it('round trips out of order (min above max) are left out and counted as a problem', () => {
    const result = mapPing([{ sent: '3', received: '3', 'packet-loss': '0', 'min-rtt': '9ms', 'avg-rtt': '5ms', 'max-rtt': '1ms' }], target, ROUTER, new Map());
    expect(result.data.rttSeconds).toEqual({});
    expect(text(result.samples)).not.toContain('rtt');
    expect(result.decodeErrors).toBe(1);
  });

  it('a run without replies is success 0, loss 1 and has no RTT', () => {
    const out = text(mapPing(fixtureList('ping-timeout.json'), target, ROUTER, new Map()).samples);
    expect(out).toContain('routeros_ping_success{router="hq",target="10.10.0.2",name="branch"} 0\n');
    expect(out).toContain('routeros_ping_loss_ratio{router="hq",target="10.10.0.2",name="branch"} 1\n');
    expect(out).not.toContain('rtt');
  });
});

describe('bandwidth-test mapping', () => {
  const router = testRouter({ bandwidth_test: [{ target: '10.10.0.2', duration: '2s', schedule: '0 0 3 * * *' }] });
  const test = router.bandwidthTest[0];
  if (test === undefined) throw new Error('no test');

  it('always bounds the test with a duration', () => {
    expect(bandwidthTestParameters(test)).toMatchObject({ address: '10.10.0.2', duration: '2s' });
  });

  it('uses the final section for the rates, every section for lost packets', () => {
    const out = text(mapBandwidthTest(fixtureList('bandwidth-test.json'), test, ROUTER, NOW).samples);
    expect(out).toContain('routeros_bandwidth_test_success{router="hq",target="10.10.0.2",name="10.10.0.2"} 1\n');
    expect(out).toContain('routeros_bandwidth_test_receive_bytes_per_second{router="hq",target="10.10.0.2",name="10.10.0.2"} 111497376\n');
    expect(out).toContain('routeros_bandwidth_test_transmit_bytes_per_second{router="hq",target="10.10.0.2",name="10.10.0.2"} 52000000\n');
    // Lost packets are counted per section (the manual's capture goes 0, 0, 581175, 9014): the run lost their sum, 0 + 12 + 9014.
    expect(out).toContain('routeros_bandwidth_test_lost_packets{router="hq",target="10.10.0.2",name="10.10.0.2"} 9026\n');
  });

  it('maps a long reply in steps, a pause possible every 1,024 rows, to what it maps at once (found by review)', () => {
    const rows = Array.from({ length: 20_000 }, (_, section) => ({ '.section': String(section), status: 'running', 'lost-packets': '1' }));
    rows.push({ '.section': '20000', status: 'done testing', 'lost-packets': '1' });
    const steps = mapBandwidthTestSteps(rows, test, ROUTER, NOW);
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(rows.length / 1024));
    expect(text(step.value.samples)).toBe(text(mapBandwidthTest(rows, test, ROUTER, NOW).samples));
    expect(text(step.value.samples)).toContain('routeros_bandwidth_test_lost_packets{router="hq",target="10.10.0.2",name="10.10.0.2"} 20001\n');
  });

  it('counts each section once, from the same row whatever order the reply lists its twins in (a section listed three times was summed three times: found by a hostile tester)', () => {
    // Per section its lost packets; twins repeat a section, the same row (lost null) or one with other figures.
    const caseArb = fc
      .record({
        lost: fc.array(fc.nat(1_000_000), { minLength: 1, maxLength: 8 }),
        twins: fc.array(fc.record({ of: fc.nat(), lost: fc.option(fc.nat(1_000_000)), rx: fc.nat(1_000_000_000) }), { maxLength: 6 }),
      })
      .chain(({ lost, twins }) => {
        const row = (section: number, lostPackets: number, rx: number): RouterRecord => ({
          '.section': String(section),
          direction: 'receive',
          'lost-packets': String(lostPackets),
          'rx-total-average': String(rx),
          status: section === lost.length - 1 ? 'done testing' : 'running',
        });
        const once = lost.map((lostPackets, section) => row(section, lostPackets, 891_979_008));
        const repeated = twins.map((twin) => {
          const section = twin.of % lost.length;
          return twin.lost === null ? { ...(once[section] as RouterRecord) } : row(section, twin.lost, twin.rx);
        });
        // The done-testing row stays last (its rates and status are the run's); every other row in any order.
        const body = [...once.slice(0, -1), ...repeated];
        const anyOrder = fc.shuffledSubarray(body, { minLength: body.length, maxLength: body.length });
        return fc.record({ once: fc.constant(once), repeated: fc.constant(repeated), a: anyOrder, b: anyOrder });
      });
    const lostOf = (rows: readonly RouterRecord[]) => {
      const result = mapBandwidthTest(rows, test, ROUTER, NOW);
      const match = /routeros_bandwidth_test_lost_packets\{[^}]*\} (\d+)\n/.exec(text(result.samples));
      return { lost: match === null ? undefined : Number(match[1]), decodeErrors: result.decodeErrors };
    };
    fc.assert(
      fc.property(caseArb, ({ once, repeated, a, b }) => {
        const last = once.at(-1) as RouterRecord;
        const [first, second] = [lostOf([...a, last]), lostOf([...b, last])];
        expect(first).toEqual(second);
        expect(first.decodeErrors).toBe(repeated.length === 0 ? 0 : 1);
        // Each section counts one of its rows: the sum lies between its rows' least and greatest counts, and is the plain sum when its twins are alike.
        const bySection = (pick: (values: number[]) => number) =>
          once.reduce((sum, row) => sum + pick([row, ...repeated].filter((other) => other['.section'] === row['.section']).map((other) => Number(other['lost-packets']))), 0);
        expect(first.lost).toBeGreaterThanOrEqual(bySection((values) => Math.min(...values)));
        expect(first.lost).toBeLessThanOrEqual(bySection((values) => Math.max(...values)));
      }),
      { numRuns: 500 },
    );
    // The hostile tester's reply: section 1 (1000 lost) listed three times read 3010.
    const row = (section: number, status: string, lost: number) => ({ '.section': String(section), status, 'lost-packets': String(lost), 'rx-total-average': '891979008' });
    const tripled = [row(0, 'connecting', 0), row(1, 'running', 1000), row(1, 'running', 1000), row(1, 'running', 1000), row(2, 'done testing', 10)];
    expect(lostOf(tripled)).toEqual({ lost: 1010, decodeErrors: 1 });
  });

  it('a test that could not run is success 0 without rates', () => {
    const out = text(mapBandwidthTest([{ '.section': '0', status: 'can not connect' }], test, ROUTER, NOW).samples);
    expect(out).toContain('routeros_bandwidth_test_success{router="hq",target="10.10.0.2",name="10.10.0.2"} 0\n');
    expect(out).not.toContain('bytes_per_second');
  });

  it.each([[[]], [[{ status: '' }]], [[{ message: 'ok' }]]])('a reply with no status row (%j) is not a test that failed but a shape error', (rows) => {
    expect(() => mapBandwidthTest(rows, test, ROUTER, NOW)).toThrow(expect.objectContaining({ code: 'ROS_ERR_SHAPE' }));
  });
});
