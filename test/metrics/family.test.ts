/**
 * The label contract is held by the family: label text comes only from seriesLabels and SampleSet.addExtended, in the family's
 * declared order. The @ts-expect-error lines are the compile-time half (tsc checks tests): each fails to compile
 * without the `// @ts-expect-error`, i.e. the compiler refuses a label left out, one too many, or labels made
 * for a family of another shape.
 */
import { describe, expect, it } from 'vitest';
import { routerLabel, seriesLabels } from '../../src/metrics/family.js';
import { sampleText } from '../collectors/sample-text.js';
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
    const samples = new SampleSet();
    samples.add(WIREGUARD_FAMILIES.wgPeerRx, peer, 5);
    samples.addExtended(WIREGUARD_FAMILIES.wgPeerInfo, peer, ['192.0.2.1:51820', '10.0.0.2/32'], 1);
    samples.addExtended(WIREGUARD_FAMILIES.wgPeerState, peer, ['u"p'], 1);
    samples.add(WIREGUARD_FAMILIES.wgPeerTx, peer, 7);
    const text = sampleText(samples);
    expect(text).toContain(`routeros_wireguard_peer_info{${peer},endpoint="192.0.2.1:51820",allowed_address="10.0.0.2/32"} 1\n`);
    expect(text).toContain(`routeros_wireguard_peer_state{${peer},state="u\\"p"} 1\n`);
    // The label text encoded once serves the families that follow (and a different text replaces it).
    expect(text).toContain(`routeros_wireguard_peer_receive_bytes_total{${peer}} 5\n`);
    expect(text).toContain(`routeros_wireguard_peer_transmit_bytes_total{${peer}} 7\n`);
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
      // @ts-expect-error an extended family's values: one left out
      samples.addExtended(WIREGUARD_FAMILIES.wgPeerInfo, seriesLabels(WIREGUARD_FAMILIES.wgPeerRx, router, ['wg0', 'K=', 'n']), ['192.0.2.1:51820'], 1);
      // @ts-expect-error extended from labels of another shape (a ping target's, not a peer's)
      samples.addExtended(WIREGUARD_FAMILIES.wgPeerState, seriesLabels(PING_FAMILIES.pingSuccess, router, ['192.0.2.1', 'gw']), ['up'], 1);
      // @ts-expect-error one value too many
      samples.addExtended(WIREGUARD_SETUP_FAMILIES.wgInterfaceSetupOk, iface, ['route', 'extra'], 1);
    };
    expect(typeof refused).toBe('function');
    samples.addExtended(WIREGUARD_SETUP_FAMILIES.wgInterfaceSetupOk, iface, ['route'], 1);
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
