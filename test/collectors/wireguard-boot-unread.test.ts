/**
 * A run whose read of the router's uptime fails, in the minutes after a reboot (when routers answer slowly): the start
 * believed at the run before stands. Before, that run judged every branch in its grace `never`, a page for one cycle
 * and a recovery after it (found by the hostile generator of test/health/peer-sequences.property.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { peerVerdict, wireguardJob } from './wireguard-job.js';
import { believedBootSteps, youngRestartSeconds } from '../../src/collectors/wireguard-boot.js';
import { finish } from '../../src/util/slices.js';

const T0 = Date.UTC(2026, 11, 1, 3, 0, 0);
const IFACE: RouterRecord = { name: 'wg-hub', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };

/** One read of the hub: its branch's handshake age (undefined: none since the boot), and its uptime (undefined: the read fails). */
interface Read {
  at: number;
  handshake: number | undefined;
  uptime: number | undefined;
}

async function verdicts(reads: readonly Read[]): Promise<string[]> {
  const read = wireguardJob();
  const out: string[] = [];
  for (const each of reads) {
    const branch: RouterRecord = {
      interface: 'wg-hub',
      'public-key': `${'B'.repeat(43)}=`,
      name: 'branch',
      'allowed-address': '10.9.0.2/32',
      'persistent-keepalive': '25s',
      rx: '0',
      tx: '0',
      ...(each.handshake === undefined ? {} : { 'last-handshake': formatSeconds(each.handshake) }),
    };
    const text = await read({ interfaces: [IFACE], peers: [branch], uptimeSeconds: each.uptime, wallMs: T0 + each.at * 1000, elapsedMs: 5_000_000 + each.at * 1000 });
    out.push(peerVerdict(text, 'branch'));
  }
  return out;
}

describe('a hub whose uptime read fails in the minutes after its reboot', () => {
  it('a live branch behind NAT in its grace stays healthy through the failed read', async () => {
    // Rebooted at 40 s; the branch tries again at 150 s (its old session's end), within the 210 s bound.
    expect(
      await verdicts([
        { at: 0, handshake: 30, uptime: 604_800 },
        { at: 60, handshake: undefined, uptime: 20 },
        { at: 75, handshake: undefined, uptime: undefined },
        { at: 90, handshake: undefined, uptime: 50 },
        { at: 105, handshake: undefined, uptime: undefined },
        { at: 165, handshake: 15, uptime: undefined },
      ]),
    ).toEqual(['up/1', 'never/1', 'never/1', 'never/1', 'never/1', 'up/1']);
  });

  it('a dead branch is a problem once its bound has passed since the start, failed reads or not', async () => {
    expect(
      await verdicts([
        { at: 0, handshake: 30, uptime: 604_800 },
        { at: 60, handshake: undefined, uptime: 20 },
        // 40 s + 210 s: due at 250 s.
        { at: 240, handshake: undefined, uptime: undefined },
        { at: 255, handshake: undefined, uptime: undefined },
        { at: 270, handshake: undefined, uptime: 230 },
      ]),
    ).toEqual(['up/1', 'never/1', 'never/1', 'never/0', 'never/0']);
  });

  it('no start read before: a failed read gives no grace (as a router whose uptime never answers), and takes none from the next', async () => {
    expect(
      await verdicts([
        { at: 60, handshake: undefined, uptime: undefined },
        { at: 75, handshake: undefined, uptime: 35 },
      ]),
    ).toEqual(['never/0', 'never/1']);
  });

  it('the start remembered is not reused when a peer\'s handshake lies before it, nor after a restart loop', () => {
    const young = youngRestartSeconds(15);
    const peer = (age: number): RouterRecord => ({ interface: 'wg-hub', 'public-key': 'k', 'last-handshake': formatSeconds(age) });
    const memory = new Map<string, number>();
    const start = T0 / 1000 - 20;
    expect(finish(believedBootSteps({ bootedAt: start, readAt: T0, slackSeconds: 2 }, T0, [], memory, young))).toBe(start);
    const later = T0 + 60_000;
    // A handshake 30 s ago: after the start, which stands.
    expect(finish(believedBootSteps(undefined, later, [peer(30)], memory, young))).toBe(start);
    // One 200 s ago: before it, so that was no start.
    expect(finish(believedBootSteps(undefined, later, [peer(200)], memory, young))).toBeUndefined();
    // Nothing believed before: nothing to reuse.
    expect(finish(believedBootSteps(undefined, later, [], new Map(), young))).toBeUndefined();
    // A third young restart in a row is not believed, read or remembered.
    const loop = new Map<string, number>();
    for (let i = 0; i < 3; i++) finish(believedBootSteps({ bootedAt: T0 / 1000 + i * 600, readAt: T0 + i * 600_000 + 5_000, slackSeconds: 2 }, T0 + i * 600_000 + 5_000, [], loop, young));
    expect(finish(believedBootSteps(undefined, T0 + 1_900_000, [], loop, young))).toBeUndefined();
  });
});
