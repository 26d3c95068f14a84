/**
 * The interface collector end to end against the emulator's demo over HTTPS, with the production client and a
 * read-only user: hq's WAN uplink carries traffic at its link rate, drops once (link-downs 0 → 1, no rate while
 * down), the dynamic PPPoE session stays out by default, and WireGuard interfaces are exported beside the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { Secret } from '../../src/util/secret.js';
import { interfaceCollector } from '../../src/collectors/interface.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import { sampleText } from './sample-text.js';

const PASSWORD = 'read only, for the interface test';
let now = Date.UTC(2026, 0, 15, 12, 0, 0);
let emulator: Emulator;
let client: RouterOsClient;

beforeAll(async () => {
  emulator = await startEmulator({
    scenario: 'demo',
    now: () => now,
    users: [{ name: 'monitor', password: PASSWORD, policies: ['read', 'api', 'rest-api'] }],
  });
  client = new RouterOsClient({
    url: emulator.router(DEMO_FACTS.uplink.router).url,
    username: 'monitor',
    password: new Secret(PASSWORD),
    timeoutMs: 5_000,
    tls: { ca: emulator.ca },
  });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

async function collect(router = testRouter()): Promise<string> {
  const [job] = interfaceCollector.jobs(router);
  if (job === undefined) throw new Error('no job');
  const result = await job.run({ router, client, routerLabel: routerLabel('hq'), now: () => now, signal: new AbortController().signal, memory: new Map() });
  expect(result.problems).toEqual([]);
  return sampleText(result.samples);
}

function value(text: string, family: string, iface: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${family}{`) && l.includes(`interface="${iface}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('interface collector against the demo (HTTPS)', () => {
  const { interface: uplink, linkDownAfterSeconds, downForSeconds } = DEMO_FACTS.uplink;

  it('exports the uplink with traffic and its 1 Gbps link rate, WireGuard interfaces, and no dynamic session', async () => {
    const out = await collect();
    expect(value(out, 'routeros_interface_receive_bytes_total', uplink)).toBeGreaterThan(1e9);
    expect(value(out, 'routeros_interface_running', uplink)).toBe(1);
    expect(value(out, 'routeros_interface_link_downs_total', uplink)).toBe(0);
    expect(value(out, 'routeros_interface_link_speed_bytes_per_second', uplink)).toBe(125_000_000);
    expect(out).toContain(`routeros_interface_info{router="hq",interface="${uplink}",type="ether",comment="WAN uplink"} 1\n`);
    expect(out).toMatch(/routeros_interface_transmit_bytes_total\{router="hq",interface="wg-branches",type="wg"\} \d+\n/);
    // An unplugged port has no rate; a session is dynamic and left out.
    expect(value(out, 'routeros_interface_link_speed_bytes_per_second', 'ether4')).toBeUndefined();
    expect(value(out, 'routeros_interface_running', 'ether4')).toBe(0);
    expect(out).not.toContain(DEMO_FACTS.dynamicInterface.interface);
  });

  it('counts the link-down, and has no link rate while the link is down', async () => {
    const before = await collect();
    now += (linkDownAfterSeconds + 1) * 1000;
    const down = await collect();
    expect(value(down, 'routeros_interface_link_downs_total', uplink)).toBe(1);
    expect(value(down, 'routeros_interface_running', uplink)).toBe(0);
    expect(value(down, 'routeros_interface_link_speed_bytes_per_second', uplink)).toBeUndefined();
    now += downForSeconds * 1000;
    const after = await collect();
    expect(value(after, 'routeros_interface_running', uplink)).toBe(1);
    expect(value(after, 'routeros_interface_receive_bytes_total', uplink)).toBeGreaterThan(value(before, 'routeros_interface_receive_bytes_total', uplink) ?? Infinity);
  });

  it('include_dynamic brings the PPPoE session in', async () => {
    const out = await collect(testRouter({ interfaces: { include_dynamic: true } }));
    expect(out).toContain(`interface="${DEMO_FACTS.dynamicInterface.interface}",type="pppoe-in"`);
  });
});
