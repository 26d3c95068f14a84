/**
 * Which peers the tunnel probe pings (planProbes) under each setting, and how a /ping reply becomes rtt and loss
 * (readProbeReply): pure functions, no socket.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planProbes, planProbesSteps, probeKey, probeKeyInterface, PROBES_PER_RUN, readProbeReply, rememberProbesSteps, runProbes, wantsProbes, wantsProbesSteps } from '../../src/collectors/wireguard-probe.js';
import { FieldReader } from '../../src/analysis/decoding.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testRouter } from '../helpers/config.js';

const INTERFACES: RouterRecord[] = [
  { name: 'wg-sites', disabled: 'false' },
  { name: 'wg-road', disabled: 'false' },
  { name: 'wg-off', disabled: 'true' },
];
const ADDRESSES: RouterRecord[] = [
  { address: '10.9.0.1/24', interface: 'wg-sites', disabled: 'false' },
  { address: '10.8.0.1/24', interface: 'wg-road', disabled: 'false' },
];

function peer(name: string, iface: string, address: string, extra: RouterRecord = {}): RouterRecord {
  return { interface: iface, 'public-key': `${name}-key`, name, 'allowed-address': address, disabled: 'false', ...extra };
}

const PEERS: RouterRecord[] = [
  peer('site-a', 'wg-sites', '10.9.0.2/32', { 'persistent-keepalive': '25s' }),
  peer('site-b', 'wg-sites', '10.9.0.3/32,192.168.3.0/24', { 'persistent-keepalive': '25s' }),
  peer('site-subnet', 'wg-sites', '192.168.4.0/24', { 'persistent-keepalive': '25s' }),
  peer('laptop', 'wg-road', '10.8.0.5/32'),
  peer('disabled', 'wg-sites', '10.9.0.9/32', { disabled: 'true', 'persistent-keepalive': '25s' }),
  peer('on-disabled-iface', 'wg-off', '10.7.0.2/32', { 'persistent-keepalive': '25s' }),
];

function plan(health: Record<string, unknown>, peers = PEERS, addresses = ADDRESSES): { targets: string[]; reasons: Record<string, string> } {
  const settings = testRouter({}, { health }).health;
  const { targets, skipped } = planProbes(INTERFACES, peers, addresses, settings);
  return {
    targets: targets.map((target) => `${target.interface} ${target.address} from ${target.src}`),
    reasons: Object.fromEntries([...skipped].map(([key, result]) => [key.split('|')[1]?.replace('-key', ''), result.outcome])),
  };
}

describe('probeKey', () => {
  it('names one peer: different interface and key pairs never share a key, whatever text the router sends', () => {
    expect(probeKey('a|b', 'c')).not.toBe(probeKey('a', 'b|c'));
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '|', ':', '1', '2') , maxLength: 6 });
    fc.assert(
      fc.property(text, text, text, text, (i1, k1, i2, k2) => {
        if (i1 !== i2 || k1 !== k2) expect(probeKey(i1, k1)).not.toBe(probeKey(i2, k2));
        expect(probeKeyInterface(probeKey(i1, k1))).toBe(i1);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('planProbes', () => {
  it('default (auto, nothing declared): nobody, every enabled peer off, disabled ones not listed', () => {
    expect(plan({})).toEqual({ targets: [], reasons: { 'site-a': 'off', 'site-b': 'off', 'site-subnet': 'off', laptop: 'off' } });
    expect(wantsProbes(INTERFACES, PEERS, testRouter().health)).toBe(false);
  });

  it('auto: peers declared expect: always (by name or interface) with a tunnel address; keepalive alone is not enough', () => {
    expect(plan({ expect: { 'site-a': 'always' } }).targets).toEqual(['wg-sites 10.9.0.2 from 10.9.0.1']);
    const byInterface = plan({ expect: { 'wg-sites': 'always', 'site-b': 'on_demand' } });
    expect(byInterface.targets).toEqual(['wg-sites 10.9.0.2 from 10.9.0.1']);
    expect(byInterface.reasons).toEqual({ 'site-b': 'off', 'site-subnet': 'no_tunnel_address', laptop: 'off' });
  });

  it('probe_tunnels true: every peer expected up (keepalive or always), as before; false: none', () => {
    expect(plan({ probe_tunnels: true }).targets).toEqual(['wg-sites 10.9.0.2 from 10.9.0.1', 'wg-sites 10.9.0.3 from 10.9.0.1']);
    expect(plan({ probe_tunnels: true, expect: { 'site-a': 'on_demand' } }).targets).toEqual(['wg-sites 10.9.0.3 from 10.9.0.1']);
    expect(plan({ probe_tunnels: false, expect: { 'wg-sites': 'always' } }).targets).toEqual([]);
  });

  it('health.probe: interface on probes its peers whatever is expected; the peer entry wins; it overrides probe_tunnels', () => {
    expect(plan({ probe: { 'wg-road': 'on' } }).targets).toEqual(['wg-road 10.8.0.5 from 10.8.0.1']);
    expect(plan({ probe_tunnels: false, probe: { 'wg-sites': 'on', 'site-b': 'off' } })).toEqual({
      targets: ['wg-sites 10.9.0.2 from 10.9.0.1'],
      reasons: { 'site-b': 'off', 'site-subnet': 'no_tunnel_address', laptop: 'off' },
    });
    expect(plan({ probe_tunnels: true, probe: { 'site-a': 'off' } }).targets).toEqual(['wg-sites 10.9.0.3 from 10.9.0.1']);
    // Never a disabled peer, nor a peer of a disabled interface, whatever the settings say.
    expect(plan({ probe: { disabled: 'on', 'wg-off': 'on' } }).targets).toEqual([]);
  });

  it('says why a selected peer is not probed: no tunnel address, no source address, over the cap', () => {
    expect(plan({ probe: { 'wg-road': 'on' } }, PEERS, [ADDRESSES[0] ?? {}]).reasons['laptop']).toBe('no_source_address');
    const many = Array.from({ length: PROBES_PER_RUN + 3 }, (_, i) => peer(`p${i}`, 'wg-sites', `10.9.1.${i}/32`));
    const { targets, reasons } = plan({ probe: { 'wg-sites': 'on' } }, many);
    expect(targets).toHaveLength(PROBES_PER_RUN);
    expect(Object.values(reasons)).toEqual(['over_cap', 'over_cap', 'over_cap']);
  });

  it("pings from the interface address whose network holds the peer's, else the first (found by review)", () => {
    const twoSubnets = [
      { address: '10.10.0.1/24', interface: 'wg-sites', disabled: 'false' },
      { address: '10.20.0.1/24', interface: 'wg-sites', disabled: 'false' },
    ];
    const peers = [peer('in-second', 'wg-sites', '10.20.0.2/32'), peer('in-neither', 'wg-sites', '10.30.0.2/32')];
    expect(plan({ probe: { 'wg-sites': 'on' } }, peers, twoSubnets).targets).toEqual(['wg-sites 10.20.0.2 from 10.20.0.1', 'wg-sites 10.30.0.2 from 10.10.0.1']);
  });

  it('never pings from an address RouterOS marks invalid, nor a disabled one (found by review)', () => {
    const addresses: RouterRecord[] = [
      { address: '10.20.0.9/30', interface: 'wg-sites', disabled: 'false', invalid: 'true' },
      { address: '10.20.0.5/30', interface: 'wg-sites', disabled: 'true' },
      { address: '10.20.0.1/24', interface: 'wg-sites', disabled: 'false', invalid: 'false' },
    ];
    expect(plan({ probe: { 'wg-sites': 'on' } }, [peer('in-30', 'wg-sites', '10.20.0.10/32')], addresses).targets).toEqual(['wg-sites 10.20.0.10 from 10.20.0.1']);
    expect(plan({ probe: { 'wg-sites': 'on' } }, [peer('in-30', 'wg-sites', '10.20.0.10/32')], addresses.slice(0, 2)).reasons).toEqual({ 'in-30': 'no_source_address' });
  });

  it('of the addresses whose networks hold the peer\'s, pings from the narrowest, whatever their order (found by review)', () => {
    const nested = [
      { address: '10.20.9.1/16', interface: 'wg-sites', disabled: 'false' },
      { address: '10.20.0.1/24', interface: 'wg-sites', disabled: 'false' },
      { address: '10.20.0.9/30', interface: 'wg-sites', disabled: 'false' },
    ];
    const peers = [peer('in-24', 'wg-sites', '10.20.0.2/32'), peer('in-30', 'wg-sites', '10.20.0.10/32'), peer('in-16', 'wg-sites', '10.20.5.2/32')];
    const expected = ['wg-sites 10.20.0.2 from 10.20.0.1', 'wg-sites 10.20.0.10 from 10.20.0.9', 'wg-sites 10.20.5.2 from 10.20.9.1'];
    expect(plan({ probe: { 'wg-sites': 'on' } }, peers, nested).targets).toEqual(expected);
    expect(plan({ probe: { 'wg-sites': 'on' } }, peers, [...nested].reverse()).targets).toEqual(expected);
    // Two as narrow: the lower address, in either order.
    const twins = [
      { address: '10.20.0.9/24', interface: 'wg-sites', disabled: 'false' },
      { address: '10.20.0.10/24', interface: 'wg-sites', disabled: 'false' },
    ];
    for (const order of [twins, [...twins].reverse()]) expect(plan({ probe: { 'wg-sites': 'on' } }, [peers[0] ?? {}], order).targets).toEqual(['wg-sites 10.20.0.2 from 10.20.0.9']);
  });

  it('a peer listed twice (same interface and key) is probed once', () => {
    const twice = [PEERS[0] ?? {}, { ...PEERS[0] }, PEERS[1] ?? {}];
    expect(plan({ probe: { 'wg-sites': 'on' } }, twice).targets).toEqual(['wg-sites 10.9.0.2 from 10.9.0.1', 'wg-sites 10.9.0.3 from 10.9.0.1']);
  });
});

describe('readProbeReply', () => {
  const read = (reply: unknown, count = 3): { result: ReturnType<typeof readProbeReply>; errors: number } => {
    const reader = new FieldReader('ping (tunnel probe)');
    return { result: readProbeReply(reply, reader, count), errors: reader.errors };
  };

  it('more sent than the probe asked for: error, not a loss (the ping collector refuses the same reply; found by review)', () => {
    const reader = new FieldReader('ping (tunnel probe)');
    expect(readProbeReply([{ sent: '5', received: '1', 'avg-rtt': '1ms' }], reader, 1)).toEqual({ outcome: 'error' });
    expect(reader.problems).toEqual(['ping (tunnel probe) sent 5 is more than the 1 pings asked for']);
    expect(read([{ sent: '1', received: '1', 'avg-rtt': '1ms' }], 1).result.outcome).toBe('ok');
  });

  it('round trips from the rows of a long reply fold without the stack (Math.min of every row overflowed it; found by review)', () => {
    const rows = Array.from({ length: 200_000 }, (_, seq) => ({ seq: String(seq), time: `${String(1 + (seq % 7))}ms` }));
    const last = { seq: '199999', time: '2ms', sent: '200000', received: '200000' };
    expect(read([...rows.slice(0, -1), last], 200_000).result).toEqual({ outcome: 'ok', lossRatio: 0, rttSeconds: expect.closeTo(0.004, 3) });
  });

  it('every ping answered: ok, loss 0, rtt the avg-rtt in seconds', () => {
    expect(read([{ sent: '1', received: '1', 'avg-rtt': '8ms123us' }])).toEqual({ result: { outcome: 'ok', lossRatio: 0, rttSeconds: 0.008123 }, errors: 0 });
  });

  it('some answered: partial with the exact ratio from the counts (not the rounded packet-loss)', () => {
    expect(read([{ sent: '1', received: '1' }, { sent: '2', received: '1' }, { sent: '3', received: '2', 'packet-loss': '33', 'avg-rtt': '20ms' }]).result).toEqual({ outcome: 'partial', lossRatio: 1 / 3, rttSeconds: 0.02 });
  });

  it('none answered: failed, loss 1, no rtt', () => {
    expect(read([{ sent: '3', received: '0', 'packet-loss': '100', status: 'timeout' }]).result).toEqual({ outcome: 'failed', lossRatio: 1 });
  });

  it('duplicate replies (received above sent) count each answered ping once, never a negative loss', () => {
    const answers = (seq: string, sent: string, received: string) => ({ seq, time: '1ms', sent, received, 'avg-rtt': '1ms' });
    expect(read([answers('0', '1', '1'), answers('0', '1', '2'), answers('1', '2', '3'), answers('1', '2', '5')]).result).toEqual({ outcome: 'ok', lossRatio: 0, rttSeconds: 0.001 });
    // One of two lost, the other answered twice: partial, not ok (found by review).
    expect(read([{ seq: '0', status: 'timeout', sent: '1', received: '0' }, answers('1', '2', '1'), answers('1', '2', '2')]).result).toEqual({ outcome: 'partial', lossRatio: 0.5, rttSeconds: 0.001 });
    // Rows that cannot tell which pings were answered: not judged.
    expect(read([{ sent: '2', received: '5', 'avg-rtt': '1ms' }])).toEqual({ result: { outcome: 'error' }, errors: 1 });
  });

  it('a one-ping probe whose row has no avg-rtt takes the row\'s time (found by review)', () => {
    expect(read([{ host: '10.9.0.2', sent: '1', received: '1', seq: '0', time: '56ms639us', ttl: '64' }]).result).toEqual({ outcome: 'ok', lossRatio: 0, rttSeconds: 0.056639 });
  });

  it('a reply without readable totals is error, counted as a decode problem, never a loss', () => {
    for (const reply of [[], {}, null, 'x', [{ sent: '0', received: '0' }], [{ received: '1' }], [{ sent: 'x', received: '1' }], [7]]) {
      const { result, errors } = read(reply);
      expect(result).toEqual({ outcome: 'error' });
      expect(errors).toBeGreaterThan(0);
    }
  });

  it('an unreadable or out-of-range rtt is left out and counted; the outcome stands', () => {
    expect(read([{ sent: '1', received: '1', 'avg-rtt': 'soon' }])).toEqual({ result: { outcome: 'ok', lossRatio: 0 }, errors: 1 });
    expect(read([{ sent: '1', received: '1', 'avg-rtt': '2h' }])).toEqual({ result: { outcome: 'ok', lossRatio: 0 }, errors: 1 });
  });
});

describe('planning probes for a hub', () => {
  it('plans and remembers in steps, a pause possible every 256 peers, to what it plans at once (600,000 peers took one task of 2.1 s)', () => {
    const peers = Array.from({ length: 5_000 }, (_, i) => peer(`site-${i}`, 'wg-sites', `10.9.${i >> 8}.${i & 255}/32`, { 'persistent-keepalive': '25s' }));
    const settings = testRouter({}, { health: { probe_tunnels: true } }).health;
    const steps = planProbesSteps(INTERFACES, peers, ADDRESSES, settings);
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(5_000 / 256));
    expect(step.value).toEqual(planProbes(INTERFACES, peers, ADDRESSES, settings));
    expect(step.value.targets).toHaveLength(PROBES_PER_RUN);
    // The job's memory: a probe's four entries per peer, and others (the counters') it leaves alone.
    const memory = new Map<string, number>(Array.from({ length: 3_000 }, (_, i) => [`other ${i}`, i]));
    const remember = rememberProbesSteps({ memory, now: 1, minGapMs: 1 }, new Map(step.value.targets.map((target) => [target.key, { outcome: 'ok' as const, lossRatio: 0 }])), step.value.selected);
    pauses = 0;
    for (let next = remember.next(); next.done !== true; next = remember.next()) pauses++;
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(3_000 / 256));
    expect(memory.size).toBe(3_000 + 4 * PROBES_PER_RUN);
  });

  it('forgets results too old to stand again, and plans every later run as if it had kept them (found by review: a hub whose order changed each run kept three entries per peer for good)', () => {
    const peers = Array.from({ length: 40 }, (_, i) => peer(`site-${i}`, 'wg-sites', `10.9.0.${i + 2}/32`, { 'persistent-keepalive': '25s' }));
    const settings = testRouter({}, { health: { probe_tunnels: true } }).health;
    const minGapMs = 15_000;
    const now = 1_800_000_000_000;
    const keys = planProbes(INTERFACES, peers, ADDRESSES, settings).selected;
    fc.assert(
      fc.property(
        // Per peer: no result, or one that ran this long before now (negative: a clock stepped back since).
        fc.array(fc.option(fc.integer({ min: -minGapMs, max: 3 * minGapMs }), { nil: undefined }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.nat(39), { maxLength: 16 }),
        fc.array(fc.nat(3 * minGapMs), { minLength: 1, maxLength: 4 }),
        (ages, freshPeers, laterGaps) => {
          const memory = new Map<string, number>([['other', 1]]);
          for (const [i, key] of [...keys].entries()) {
            const age = ages[i];
            if (age === undefined) continue;
            memory.set(`probe@ ${key}`, now - age);
            memory.set(`probe% ${key}`, 0);
            memory.set(`probe~ ${key}`, 0.01);
            memory.set(`probe! ${key}`, 0);
          }
          const fresh = new Map([...keys].filter((_, i) => freshPeers.includes(i)).map((key) => [key, { outcome: 'partial' as const, lossRatio: 0.5 }]));
          // What was kept before: this run's results set, entries of peers no longer selected dropped, nothing else.
          const kept = new Map(memory);
          for (const [key] of fresh) for (const [prefix, value] of [['probe@ ', now], ['probe% ', 0.5], ['probe~ ', NaN], ['probe! ', 1]] as const) kept.set(prefix + key, value);
          const remember = rememberProbesSteps({ memory, now, minGapMs }, fresh, keys);
          for (let next = remember.next(); next.done !== true; next = remember.next());
          expect(memory.get('other')).toBe(1);
          // Only results that may stand at a later run are left: younger than the gap (or from ahead of now).
          for (const [name, at] of memory) if (name.startsWith('probe@ ')) expect(now - at).toBeLessThan(minGapMs);
          expect([...memory.keys()].filter((name) => name.startsWith('probe')).length).toBe(4 * [...memory.keys()].filter((name) => name.startsWith('probe@ ')).length);
          let later = now;
          for (const gap of laterGaps) {
            later += gap;
            const runs = (from: Map<string, number>) => planProbes(INTERFACES, peers, ADDRESSES, settings, { memory: new Map(from), now: later, minGapMs });
            expect(runs(memory)).toEqual(runs(kept));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reuses a result as it was: a lone ping lost and answered on its retry stays ok, not partial (found by review)', () => {
    const peers = Array.from({ length: 8 }, (_, i) => peer(`site-${i}`, 'wg-sites', `10.9.0.${i + 2}/32`, { 'persistent-keepalive': '25s' }));
    const settings = testRouter({}, { health: { probe_tunnels: true } }).health;
    const keys = [...planProbes(INTERFACES, peers, ADDRESSES, settings).selected];
    const ratio = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
    const result = fc.record(
      { outcome: fc.constantFrom('ok' as const, 'partial' as const, 'failed' as const, 'error' as const), lossRatio: ratio, rttSeconds: ratio },
      { requiredKeys: ['outcome'] },
    );
    const now = 1_800_000_000_000;
    fc.assert(
      fc.property(fc.array(result, { minLength: keys.length, maxLength: keys.length }), fc.nat(14_999), (results, later) => {
        const memory = new Map<string, number>();
        const fresh = new Map(keys.map((key, i) => [key, results[i] as (typeof results)[number]]));
        const remember = rememberProbesSteps({ memory, now, minGapMs: 15_000 }, fresh, new Set(keys));
        for (let next = remember.next(); next.done !== true; next = remember.next());
        const { targets, skipped } = planProbes(INTERFACES, peers, ADDRESSES, settings, { memory, now: now + later, minGapMs: 15_000 });
        expect(targets).toEqual([]);
        for (const [key, fresh_] of fresh) expect(skipped.get(key)).toEqual({ ...fresh_, at: now });
      }),
      { numRuns: 300 },
    );
  });

  it('tells whether any peer is selected in steps too, over the interfaces and the peers (1.5 s in one task; found by review)', () => {
    const interfaces = Array.from({ length: 5_000 }, (_, i) => ({ name: `wg-${i}`, disabled: 'false' }));
    // Only the last peer, on the last interface, is selected: every interface and peer is looked at.
    const peers = Array.from({ length: 5_000 }, (_, i) => peer(`site-${i}`, `wg-${i}`, `10.9.${i >> 8}.${i & 255}/32`));
    const settings = testRouter({}, { health: { expect: { 'site-4999': 'always' } } }).health;
    const steps = wantsProbesSteps(interfaces, peers, settings);
    let pauses = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) pauses++;
    expect(step.value).toBe(true);
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(5_000 / 256));
    expect(wantsProbes(interfaces, peers.slice(0, -1), settings)).toBe(false);
  });
});

describe('a probe whose pings were all lost', () => {
  type Reply = 'lost' | 'answered' | 'half' | 'error';
  /** A router whose ping replies come in the order given, counting the pings asked for. */
  const router = (replies: Reply[]) => {
    const asked: unknown[] = [];
    const run = (_command: string, parameters: Readonly<Record<string, unknown>>): Promise<unknown> => {
      asked.push(parameters);
      const reply = replies.shift() ?? 'lost';
      const count = Number(parameters['count']);
      if (reply === 'error') return Promise.reject(new Error('timeout'));
      const received = reply === 'answered' ? count : reply === 'half' ? Math.floor(count / 2) : 0;
      return Promise.resolve([{ seq: String(count - 1), sent: String(count), received: String(received), ...(received > 0 ? { 'avg-rtt': '10ms' } : {}) }]);
    };
    return { run, asked };
  };
  const probe = async (replies: Reply[], count = 1) => {
    const { run, asked } = router(replies);
    const target = { key: 'k', address: '10.9.0.2', interface: 'wg0', src: '10.9.0.1' };
    const results = await runProbes(run, [target], { count, timeoutMs: 1_000, read: new FieldReader('ping (tunnel probe)') }, new AbortController().signal);
    return { result: results.get('k'), asks: asked.length };
  };

  it('is made once more at once: one lost ping of probe_count 1 is no blocked tunnel (it paged on any lossy link)', async () => {
    // Answered the second time: traffic passes, which is all one ping asks (a `partial` made /health degraded for one
    // dropped packet; found by review); the loss says one of two.
    expect(await probe(['lost', 'answered'])).toEqual({ result: { outcome: 'ok', lossRatio: 0.5, rttSeconds: 0.01 }, asks: 2 });
    expect(await probe(['lost', 'lost'])).toEqual({ result: { outcome: 'failed', lossRatio: 1 }, asks: 2 });
    // A confirmation that failed to run leaves the first probe's word.
    expect(await probe(['lost', 'error'])).toEqual({ result: { outcome: 'failed', lossRatio: 1 }, asks: 2 });
    // Answered, partly or wholly, or an error: no second probe; nor for 2 or 3 pings all lost.
    expect(await probe(['answered'])).toMatchObject({ result: { outcome: 'ok' }, asks: 1 });
    expect(await probe(['half'], 2)).toMatchObject({ result: { outcome: 'partial', lossRatio: 0.5 }, asks: 1 });
    expect(await probe(['error'])).toEqual({ result: { outcome: 'error' }, asks: 1 });
    expect(await probe(['lost', 'answered'], 3)).toEqual({ result: { outcome: 'failed', lossRatio: 1 }, asks: 1 });
  });

  it('property: a lone ping lost is probed twice, else once; failed only when every ping of both was lost; a loss within 0..1', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Reply>('lost', 'answered', 'half', 'error'), { minLength: 2, maxLength: 2 }), fc.integer({ min: 1, max: 3 }), async (replies, count) => {
        const [first, second] = replies as [Reply, Reply];
        // Half of one ping is none answered.
        const lost = (reply: Reply): boolean => reply === 'lost' || (reply === 'half' && count === 1);
        const { result, asks } = await probe([...replies], count);
        const again = lost(first) && count === 1;
        expect(asks).toBe(again ? 2 : 1);
        const failed = lost(first) && (count > 1 || lost(second) || second === 'error');
        expect(result?.outcome === 'failed').toBe(failed);
        // Partial loss is told only by probes of 2 or 3 pings.
        if (count === 1) expect(result?.outcome).not.toBe('partial');
        if (result?.lossRatio !== undefined) {
          expect(result.lossRatio).toBeGreaterThanOrEqual(0);
          expect(result.lossRatio).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
