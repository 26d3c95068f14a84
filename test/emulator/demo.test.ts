/**
 * The demo scenario delivers what docs/emulator.md promises: three routers, one peer of each kind,
 * and every tunnel set-up audit passing except the one that is meant to fail (checked here by an
 * independent implementation of the audit rules from the spec's usage notes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS, DEMO_KEYS, startEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatedRouter } from '../../src/emulator/index.js';
import { Client, ManualClock, seconds } from './helpers.js';
import type { Rec } from './helpers.js';

const clock = new ManualClock();
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ now: clock.now });
});

afterAll(async () => {
  await emu.close();
});

const peerOf = (router: string, name: string): Rec => emu.router(router).row('interface/wireguard/peers', name) ?? {};

describe('demo routers and peers', () => {
  it('has hq 7.19.4, branch-1 7.16 and branch-2 7.12.1', () => {
    expect(emu.routers.map((r) => [r.name, r.version])).toEqual([['hq', '7.19.4'], ['branch-1', '7.16'], ['branch-2', '7.12.1']]);
    for (const r of emu.routers) {
      const peers = r.rows('interface/wireguard/peers').length;
      expect(peers).toBeGreaterThanOrEqual(3);
      expect(peers).toBeLessThanOrEqual(6);
    }
  });

  it('tunnels pair up: hq peers carry the branch interface keys and back', () => {
    const hqWg = emu.router('hq').row('interface/wireguard', 'wg-branches') ?? {};
    expect(hqWg['public-key']).toBe(DEMO_KEYS.hqBranches.publicKey);
    expect(peerOf('hq', 'branch-1')['public-key']).toBe(emu.router('branch-1').row('interface/wireguard', 'wg-hq')?.['public-key']);
    expect(peerOf('branch-1', 'hq')['public-key']).toBe(hqWg['public-key']);
  });

  it('one fresh, one stale, one going stale, one never, one disabled peer', () => {
    const f = DEMO_FACTS;
    expect(seconds(peerOf(f.freshPeer.router, f.freshPeer.name)['last-handshake'] ?? '')).toBeLessThan(130);
    const stale = seconds(peerOf(f.stalePeer.router, f.stalePeer.name)['last-handshake'] ?? '');
    expect(stale).toBeGreaterThanOrEqual(600);
    expect(stale).toBeLessThan(620);
    expect(seconds(peerOf(f.goingStalePeer.router, f.goingStalePeer.name)['last-handshake'] ?? '')).toBeLessThan(130);
    expect(peerOf(f.neverPeer.router, f.neverPeer.name)).not.toHaveProperty('last-handshake');
    expect(peerOf(f.disabledPeer.router, f.disabledPeer.name)).toMatchObject({ disabled: 'true', rx: '0', tx: '0' });
    clock.advance(300);
    expect(seconds(peerOf(f.goingStalePeer.router, f.goingStalePeer.name)['last-handshake'] ?? '')).toBeGreaterThan(180);
    expect(seconds(peerOf(f.freshPeer.router, f.freshPeer.name)['last-handshake'] ?? '')).toBeLessThan(130);
  });

  it('comments exercise escaping: quotes, backslashes, non-ASCII', () => {
    const comments = emu.routers.flatMap((r) => r.rows('interface/wireguard/peers').map((p) => p['comment'] ?? ''));
    expect(comments.some((c) => c.includes('"'))).toBe(true);
    expect(comments.some((c) => c.includes('\\'))).toBe(true);
    expect(comments.some((c) => /[^\x20-\x7e]/.test(c))).toBe(true);
  });
});

/** The audit of the spec's usage notes, written independently of the scenario builder. */
function audit(r: EmulatedRouter, iface: Rec): Record<string, boolean> {
  const name = iface['name'] ?? '';
  const peers = r.rows('interface/wireguard/peers').filter((p) => p['interface'] === name);
  const routed = peers.flatMap((p) => (p['allowed-address'] ?? '').split(',')).filter((a) => a !== '' && !a.endsWith('/32'));
  const lans = r.rows('ip/address').filter((a) => a['comment'] === 'LAN').map((a) => `${a['network']}/${(a['address'] ?? '').split('/')[1]}`);
  const rules = r.rows('ip/firewall/filter').filter((f) => f['disabled'] !== 'true');
  const beforeDrop = (chain: string, ok: (f: Rec) => boolean): boolean => {
    for (const f of rules.filter((x) => x['chain'] === chain)) {
      if (f['action'] === 'drop' || f['action'] === 'reject') return false;
      if (f['action'] === 'accept' && ok(f)) return true;
    }
    return false;
  };
  const port = iface['listen-port'] ?? '';
  return {
    address: r.rows('ip/address').some((a) => a['interface'] === name),
    route: routed.every((subnet) => r.rows('ip/route').some((rt) => rt['dst-address'] === subnet && rt['gateway'] === name)),
    firewall_input: beforeDrop('input', (f) => f['protocol'] === 'udp' && (f['dst-port'] ?? '').split(',').includes(port)),
    firewall_forward: routed.every((s) =>
      lans.every(
        (l) =>
          beforeDrop('forward', (f) => f['src-address'] === l && f['dst-address'] === s) &&
          beforeDrop('forward', (f) => f['src-address'] === s && f['dst-address'] === l),
      ),
    ),
  };
}

describe('tunnel set-up audit', () => {
  it('every interface passes every check except branch-2 wg-lab firewall_input', () => {
    const failures: string[] = [];
    for (const r of emu.routers) {
      for (const iface of r.rows('interface/wireguard')) {
        for (const [check, ok] of Object.entries(audit(r, iface))) if (!ok) failures.push(`${r.name}/${iface['name']}/${check}`);
      }
    }
    const f = DEMO_FACTS.failingAudit;
    expect(failures).toEqual([`${f.router}/${f.interface}/${f.check}`]);
  });
});

describe('demo ping targets and bandwidth server', () => {
  it('match DEMO_FACTS', async () => {
    const c = new Client(emu);
    const ping = async (target: string): Promise<Rec[]> => (await c.post('hq', '/rest/ping', { address: target, count: 4, interval: '10ms' })).json as Rec[];
    expect((await ping(DEMO_FACTS.ping.answers.target)).at(-1)?.['packet-loss']).toBe('0');
    expect((await ping(DEMO_FACTS.ping.timeout.target)).at(-1)?.['packet-loss']).toBe('100');
    // The gateway says host unreachable to the first ping, the rest time out (as captured).
    const unreachable = await ping(DEMO_FACTS.ping.hostUnreachable.target);
    expect(unreachable.map((row) => row['status'])).toEqual(['host unreachable', 'timeout', 'timeout', 'timeout']);
    expect(unreachable.map((row) => row['host'])).toEqual(['198.51.100.254', ...Array<string>(3).fill(DEMO_FACTS.ping.hostUnreachable.target)]);
    expect(unreachable.at(-1)?.['packet-loss']).toBe('100');
    const lossy = await c.post('hq', '/rest/ping', { address: DEMO_FACTS.ping.lossy.target, count: 10, interval: '10ms' });
    expect((lossy.json as Rec[]).at(-1)?.['packet-loss']).toBe('30');
    const bt = await c.post('hq', '/rest/tool/bandwidth-test', { address: DEMO_FACTS.bandwidthServer.target, duration: '500ms' });
    expect((bt.json as Rec[]).at(-1)?.['status']).toBe('done testing');
    await c.close();
  });
});

describe('demo trends for the forecast panels', () => {
  it("hq's free memory falls (a leak) in every minute of the first ten, whatever the wander does", () => {
    const freeMemory = (): number => Number(emu.router('hq').rows('system/resource')[0]?.['free-memory']);
    const slope = (samples: readonly number[]): number => {
      // Least squares over equally spaced samples, as PromQL's deriv() fits them.
      const n = samples.length;
      const meanX = (n - 1) / 2;
      const meanY = samples.reduce((a, b) => a + b, 0) / n;
      let num = 0;
      let den = 0;
      samples.forEach((y, x) => {
        num += (x - meanX) * (y - meanY);
        den += (x - meanX) ** 2;
      });
      return num / den;
    };
    for (let minute = 0; minute < 10; minute++) {
      const samples: number[] = [];
      for (let i = 0; i < 12; i++) {
        samples.push(freeMemory());
        clock.advance(5);
      }
      expect(slope(samples), `minute ${minute}`).toBeLessThan(0);
    }
  });
});
