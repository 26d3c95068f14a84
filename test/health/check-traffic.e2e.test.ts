/**
 * `check` looks twice at WireGuard peers whose verdict hangs on traffic: a site link without keepalive whose far
 * end is gone shows only as this side's tx moving (handshake initiations), which one look cannot see. The daemon
 * compares each run with the one before and pages; check called the same peer idle and answered OK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { check, MIN_CONFIRMING_WINDOW_MS, THIRD_LOOK_GAP_MS, TRAFFIC_LOOK_GAP_MS, verdictHangsOnTraffic } from '../../src/cli/check.js';
import type { WireguardPeer } from '../../src/collectors/wireguard.js';
import type { CheckOutput } from '../../src/health/nagios.js';
import { testRouter } from '../helpers/config.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { TRAFFIC_ROUTERS, wokenSiteRouter } from '../helpers/traffic-routers.js';

const PASSWORD = 'check-traffic-secret';
const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
let clock = T0;
let emulator: Emulator;
let ca: string;

function configFile(router: string | readonly string[], health: object = {}): string {
  const names = typeof router === 'string' ? [router] : router;
  const config = { defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca }, health }, routers: names.map((name) => ({ name, url: emulator.router(name).url })) };
  return tempFile('routeros-exporter.yml', JSON.stringify(config, null, 2));
}

/** The pause between the looks, on the emulated routers' clock: no waiting in the test. */
const pauses: number[] = [];
/** When the case with the router `awake` starts, seconds after the emulator's start: after every case before it. */
const AWAKE_AT = 3_600;
async function step(ms: number): Promise<void> {
  pauses.push(ms);
  clock += ms;
  return Promise.resolve();
}

/** check of router `mixed` whose wireguard reads answer 500 from the look after pause `failFrom` (1: the second look). */
async function checkFailingFrom(failFrom: number, configPath: string): Promise<CheckOutput> {
  pauses.length = 0;
  const router = emulator.router('mixed');
  const failing = async (ms: number): Promise<void> => {
    await step(ms);
    if (pauses.length === failFrom) router.setFaults({ status: { 'interface/wireguard': 500 } });
  };
  try {
    return await check(configPath, undefined, { now: () => clock, pause: failing, elapsed: () => clock });
  } finally {
    router.clearFaults();
  }
}

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => clock,
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      TRAFFIC_ROUTERS.hub,
      TRAFFIC_ROUTERS.both,
      // One case sets its wg-lab interface `on_demand`: that link's verdict does not hang on what one window cannot tell.
      TRAFFIC_ROUTERS.mixed,
      // A healthy site link this side wakes at AWAKE_AT (its response answered at once): settled by the second look.
      wokenSiteRouter('awake', AWAKE_AT + 2, 0),
      // A road warrior asleep: no endpoint, nothing to send to, idle is right.
      { name: 'road', interfaces: [{ name: 'wg-road' }], peers: [{ interface: 'wg-road', name: 'laptop', allowedAddress: ['10.8.0.5/32'], life: 'stale', staleForSeconds: 3_600, responder: true }] },
    ],
  });
  ca = writeCa(emulator);
});

afterAll(async () => {
  await emulator.close();
});

describe('check and peers whose verdict hangs on traffic', () => {
  it('a dead site link without keepalive that this side keeps trying: CRITICAL after the third look (it answered OK)', async () => {
    pauses.length = 0;
    const out = await check(configFile('hub'), undefined, { now: () => clock, pause: step });
    // Confirmed by the third look since one window never makes a peer expected: tx grown and rx not in the second
    // look's window alone is also a healthy tunnel this side wakes, its response lost (it answered CRITICAL at the
    // second look then; test/health/check-lost-response.e2e.test.ts).
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: hub\/wg-sites\/site-dead/);
  });

  it('a site link both sides keep trying, no handshake completing (rx and tx both grow between the looks): with room for a third look, CRITICAL (it answered OK, then WARNING forever; found by a hostile tester, then review)', async () => {
    pauses.length = 0;
    const out = await check(configFile('both'), undefined, { now: () => clock, pause: step, elapsed: () => clock });
    // The third look makes the daemon's second window: unanswered again, the window before unanswered too. Its gap
    // is the longer one, which a default -t leaves room for.
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - .*site-one-way/);
    expect(out.text).not.toMatch(/tx grew unanswered|cannot judge/);
  });

  it('the same link with a -t too short for the third look (12 s of 10 s): WARNING, not judged, with a note to raise --timeout', async () => {
    pauses.length = 0;
    const out = await check(configFile('both'), undefined, { now: () => clock, pause: step, elapsed: () => clock, timeoutSeconds: 10 });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS]);
    // One window between the looks: a dead link, or a healthy idle tunnel the far end is waking (its handshake in
    // flight), look alike in it. Neither OK nor CRITICAL.
    expect(out.code).toBe(1);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS WARNING - /);
    expect(lines.some((line) => /tx grew unanswered at both between the looks .*one window cannot tell which.*a third look, which tells, did not fit within the check's 10s: raise --timeout/.test(line))).toBe(true);
    expect(out.text).toContain('one window cannot tell a handshake in flight');
    expect(out.text).toMatch(/site-one-way/);
  });

  it('the same link with a third window shorter than two handshake retries (8 s with -t 23, 6 s with -t 16): WARNING, not confirmed, with a note to raise --timeout; 11 s confirms (CRITICAL; it paged on one more lost response)', async () => {
    for (const [timeoutSeconds, gap] of [
      [23, 8_000],
      [16, TRAFFIC_LOOK_GAP_MS],
    ] as const) {
      pauses.length = 0;
      const out = await check(configFile('both'), undefined, { now: () => clock, pause: step, elapsed: () => clock, timeoutSeconds });
      expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, gap]);
      // Both windows showed rx with no session; the second too short to tell a dead link from a healthy tunnel
      // whose handshake response was lost once more (a chance of about p at a loss rate p, against p² from 11 s).
      expect({ timeoutSeconds, code: out.code }).toEqual({ timeoutSeconds, code: 1 });
      const lines = out.text.split('\n');
      expect(lines[0]).toBe('ROUTEROS WARNING - 1 router with peers it cannot judge: both/wireguard (cannot judge 1 peer)');
      expect(lines[1]).toBe(
        `tx grew unanswered at both between the second and third looks (${gap / 1000} s apart) (rx did not grow, or grew with no session possible): ` +
          'a link where no handshake completes, or a handshake in flight (its response lost once more, where the first two looks showed the same); ' +
          `a window under ${MIN_CONFIRMING_WINDOW_MS / 1000} s (two of WireGuard's handshake retries) cannot tell which, so peers whose verdict hangs on it are not judged: ` +
          `raise --timeout (the third look's window is ${THIRD_LOOK_GAP_MS / 1000} s when -t leaves room; the daemon tells over two collections)`,
      );
      expect(out.text).toMatch(/site-one-way/);
    }
    // The shortest window that confirms: the answer the 12 s window gives.
    pauses.length = 0;
    const confirmed = await check(configFile('both'), undefined, { now: () => clock, pause: step, elapsed: () => clock, timeoutSeconds: 26 });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, MIN_CONFIRMING_WINDOW_MS]);
    expect(confirmed.code).toBe(2);
    expect(confirmed.text).not.toMatch(/tx grew unanswered|cannot judge/);
  });

  it('the third window is the time between the two reads, not the pause asked for: reads 10 s apart after a 12 s pause (the second look\'s read landing late) do not confirm', async () => {
    pauses.length = 0;
    // The clock moves 2 s less than the third pause asks: its reads 10 s apart.
    const short = async (ms: number): Promise<void> => {
      pauses.push(ms);
      clock += pauses.length === 2 ? ms - 2_000 : ms;
      return Promise.resolve();
    };
    const out = await check(configFile('both'), undefined, { now: () => clock, pause: short, elapsed: () => clock });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(1);
    expect(out.text.split('\n')[1]).toMatch(/^tx grew unanswered at both between the second and third looks \(10 s apart\) \(rx did not grow, or grew with no session possible\): .*a window under 11 s/);
  });

  it('a peer marked in the one window whose verdict does not hang on it (`expect: on_demand`) adds no note: the answer is the other peer\'s, CRITICAL, with no "not judged" (review)', async () => {
    pauses.length = 0;
    const out = await check(configFile('mixed', { expect: { 'wg-lab': 'on_demand' } }), undefined, { now: () => clock, pause: step, elapsed: () => clock });
    // A third look, for site-dead (one window never makes a peer expected: the third confirms it). The on_demand row,
    // marked in both windows, is judged alike either way and adds nothing.
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    expect(out.text).toMatch(/site-dead/);
    expect(out.text).not.toMatch(/tx grew unanswered|not judged|cannot judge/);
  });

  it('the third look\'s gap shrinks to what a shorter -t leaves after its run\'s most (three 3 s timeouts: 8 s of 23 s), at least the second\'s 6 s (16 s), none below (12 s)', async () => {
    for (const [timeoutSeconds, expected] of [
      [28, [TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]],
      [23, [TRAFFIC_LOOK_GAP_MS, 8_000]],
      [16, [TRAFFIC_LOOK_GAP_MS, TRAFFIC_LOOK_GAP_MS]],
      [12, [TRAFFIC_LOOK_GAP_MS]],
    ] as const) {
      pauses.length = 0;
      await check(configFile('both'), undefined, { now: () => clock, pause: step, elapsed: () => clock, timeoutSeconds });
      expect({ timeoutSeconds, pauses }).toEqual({ timeoutSeconds, pauses: expected });
    }
  });

  it('a third look whose run fails keeps what the second look established: CRITICAL for a peer down whatever the traffic (site-dead declared `always`), the link needing the third look not judged, with a note (it answered WARNING "collector failing"; review)', async () => {
    // site-dead declared `always`: down from the first look. Left `auto`, this side's sending to it would need the
    // third look too (one window never makes a peer expected), and the failed look would leave it not judged (below).
    const out = await checkFailingFrom(2, configFile('mixed', { expect: { 'wg-sites': 'always' } }));
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - .*site-dead/);
    expect(lines).toContainEqual(expect.stringMatching(/^tx grew unanswered at mixed between the looks .*the third look, which tells, failed at mixed \(http_5xx\): judged from the second look/));
    expect(out.text).toMatch(/lab-one-way/);
    expect(out.text).not.toMatch(/collector failing/);
  });

  it('a third look whose run fails, the dead link this side keeps trying `auto`: judged from the second look, its one window, so not judged (WARNING with the note), not "collector failing"', async () => {
    const out = await checkFailingFrom(2, configFile('mixed'));
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(1);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS WARNING - .*cannot judge 2 peers/);
    expect(lines).toContainEqual(expect.stringMatching(/^tx grew unanswered at mixed between the looks .*the third look, which tells, failed at mixed \(http_5xx\): judged from the second look/));
    expect(out.text).toMatch(/site-dead/);
    expect(out.text).not.toMatch(/collector failing/);
  });

  it('without the system collector, a third look that finds the router silent says it is down, CRITICAL, as the daemon does; not judged up from the second look (review)', async () => {
    const config = {
      defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca } },
      routers: [{ name: 'mixed', url: emulator.router('mixed').url, collectors: { system: false } }],
    };
    const out = await checkFailingFrom(2, tempFile('routeros-exporter.yml', JSON.stringify(config)));
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/^ROUTEROS CRITICAL - .*could be reached: mixed \(http_5xx\)/);
    expect(out.text).not.toMatch(/mixed: up/);
  });

  it('a second look whose run fails keeps what the first look established: CRITICAL for a peer down without traffic, the peer whose verdict hangs on it not judged, with a note (review)', async () => {
    const out = await checkFailingFrom(1, configFile('mixed', { expect: { 'wg-lab': 'always' } }));
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - .*lab-one-way/);
    expect(lines).toContainEqual('the second look at the traffic of mixed (http_5xx) failed: judged from the first look, where peers whose verdict hangs on traffic are not judged');
    expect(lines[0]).toMatch(/cannot judge 1 peer/);
    expect(out.text).not.toMatch(/collector failing/);
  });

  it('the third look re-runs only the routers it is for: awake, settled by the second (its woken link\'s fresh handshake, OK), is not asked again (review)', async () => {
    // The router was hub, CRITICAL after the second look; a dead link this side keeps trying needs the third look
    // now (one window never makes a peer expected). awake's link, idle at the first look, is woken 2 s after it and
    // answered at once: up at the second.
    expect(clock).toBeLessThan(T0 + AWAKE_AT * 1000);
    clock = T0 + AWAKE_AT * 1000;
    pauses.length = 0;
    const awake = emulator.router('awake');
    let awakeBeforeThird = -1;
    const count = async (ms: number): Promise<void> => {
      await step(ms);
      if (pauses.length === 2) awakeBeforeThird = awake.stats.requests;
    };
    const out = await check(configFile(['awake', 'both']), undefined, { now: () => clock, pause: count, elapsed: () => clock });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(awakeBeforeThird).toBeGreaterThan(0);
    expect(awake.stats.requests).toBe(awakeBeforeThird);
    expect(out.code).toBe(2);
    expect(out.text.split('\n')[0]).toMatch(/site-one-way/);
    expect(out.text.split('\n')[0]).not.toMatch(/site-woken|awake/);
    expect(out.text).toMatch(/^\[OK\] awake: up/m);
  });

  it('a road warrior asleep (no endpoint) needs no second look, and is OK', async () => {
    pauses.length = 0;
    const out = await check(configFile('road'), undefined, { now: () => clock, pause: step });
    expect(pauses).toEqual([]);
    expect(out.code).toBe(0);
  });

  it('peers whose expectation the config sets (on_demand, always) do not hang on traffic: no second look', async () => {
    for (const mode of ['on_demand', 'always']) {
      pauses.length = 0;
      await check(configFile('hub', { expect: { 'wg-sites': mode } }), undefined, { now: () => clock, pause: step });
      expect({ mode, pauses }).toEqual({ mode, pauses: [] });
    }
  });

  it('without room for the second look (the 6 s gap past a 5 s deadline), the peer is not judged from one look: WARNING, not OK (found by a hostile tester)', async () => {
    pauses.length = 0;
    const out = await check(configFile('hub'), undefined, { now: () => clock, pause: step, timeoutSeconds: 5 });
    expect(pauses).toEqual([]);
    expect(out.code).toBe(1);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS WARNING - .*cannot judge 1 peer/);
    expect(lines[1]).toBe('no second look at the traffic of hub (6 s after the first) within the check\'s 5s: peers whose verdict hangs on it are not judged; raise --timeout');
    expect(out.text).toContain('whether their rx or tx grew is not known, and their verdict hangs on it');
  });

  it('with the gap before the deadline, the second look is made though a whole run may not fit after it (6 s of 8 s, 3 s timeouts)', async () => {
    pauses.length = 0;
    const out = await check(configFile('hub'), undefined, { now: () => clock, pause: step, elapsed: () => clock, timeoutSeconds: 8 });
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS]);
    // Made and judged: its one window leaves the dead link not judged (it was CRITICAL: one window made it expected),
    // with the note that the third look did not fit, not the note of a second look that was not made.
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/tx grew unanswered at hub between the looks .*did not fit within the check's 8s/);
    expect(out.text).not.toMatch(/no second look/);
  });
});

describe('which peers get the second look: those whose verdict differs with traffic one look cannot see', () => {
  const NOW = 1_800_000_000_000;
  const peer = (over: Partial<WireguardPeer>): WireguardPeer => ({
    interface: 'wg-sites',
    publicKey: 'k'.repeat(43) + '=',
    name: 'site',
    comment: undefined,
    disabled: false,
    latestHandshake: NOW / 1000 - 150,
    handshakeUnreadable: false,
    factsUnreadable: false,
    keepaliveSeconds: 0,
    hasEndpoint: true,
    rxMoved: false,
    txMoved: false,
    probe: undefined,
    probedAt: undefined,
    probeRttSeconds: undefined,
    probeLossRatio: undefined,
    ...over,
  });
  const health = (expect: Record<string, string> | undefined, staleAfter = '2m') =>
    testRouter({ health: { handshake_stale_after: staleAfter, ...(expect === undefined ? {} : { expect }) } }).health;

  it.each([
    // found by review: check said CRITICAL where the daemon, seeing rx move, said up
    ['always, no keepalive, 150 s after a rekey, stale after 2m', peer({}), health({ 'wg-sites': 'always' }), true],
    ['always, within its bound', peer({ latestHandshake: NOW / 1000 - 100 }), health({ 'wg-sites': 'always' }), false],
    ['always, past a session\'s life', peer({ latestHandshake: NOW / 1000 - 600 }), health({ 'wg-sites': 'always' }), false],
    ['always, stale after 5m (above a session\'s life)', peer({}), health({ 'wg-sites': 'always' }, '5m'), false],
    ['auto, an endpoint, no keepalive, no session (the dead site link)', peer({ latestHandshake: NOW / 1000 - 3_600 }), health(undefined), true],
    ['auto, no endpoint (a road warrior asleep)', peer({ latestHandshake: NOW / 1000 - 3_600, hasEndpoint: false }), health(undefined), false],
    ['keepalive 25 s, 150 s old (its bound is 210 s)', peer({ keepaliveSeconds: 25 }), health({ 'wg-sites': 'always' }), false],
    ['disabled', peer({ disabled: true }), health({ 'wg-sites': 'always' }), false],
  ] as const)('%s → %s', (_name, wgPeer, routerHealth, expected) => {
    expect(verdictHangsOnTraffic(wgPeer, routerHealth, NOW)).toBe(expected);
  });
});
