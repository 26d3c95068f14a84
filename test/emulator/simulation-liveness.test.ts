/**
 * Emulator realism for tunnel liveness (issue 16): keepalive site links re-handshake on WireGuard's schedule
 * and stop when the peer dies, road warriors go idle (handshake ages, counters stop), and pings forced through a
 * WireGuard interface follow cryptokey routing: a fresh handshake with the wrong allowed-address still loses
 * every probe, as does a dead peer or a source address the router does not own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { asRows, Client, ManualClock, seconds } from './helpers.js';
import type { Rec } from './helpers.js';

const R = 'r';
const clock = new ManualClock();
let emu: Emulator;
let client: Client;

const seed = {
  users: [{ name: 'admin', password: '' }],
  routers: [
    {
      name: R,
      version: '7.19.4',
      interfaces: [{ name: 'wg0', listenPort: 13231 }],
      addresses: [{ address: '10.9.0.1/24', interface: 'wg0' }],
      peers: [
        { interface: 'wg0', name: 'site', allowedAddress: ['10.9.0.2/32'], endpointAddress: '198.51.100.2', endpointPort: 13231, persistentKeepalive: 25 },
        // The far end uses 10.9.0.30, but this side allows 10.9.0.3: handshakes fine, no traffic for .30.
        { interface: 'wg0', name: 'mismatch', allowedAddress: ['10.9.0.3/32'], endpointAddress: '198.51.100.3', endpointPort: 13231, persistentKeepalive: 25 },
        { interface: 'wg0', name: 'dying', allowedAddress: ['10.9.0.4/32'], endpointAddress: '198.51.100.4', endpointPort: 13231, persistentKeepalive: 25, life: 'going-stale', staleAfterSeconds: 60 },
        { interface: 'wg0', name: 'laptop', allowedAddress: ['10.9.0.5/32'], responder: true, life: 'going-stale', staleAfterSeconds: 60 },
      ],
      ping: {
        '10.9.0.2': { kind: 'reachable', rttMs: 10 },
        '10.9.0.30': { kind: 'reachable', rttMs: 10 },
        '10.9.0.4': { kind: 'reachable', rttMs: 10 },
      },
    },
  ],
} satisfies EmulatorOptions;

beforeAll(async () => {
  emu = await startEmulator({ ...seed, now: clock.now });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

const peer = (name: string): Rec => emu.router(R).row('interface/wireguard/peers', name) ?? {};
const age = (name: string): number => seconds(peer(name)['last-handshake'] ?? '');

async function received(address: string, extra: Record<string, string> = {}): Promise<string | undefined> {
  const rows = asRows((await client.post(R, '/rest/ping', { address, count: 2, interval: '10ms', ...extra })).json);
  return rows.at(-1)?.['received'];
}

describe('peer liveness on the emulator', () => {
  it('a keepalive site link re-handshakes within 2 minutes for as long as it lives; a dead one ages past 180 s', () => {
    const ages: number[] = [];
    for (let step = 0; step < 20; step++) {
      ages.push(age('site'));
      clock.advance(30);
    }
    expect(Math.max(...ages)).toBeLessThan(130);
    expect(age('dying')).toBeGreaterThan(180 + 25);
  });

  it('an idle road warrior: its handshake ages and its counters stop (no endpoint: not even tx)', () => {
    const before = peer('laptop');
    clock.advance(300);
    const after = peer('laptop');
    expect(age('laptop')).toBeGreaterThan(300);
    expect([after['rx'], after['tx']]).toEqual([before['rx'], before['tx']]);
    // A dead keepalive peer with an endpoint keeps trying: tx moves (initiations), rx does not.
    const dying = peer('dying');
    clock.advance(60);
    expect(peer('dying')['rx']).toBe(dying['rx']);
    expect(BigInt(peer('dying')['tx'] ?? '0')).toBeGreaterThan(BigInt(dying['tx'] ?? '0'));
  });

  it('pings through the tunnel follow cryptokey routing (interface=) and need a source the router owns (src-address=)', async () => {
    expect(await received('10.9.0.2', { interface: 'wg0' })).toBe('2');
    expect(await received('10.9.0.2', { interface: 'wg0', 'src-address': '10.9.0.1' })).toBe('2');
    expect(await received('10.9.0.2', { interface: 'wg0', 'src-address': '10.99.0.1' })).toBe('0');
    // Handshake fresh, allowed-address wrong: nothing passes through the tunnel, though the host answers otherwise.
    expect(age('mismatch')).toBeLessThan(130);
    expect(await received('10.9.0.30', { interface: 'wg0' })).toBe('0');
    expect(await received('10.9.0.30')).toBe('2');
    // The dead peer's session is gone: its address no longer answers through the tunnel.
    expect(await received('10.9.0.4', { interface: 'wg0' })).toBe('0');
  });
});
