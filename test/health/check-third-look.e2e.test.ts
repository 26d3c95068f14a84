/**
 * `check`'s third look, at routers where the one window of the first two could not tell a dead link from a healthy
 * tunnel being woken, when the router stops answering between the second look and the third: refused (its server
 * closed), an HTTP 500, a read that hangs. The first two looks succeed; the answer is judged from the second look,
 * with a note naming the failure by a bounded reason (never router text), as docs/health.md promises.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatedRouter } from '../../src/emulator/index.js';
import { check, THIRD_LOOK_GAP_MS, TRAFFIC_LOOK_GAP_MS, type CheckOptions } from '../../src/cli/check.js';
import type { CheckOutput } from '../../src/health/nagios.js';
import { tempFile, writeCa } from '../helpers/emulator-config.js';
import { TRAFFIC_ROUTERS } from '../helpers/traffic-routers.js';
import { waitFor } from '../helpers/wait.js';

const PASSWORD = 'check-third-look-secret';
const T0 = Date.UTC(2026, 11, 1, 3, 0, 0);
let clock = T0;
let emulator: Emulator;
let ca: string;

/** Text a router sends with its 500: must never reach the answer. */
const ROUTER_TEXT = 'ROUTER-SAID-THIS';

function configFile(router: string, over: object = {}): string {
  const config = {
    defaults: { username: 'monitor', password: PASSWORD, timeout: '3s', tls: { ca_file: ca } },
    routers: [{ name: router, url: emulator.router(router).url, ...over }],
  };
  return tempFile('routeros-exporter.yml', JSON.stringify(config, null, 2));
}

/**
 * check of `router` with a stepped clock; `beforeThird` runs at the end of the second pause, after the second look
 * and before the third.
 */
async function checkBreakingThird(router: string, configPath: string, beforeThird: (r: EmulatedRouter) => Promise<void> | void, options: CheckOptions = {}): Promise<{ out: CheckOutput; pauses: number[] }> {
  const pauses: number[] = [];
  const target = emulator.router(router);
  const pause = async (ms: number): Promise<void> => {
    pauses.push(ms);
    clock += ms;
    if (pauses.length === 2) await beforeThird(target);
  };
  try {
    const out = await check(configPath, undefined, { now: () => clock, pause, elapsed: () => clock, ...options });
    return { out, pauses };
  } finally {
    target.clearFaults();
    await target.start();
  }
}

beforeAll(async () => {
  emulator = await startEmulator({
    now: () => clock,
    users: [{ name: 'monitor', password: PASSWORD }],
    routers: [
      // Needs the third look, nothing else wrong.
      TRAFFIC_ROUTERS.both,
      // CRITICAL after the second look (site-dead declared `always` by ALWAYS_DEAD), and a link that needs the third.
      TRAFFIC_ROUTERS.mixed,
    ],
  });
  ca = writeCa(emulator);
});

afterAll(async () => {
  await emulator.close();
});

/**
 * mixed's site-dead declared `always`: down at every look, whatever the traffic. Left `auto`, this side's sending to it
 * is confirmed by the third look alone (one window never makes a peer expected), and there would be no CRITICAL from
 * the second look to keep.
 */
const ALWAYS_DEAD = { health: { expect: { 'wg-sites': 'always' } } };

const failedNote = (router: string, reason: string): RegExp =>
  new RegExp(`^tx grew unanswered at ${router} between the looks \\(6 s apart\\) \\(rx did not grow, or grew with no session possible\\): .*one window cannot tell which, so peers whose verdict hangs on it are not judged; the third look, which tells, failed at ${router} \\(${reason}\\): judged from the second look \\(the daemon tells over two collections\\)$`);

describe('check when the router stops answering at the third look', () => {
  it('refused (its server closed) after the second look established a dead link: CRITICAL kept, judged from the second look, the failure named (connect)', async () => {
    const { out, pauses } = await checkBreakingThird('mixed', configFile('mixed', ALWAYS_DEAD), (router) => router.stop());
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: mixed\/wg-sites\/site-dead/);
    expect(lines[0]).toMatch(/cannot judge 1 peer/);
    expect(lines).toContainEqual(expect.stringMatching(failedNote('mixed', 'connect')));
    expect(out.text).not.toMatch(/collector failing|could be reached|did not fit|mixed: down/);
  });

  it('refused with nothing else wrong: WARNING from the second look, the peer not judged, the failure named (connect); not UNKNOWN, not "down"', async () => {
    const { out, pauses } = await checkBreakingThird('both', configFile('both'), (router) => router.stop());
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(1);
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('ROUTEROS WARNING - 1 router with peers it cannot judge: both/wireguard (cannot judge 1 peer)');
    expect(lines).toContainEqual(expect.stringMatching(failedNote('both', 'connect')));
    expect(out.text).toMatch(/site-one-way/);
    expect(out.text).not.toMatch(/collector failing|could be reached|did not fit/);
  });

  it('an HTTP 500 with nothing else wrong: WARNING from the second look, the failure named by its class (http_5xx), never the router\'s text', async () => {
    const { out, pauses } = await checkBreakingThird('both', configFile('both'), (router) =>
      router.setFaults({ status: { 'interface/wireguard': { code: 500, detail: ROUTER_TEXT } } }),
    );
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(1);
    const lines = out.text.split('\n');
    expect(lines[0]).toBe('ROUTEROS WARNING - 1 router with peers it cannot judge: both/wireguard (cannot judge 1 peer)');
    expect(lines).toContainEqual(expect.stringMatching(failedNote('both', 'http_5xx')));
    expect(out.text).not.toContain(ROUTER_TEXT);
    expect(out.text).not.toMatch(/collector failing|could be reached/);
  });

  it('a read that hangs until the router\'s timeout (within the deadline): CRITICAL kept from the second look, the failure named (timeout)', async () => {
    const { out, pauses } = await checkBreakingThird('mixed', configFile('mixed', { timeout: '1s', ...ALWAYS_DEAD }), (router) =>
      router.setFaults({ path: 'interface/wireguard', hang: true }),
    );
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, THIRD_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: mixed\/wg-sites\/site-dead/);
    expect(lines).toContainEqual(expect.stringMatching(failedNote('mixed', 'timeout')));
    expect(out.text).not.toMatch(/collector failing|could be reached|did not fit/);
  });

  it('a read that hangs past the check\'s deadline (the router\'s timeout longer): CRITICAL kept from the second look at the deadline, not UNKNOWN, with the note of a third look that did not fit', async () => {
    // The deadline (7 s) passes once the third look's read hangs at the router: no real seconds waited out. Pauses
    // take no time on the monotonic clock (elapsed by default), so the third look is made at once.
    let hanging: (() => void) | undefined;
    const hung = new Promise<void>((resolve) => (hanging = resolve));
    let deadlineMs: number | undefined;
    const deadline = async (ms: number): Promise<void> => {
      deadlineMs = ms;
      await hung;
    };
    const started = performance.now();
    const { out, pauses } = await checkBreakingThird('mixed', configFile('mixed', { timeout: '10s', ...ALWAYS_DEAD }), async (router) => {
      router.setFaults({ path: 'interface/wireguard', hang: true });
      const before = router.stats.requests;
      // Ends the deadline once the third look's read has reached the router, where it hangs.
      void waitFor(async () => router.stats.requests, (count) => count > before, { interval: 5, what: 'the third look\'s read' }).then(() => hanging?.());
    }, { timeoutSeconds: 7, elapsed: () => performance.now(), deadline });
    // What is left of the 7 s once the config is loaded (counted from the check's start).
    expect(deadlineMs).toBeGreaterThan(5_000);
    expect(deadlineMs).toBeLessThanOrEqual(7_000);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(pauses).toEqual([TRAFFIC_LOOK_GAP_MS, TRAFFIC_LOOK_GAP_MS]);
    expect(out.code).toBe(2);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(/^ROUTEROS CRITICAL - 1 stale peer: mixed\/wg-sites\/site-dead \(last handshake [^)]+\); 1 router with peers it cannot judge: mixed\/wireguard \(cannot judge 1 peer\)$/);
    // A look not landed by the deadline is said as the second look's is (docs/health.md): not made within the
    // check's time, raise --timeout; the router is judged from the look before (the second).
    expect(lines[1]).toMatch(/^tx grew unanswered at mixed between the looks \(6 s apart\) \(rx did not grow, or grew with no session possible\): .*; a third look, which tells, did not fit within the check's 7s: raise --timeout \(the daemon tells over two collections\)$/);
    expect(out.text).toMatch(/lab-one-way/);
    expect(out.text).not.toMatch(/collector failing|could be reached|timed out/);
  });
});
