/**
 * The exporter's wall clock stepped back before a router's reboot: the start the uptime tells, reckoned on the clock
 * as it now reads, lay before the read before (stamped on the clock before the step) and was refused as an uptime
 * that stopped; every branch of the hub paged as `never` through its grace (found by the hostile generator of
 * test/health/peer-sequences.property.test.ts). The read before is placed on this clock by the monotonic time since.
 */
import { describe, expect, it } from 'vitest';
import { formatSeconds } from '../../src/emulator/util/duration.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { believedBootSteps, youngRestartSeconds } from '../../src/collectors/wireguard-boot.js';
import { finish } from '../../src/util/slices.js';
import { peerVerdict, wireguardJob } from './wireguard-job.js';

const T0 = Date.UTC(2026, 11, 1, 3, 0, 0);
const IFACE: RouterRecord = { name: 'wg-hub', 'public-key': 'S3rv3r', running: 'true', disabled: 'false' };

function peer(name: string, key: string, handshake: number | undefined): RouterRecord {
  return {
    interface: 'wg-hub',
    'public-key': `${key.repeat(43)}=`,
    name,
    'allowed-address': '10.9.0.2/32',
    'persistent-keepalive': '25s',
    rx: '0',
    tx: '0',
    ...(handshake === undefined ? {} : { 'last-handshake': formatSeconds(handshake) }),
  };
}

/** Reads at world times `at` (s) of a hub that restarts at 40 s; the exporter's wall clock is `step` s off from `stepAt` s on. */
async function branchVerdicts(step: number, stepAt = 30): Promise<string[]> {
  const read = wireguardJob();
  const out: string[] = [];
  const reads = [
    { at: 0, branch: 30, uptime: 604_800 },
    { at: 15, branch: 45, uptime: 604_815 },
    { at: 60, branch: undefined, uptime: 20 },
    { at: 75, branch: undefined, uptime: 35 },
  ];
  for (const each of reads) {
    // A decommissioned branch that never shakes hands makes every run read the uptime.
    const peers = [peer('gone', 'G', undefined), peer('branch', 'B', each.branch)];
    const wallMs = T0 + (each.at + (each.at >= stepAt ? step : 0)) * 1000;
    const text = await read({ interfaces: [IFACE], peers, uptimeSeconds: each.uptime, wallMs, elapsedMs: 5_000_000 + each.at * 1000 });
    out.push(peerVerdict(text, 'branch'));
  }
  return out;
}

describe('a hub rebooted after the exporter\'s wall clock was stepped', () => {
  for (const step of [0, -600, -20, 600]) {
    it(`stepped ${step} s: its live branch is due from the start, healthy in its grace`, async () => {
      expect(await branchVerdicts(step)).toEqual(['up/1', 'up/1', 'never/1', 'never/1']);
    });
  }

  for (const step of [-600, 600, -90]) {
    it(`stepped ${step} s in its grace, after its start was believed: the same start, still healthy`, async () => {
      expect(await branchVerdicts(step, 70)).toEqual(['up/1', 'up/1', 'never/1', 'never/1']);
    });
  }

  it('a read that fails after a step back reuses the start believed, placed on the wall clock as it now reads: no longer grace', () => {
    const young = youngRestartSeconds(15);
    const memory = new Map<string, number>();
    const start = T0 / 1000 - 20;
    expect(finish(believedBootSteps({ bootedAt: start, readAt: T0, slackSeconds: 2, readElapsed: 1_000_000 }, T0, [], memory, young, 1_000_000))).toBe(start);
    // A minute on, the wall clock stepped back 10 minutes, the read failing: the start is 10 minutes earlier on this clock.
    expect(finish(believedBootSteps(undefined, T0 + 60_000 - 600_000, [], memory, young, 1_060_000))).toBe(start - 600);
    // A suspend instead (the monotonic clock stood still 10 minutes): the stamp holds.
    expect(finish(believedBootSteps(undefined, T0 + 660_000, [], memory, young, 1_060_000))).toBe(start);
  });

  it('an uptime that stopped is still refused when the clock did not move: the start lies before the read before', () => {
    const young = youngRestartSeconds(15);
    const memory = new Map<string, number>();
    const start = T0 / 1000 - 3_600;
    expect(finish(believedBootSteps({ bootedAt: start, readAt: T0, slackSeconds: 2, readElapsed: 1_000_000 }, T0, [], memory, young))).toBe(start);
    // 10 minutes on, the uptime says 30 s: a start 9.5 minutes ago, after the read before: a restart, believed.
    const later = T0 + 600_000;
    expect(finish(believedBootSteps({ bootedAt: later / 1000 - 30, readAt: later, slackSeconds: 2, readElapsed: 1_600_000 }, later, [], memory, young))).toBe(later / 1000 - 30);
    // 10 minutes on again, an uptime of 700 s: a start before the read before (and not the one believed): refused.
    const again = later + 600_000;
    expect(finish(believedBootSteps({ bootedAt: again / 1000 - 700, readAt: again, slackSeconds: 2, readElapsed: 2_200_000 }, again, [], memory, young))).toBeUndefined();
  });
});
