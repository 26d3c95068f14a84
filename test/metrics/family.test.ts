/**
 * The label contract is held by the family: label text comes only from seriesLabels/extendLabels, in the family's
 * declared order. The @ts-expect-error lines are the compile-time half (tsc checks tests): each fails to compile
 * without the `// @ts-expect-error`, i.e. the compiler refuses a label left out, one too many, or labels made
 * for a family of another shape.
 */
import { describe, expect, it } from 'vitest';
import { extendLabels, routerLabel, seriesLabels } from '../../src/metrics/family.js';
import { FAMILIES } from '../../src/metrics/families.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { COLLECTOR_DESCRIPTORS } from '../../src/collectors/descriptors.js';
import { WIREGUARD_FAMILIES } from '../../src/collectors/wireguard.contract.js';
import { WIREGUARD_SETUP_FAMILIES } from '../../src/collectors/wireguard-setup.contract.js';
import { PING_FAMILIES } from '../../src/collectors/ping.contract.js';

describe('metric family label contract', () => {
  it('writes the router label, then the values under the declared names in the declared order, escaped', () => {
    const router = routerLabel('h"q');
    expect(router).toBe('router="h\\"q"');
    const peer = seriesLabels(WIREGUARD_FAMILIES.wgPeerRx, router, ['wg0', 'K=', 'a\nb']);
    expect(peer).toBe('router="h\\"q",interface="wg0",public_key="K=",name="a\\nb"');
    expect(extendLabels(peer, WIREGUARD_FAMILIES.wgPeerInfo, ['192.0.2.1:51820', '10.0.0.2/32'])).toBe(
      `${peer},endpoint="192.0.2.1:51820",allowed_address="10.0.0.2/32"`,
    );
  });

  it('refuses at compile time what the family does not declare', () => {
    const router = routerLabel('hq');
    const samples = new SampleSet();
    const iface = seriesLabels(WIREGUARD_FAMILIES.wgInterfaceRunning, router, ['wg0']);
    // Compiled, never run: each line is refused by the compiler.
    const refused = (): void => {
      // @ts-expect-error a label left out
      seriesLabels(WIREGUARD_FAMILIES.wgPeerRx, router, ['wg0', 'K=']);
      // @ts-expect-error one label too many
      seriesLabels(PING_FAMILIES.pingSuccess, router, ['192.0.2.1', 'gw', 'extra']);
      // @ts-expect-error labels of interface shape handed to a peer family
      samples.add(WIREGUARD_FAMILIES.wgPeerRx, iface, 1);
      // @ts-expect-error a plain string is not label text
      samples.add(WIREGUARD_FAMILIES.wgInterfaceRunning, 'router="hq",interface="wg0"', 1);
    };
    expect(typeof refused).toBe('function');
    samples.add(WIREGUARD_SETUP_FAMILIES.wgInterfaceSetupOk, extendLabels(iface, WIREGUARD_SETUP_FAMILIES.wgInterfaceSetupOk, ['route']), 1);
    expect(samples.size).toBe(1);
  });

  it('lays every collector family out exactly once, numbered in exposition order', () => {
    expect(FAMILIES.map((family) => family.index)).toEqual(FAMILIES.map((_, index) => index));
    for (const family of COLLECTOR_DESCRIPTORS.flatMap((collector): readonly { name: string }[] => collector.families)) {
      expect(FAMILIES.filter((placed) => placed.name === family.name)).toHaveLength(1);
    }
    // The set-up audit's family is exposed among the wireguard interface families (the golden order).
    const names = FAMILIES.map((family) => family.name);
    expect(names.indexOf('routeros_wireguard_interface_setup_ok')).toBe(names.indexOf('routeros_wireguard_interface_mtu_bytes') + 1);
  });
});
