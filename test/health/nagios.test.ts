import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateRouters } from '../../src/health/report.js';
import { formatCheck, output } from '../../src/health/nagios.js';
import type { JobSnapshot } from '../../src/metrics/store.js';
import type { RouterConfig } from '../../src/config/types.js';
import { testRouter } from '../helpers/config.js';
import { failed, peerRecord, ping, SITE_LINKS, systemOk, T0, WG_UP, wireguard } from './snapshots.js';

const hq = testRouter({ ping: [{ target: '10.10.0.2', name: 'branch-tunnel' }] }, SITE_LINKS);
const branch = testRouter({ name: 'branch' }, SITE_LINKS);

function check(routers: RouterConfig[], snapshots: Record<string, JobSnapshot[]>) {
  return formatCheck(evaluateRouters(routers, { snapshots: (name) => snapshots[name] ?? [] }, T0), routers);
}

describe('check output in the Nagios plugin convention', () => {
  it('CRITICAL with the stale peer on the first line, details after, perfdata last', () => {
    const out = check([hq], {
      hq: [systemOk(), wireguard(hq, [WG_UP], [peerRecord('branch-1', '1m5s'), peerRecord('branch-2', '10m'), peerRecord('tablet', undefined)]), ping(hq, 0, 33)],
    });
    const lines = out.text.split('\n');
    expect(out.code).toBe(2);
    expect(out.state).toBe('CRITICAL');
    expect(lines[0]).toBe(
      'ROUTEROS CRITICAL - 1 stale peer: hq/wg-branch/branch-2 (last handshake 10m ago); 1 peer never connected: hq/wg-branch/tablet (never); ' +
        '1 ping target losing packets: hq/ping branch-tunnel to 10.10.0.2 (33% loss)',
    );
    expect(lines.slice(1, -2)).toEqual([
      '[CRITICAL] hq/wg-branch/branch-2: down, last handshake 10m ago (due within 5m, expected always on)',
      '[CRITICAL] hq/wg-branch/tablet: never shook hands (expected always on)',
      '[WARNING] hq/ping branch-tunnel to 10.10.0.2: 33% loss',
      `[CRITICAL] hq: up, last success ${new Date(T0).toISOString()}; 1 interface, 3 peers (3 judged), 1 ping target`,
    ]);
    expect(lines.at(-2)).toBe(
      "| 'hq_wg-branch_branch-1_handshake_age'=65s;;300;0 'hq_wg-branch_branch-2_handshake_age'=600s;;300;0 " +
        "'hq_wg-branch_tablet_handshake_age'=U;;300;0 'hq_branch-tunnel_loss'=33%;0;@50:;0;100 'hq_branch-tunnel_rtt'=2.5ms;;;0",
    );
    expect(lines.at(-1)).toBe('');
    // Only the perfdata line may hold a pipe: anything else would be read as perfdata.
    expect(lines.slice(0, -2).join('\n')).not.toContain('|');
  });

  it("a peer's critical threshold in perfdata is its own bound: 210 s for keepalive 25 s, none for an idle road warrior", () => {
    const plain = testRouter({ name: 'plain' });
    const out = check([plain], {
      plain: [
        systemOk(),
        wireguard(plain, [WG_UP], [peerRecord('site', '1m', { 'persistent-keepalive': '25s', 'endpoint-address': '198.51.100.2' }), peerRecord('laptop', '3h')]),
      ],
    });
    expect(out.code).toBe(0);
    expect(out.text).toContain("'plain_wg-branch_site_handshake_age'=60s;;210;0");
    expect(out.text).toContain("'plain_wg-branch_laptop_handshake_age'=10800s;;;0");
  });

  it('a router nothing was collected from yet is "not known yet", never "up" (found by review)', () => {
    const out = check([branch], { branch: [] });
    expect(out.text).toContain('branch: not known yet, last success never');
    expect(out.text).not.toContain('branch: up,');
  });

  it('OK exits 0 and says what it looked at', () => {
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], [peerRecord('branch-1', '1m')]), ping(hq, 0, 0)] });
    expect(out.code).toBe(0);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS OK - 1 router up, 1 interface running, 1 peer healthy, 1 ping target without loss');
  });

  it('WARNING (exit 1) for a degraded router, CRITICAL wins over it', () => {
    const degraded = { hq: [systemOk(), wireguard(hq, [WG_UP], []), ping(hq, 0, 0)], branch: [systemOk(), failed('wireguard', 'wireguard', 'auth')] };
    expect(check([hq, branch], degraded).code).toBe(1);
    const critical = { ...degraded, hq: [systemOk(), wireguard(hq, [{ ...WG_UP, running: 'false' }], []), ping(hq, 0, 0)] };
    const out = check([hq, branch], critical);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - 1 interface not running: hq/wg-branch (not running); 1 collector failing: branch/wireguard (auth)');
  });

  it('CRITICAL (exit 2) when the routers were tried and none could be reached (a host down is not UNKNOWN); one router down among others is CRITICAL', () => {
    const down = [failed('system', 'system', 'connect'), failed('wireguard', 'wireguard', 'connect')];
    const out = check([hq, branch], { hq: down, branch: [failed('system', 'system', 'tls')] });
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - no router could be reached: hq (connect), branch (tls)');
    const one = check([hq, branch], { hq: down, branch: [systemOk(), wireguard(branch, [WG_UP], [])] });
    expect(one.code).toBe(2);
    expect(one.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - 1 router down: hq (connect)');
  });

  it('perfdata labels are unique, however RouterOS names peers and pings: clashing ones get the key or target', () => {
    const twins = testRouter({ ping: [{ target: '10.10.0.2', name: 'uplink' }, { target: '10.10.0.3', name: 'uplink' }] }, SITE_LINKS);
    const laptop = (key: string, age: string) => ({ ...peerRecord('laptop', age), 'public-key': `${key}${'0'.repeat(43 - key.length)}=`, comment: 'laptop' });
    const out = check([twins], { hq: [systemOk(), wireguard(twins, [WG_UP], [laptop('AAAAAAAA', '10s'), laptop('BBBBBBBB', '20m'), peerRecord('solo', '1m')]), ping(twins, 0, 0), ping(twins, 1, 33)] });
    const perf = out.text.split('\n').find((line) => line.startsWith('| ')) ?? '';
    const labels = [...perf.matchAll(/'([^']*)'=/g)].map((match) => match[1]);
    expect(labels.length).toBeGreaterThanOrEqual(7);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(expect.arrayContaining(['hq_wg-branch_laptop_AAAAAAAA_handshake_age', 'hq_wg-branch_laptop_BBBBBBBB_handshake_age', 'hq_wg-branch_solo_handshake_age', 'hq_uplink_10.10.0.2_loss', 'hq_uplink_10.10.0.3_loss']));
  });

  it('property: perfdata labels are unique whatever the names, even ones spelled like a disambiguated label', () => {
    // Found by a hostile review: two `laptop`s became `laptop_KEY1aaaa_1` and `_2`, and a third peer was named so.
    const name = fc.constantFrom('laptop', 'laptop_KEY1aaaa_1', 'laptop_KEY1aaaa_2', 'laptop_KEY1aaaa', 'a_b', 'a', 'b_1', '');
    const key = fc.constantFrom('KEY1aaaaXXX=', 'KEY1aaaaYYY=', 'KEY1aaaaZZZ=', 'b', 'a_b');
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, key), { maxLength: 8, selector: ([, k]) => k }), (peers) => {
        const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], peers.map(([n, k]) => ({ ...peerRecord(n, '10s'), 'public-key': k }))), ping(hq, 0, 0)] });
        const perf = out.text.split('\n').find((line) => line.startsWith('| ')) ?? '';
        const labels = [...perf.matchAll(/'([^']*)'=/g)].map((match) => match[1]);
        expect(labels.length).toBeGreaterThanOrEqual(peers.length);
        expect(new Set(labels).size).toBe(labels.length);
      }),
      { numRuns: 500 },
    );
  });

  it('lists at most 20 problems per router, worst first, and counts the rest', () => {
    const stale = Array.from({ length: 50 }, (_, i) => peerRecord(`site-${i}`, '10m'));
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], stale), ping(hq, 0, 0)] });
    const lines = out.text.split('\n');
    expect(lines.filter((line) => line.startsWith('[CRITICAL] hq/wg-branch/'))).toHaveLength(20);
    expect(lines).toContain('[CRITICAL] hq: and 30 more problems (/health?router= lists them all)');
    // Perfdata still has every judged peer: graphs need them all.
    expect([...(lines.at(-2) ?? '').matchAll(/_handshake_age'=/g)]).toHaveLength(50);
  });

  it('the line for hidden problems carries the worst of them, not the router\'s', () => {
    const stale = Array.from({ length: 20 }, (_, i) => peerRecord(`site-${i}`, '10m'));
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], stale), ping(hq, 0, 33)] });
    expect(out.text.split('\n')).toContain('[WARNING] hq: and 1 more problem (/health?router= lists them all)');
  });

  it('reasons, the summary and perfdata carry at most a bounded part of a name from the router', () => {
    const huge = 'x'.repeat(1_000_000);
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], [peerRecord(huge, '10m')]), ping(hq, 0, 0)] });
    const [first = '', detail = ''] = out.text.split('\n');
    expect(first.length).toBeLessThan(1_000);
    expect(detail.length).toBeLessThan(2_000);
    expect(out.text.length).toBeLessThan(3_000);
  });

  it('names that merely look like credentials are not redacted in problem lines: two peers stay apart, as they are in perfdata', () => {
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], [peerRecord('Basic Office', '10m'), peerRecord('Basic Store1', '10m')]), ping(hq, 0, 0)] });
    expect(out.text).toContain('[CRITICAL] hq/wg-branch/Basic Office: down');
    expect(out.text).toContain('[CRITICAL] hq/wg-branch/Basic Store1: down');
  });

  it('the loss threshold says what the verdict does: at the critical ratio it is critical (range @50:, inside 50 and up)', () => {
    const at = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], []), ping(hq, 0, 50)] });
    expect(at.code).toBe(2);
    expect(at.text).toMatch(/'hq_branch-tunnel_loss'=50%;0;@50:;0;100/);
  });

  it('UNKNOWN when no router has been tried', () => {
    expect(check([hq], {}).text.split('\n')[0]).toBe('ROUTEROS UNKNOWN - no router could be reached: hq (not tried)');
  });

  it('UNKNOWN with no routers', () => {
    expect(check([], {}).text).toBe('ROUTEROS UNKNOWN - no routers configured\n');
  });

  it('names from the router cannot break the output: pipes, quotes, equals signs and newlines', () => {
    const nasty = peerRecord("it's a|b=c\nline2", '10m');
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], [nasty]), ping(hq, 0, 0)] });
    const lines = out.text.split('\n');
    expect(lines[0]).toBe("ROUTEROS CRITICAL - 1 stale peer: hq/wg-branch/it's a/b=c line2 (last handshake 10m ago)");
    expect(lines.at(-2)).toContain("'hq_wg-branch_it_s a/b_c line2_handshake_age'=600s;;300;0");
    expect(lines.filter((line) => line.includes('|'))).toHaveLength(1);
  });

  it('names from the router cannot steer a terminal or reorder the text: C0, C1 (CSI), ESC and bidi overrides go', () => {
    const nasty = peerRecord('evil\u001b[2J\u009b31m\u202egnp.exe\u2066x', '10m');
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], [nasty]), ping(hq, 0, 0)] });
    expect(out.text.split('\n')[0]).toBe('ROUTEROS CRITICAL - 1 stale peer: hq/wg-branch/evil[2J31mgnp.exex (last handshake 10m ago)');
    // eslint-disable-next-line no-control-regex
    expect(out.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('groups many problems of a kind: three named, then "and N more"', () => {
    const stale = ['a', 'b', 'c', 'd', 'e'].map((name) => peerRecord(name, '1h'));
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], stale), ping(hq, 0, 0)] });
    expect(out.text.split('\n')[0]).toBe(
      'ROUTEROS CRITICAL - 5 stale peers: hq/wg-branch/a (last handshake 1h ago), hq/wg-branch/b (last handshake 1h ago), hq/wg-branch/c (last handshake 1h ago) and 2 more',
    );
  });
});

describe('check output within what Nagios keeps (found by review: 3,000 peers wrote 270 KB, cut inside an entry)', () => {
  const PERF_ENTRY = /^'[^']+'=(?:U|-?\d+(?:\.\d+)?(?:s|ms|%)?)(?:;[^;\s]*){0,4}$/;
  /** The entries of a perfdata line, labels quoted (they may hold spaces): the line is exactly them, space-separated. */
  function entriesOf(perf: string): string[] {
    const entries = perf.slice(2).match(/'[^']*'=[^ ]*/g) ?? [];
    expect(entries.join(' ')).toBe(perf.slice(2));
    return entries;
  }

  function many(count: number, staleEvery: number) {
    const routers = [hq, branch];
    const peers = Array.from({ length: count }, (_, i) => peerRecord(`site-${String(i).padStart(4, '0')}-with-a-long-name`, i % staleEvery === 0 ? '20m' : '30s'));
    return check(routers, {
      hq: [systemOk(), wireguard(hq, [WG_UP], peers), ping(hq, 0, 10)],
      branch: [systemOk(), wireguard(branch, [WG_UP], peers.slice(0, 50))],
    });
  }

  it('stays within 8 KiB, whole perfdata entries only, the stale peers and pings first', () => {
    const out = many(3_000, 500);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(8_192);
    expect(out.code).toBe(2);
    const perf = out.text.split('\n').find((line) => line.startsWith('| ')) ?? '';
    const entries = entriesOf(perf);
    for (const entry of entries) expect(entry).toMatch(PERF_ENTRY);
    expect(entries.length).toBeGreaterThan(20);
    // The pings and the six stale peers are kept, ahead of healthy ones.
    expect(entries.slice(0, 2).map((entry) => entry.split('=')[0])).toEqual(["'hq_branch-tunnel_loss'", "'hq_branch-tunnel_rtt'"]);
    for (const i of [0, 500, 1_000, 1_500, 2_000, 2_500]) expect(perf).toContain(`'hq_wg-branch_site-${String(i).padStart(4, '0')}-with-a-long-name_handshake_age'=1200s`);
  });

  it('cuts details at a whole line and says how many were left out', () => {
    const out = many(3_000, 2);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(8_192);
    const lines = out.text.split('\n');
    const cut = lines.findIndex((line) => /^… and \d+ more lines?, cut to fit the 8 KiB of plugin output Nagios keeps$/.test(line));
    expect(cut).toBeGreaterThan(0);
    // Every line before it whole (a problem line, as formatted), the perfdata right after it.
    for (const line of lines.slice(1, cut)) expect(line).toMatch(/^\[(?:OK|WARNING|CRITICAL)\] \S.*[^ ]$/);
    expect(lines[cut + 1]).toMatch(/^\| '/);
    const said = Number(/and (\d+) more/.exec(lines[cut] ?? '')?.[1]);
    // What was left out plus what was shown is every detail line the evaluation made (20 + 1 + 1 per router).
    expect(said + cut - 1).toBe(2 * 22);
  });

  it('property: any number of peers and routers, any names: within 8 KiB, every perfdata entry whole', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1, max: 7 }), fc.string({ maxLength: 120 }), (count, staleEvery, name) => {
        const peers = Array.from({ length: count }, (_, i) => peerRecord(`${name}${i}`, i % staleEvery === 0 ? '20m' : '30s'));
        const routers = Array.from({ length: 12 }, (_, r) => testRouter({ name: `r${r}-${'x'.repeat(50)}` }, SITE_LINKS));
        const out = check(routers, Object.fromEntries(routers.map((router) => [router.name, [systemOk(), wireguard(router, [WG_UP], peers)]])));
        expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(8_192);
        const perf = out.text.split('\n').find((line) => line.startsWith('| '));
        for (const entry of perf === undefined ? [] : entriesOf(perf)) expect(entry).toMatch(PERF_ENTRY);
      }),
      { numRuns: 40 },
    );
  });

  it('a site-wide outage of 400 routers, a summary of any length, one finding of 16,000 characters: still within 8 KiB, every line whole (review of the change)', () => {
    const routers = Array.from({ length: 400 }, (_, r) => testRouter({ name: `router-${String(r).padStart(3, '0')}-${'x'.repeat(50)}` }, SITE_LINKS));
    const down = check(routers, Object.fromEntries(routers.map((router) => [router.name, [failed('system', 'system', 'connect')]])));
    expect(down.code).toBe(2);
    expect(Buffer.byteLength(down.text)).toBeLessThanOrEqual(8_192);
    const first = down.text.split('\n')[0] ?? '';
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(1_024);
    expect(first).toMatch(/^ROUTEROS CRITICAL - no router could be reached: router-000-x+ \(connect\), .* …$/);
    expect(Buffer.byteLength(output('CRITICAL', 'é'.repeat(9_000)).text)).toBeLessThanOrEqual(8_192);
    // One very long line is cut on its own; the lines after it still show.
    const long = output('WARNING', 'one long finding', ['x'.repeat(16_000), '[OK] hq: up', '[OK] branch: up']);
    expect(long.text.split('\n').slice(1, 4)).toEqual([expect.stringMatching(/^x+ …$/), '[OK] hq: up', '[OK] branch: up']);
  });

  it('when perfdata must be cut, the ping targets go first, then peers expected up that never connected (review of the change)', () => {
    const peers = Array.from({ length: 400 }, (_, i) => peerRecord(`road-${i}-with-a-long-name`, undefined));
    const out = check([hq], { hq: [systemOk(), wireguard(hq, [WG_UP], peers), ping(hq, 0, 10)] });
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(8_192);
    const perf = out.text.split('\n').find((line) => line.startsWith('| ')) ?? '';
    expect(perf).toMatch(/^\| 'hq_branch-tunnel_loss'=10%;0;@50:;0;100 'hq_branch-tunnel_rtt'=[\d.]+ms;;;0 'hq_wg-branch_road-0-with-a-long-name_handshake_age'=U;;300;0 /);
  });

  it('a loss threshold under 0.05 % is not written as 0 (which would make 0 % loss critical)', () => {
    const strict = testRouter({ ping: [{ target: '10.10.0.2', name: 'branch-tunnel' }], health: { ping_loss_critical: 0.0004 } }, SITE_LINKS);
    const out = check([strict], { hq: [systemOk(), wireguard(strict, [WG_UP], [peerRecord('branch-1', '30s')]), ping(strict, 0, 0)] });
    expect(out.text).toContain("'hq_branch-tunnel_loss'=0%;0;@0.04:;0;100");
  });
});

describe('perfdata when not all of it fits', () => {
  it('keeps an unhealthy peer before hundreds of healthy ones in their grace after a restart (found by review)', async () => {
    const { mapWireguard } = await import('../../src/collectors/wireguard.js');
    const { routerLabel } = await import('../../src/metrics/family.js');
    const router = testRouter({ name: 'hq', url: 'https://192.0.2.1' });
    const peers = Array.from({ length: 200 }, (_, i) => peerRecord(`branch-${String(i).padStart(3, '0')}`, undefined, { 'persistent-keepalive': '1h', 'public-key': `k${String(i)}-000000000000000000000000000000000000000=` }));
    // Keepalive 25 s, its handshake 500 s ago, since the start: stale.
    peers.push(peerRecord('zz-dead-site', '500s', { 'persistent-keepalive': '25s', 'public-key': 'dead-00000000000000000000000000000000000000=' }));
    const data = mapWireguard([WG_UP], peers, routerLabel('hq'), router.health, T0, undefined, undefined, T0 / 1000 - 1_000).data;
    const snapshot: JobSnapshot = { collector: 'wireguard', job: 'wireguard', ok: true, reason: undefined, finishedAt: T0, durationSeconds: 0.01, lastSuccessAt: T0, chunks: [], data };
    const out = formatCheck(evaluateRouters([router], { snapshots: () => [systemOk(), snapshot] }, T0), [router]);
    expect(out.state).toBe('CRITICAL');
    const perf = out.text.slice(out.text.indexOf('\n| '));
    // Not all fit: some of the 200 branches' perfdata went, the stale peer's stayed.
    expect(perf.match(/branch-\d{3}/g)?.length ?? 0).toBeLessThan(200);
    expect(perf).toMatch(/'hq_wg-branch_zz-dead-site_handshake_age'=500s;;210;0/);
  });
});
