/**
 * RouterOS writes booleans as `true`/`false`; the decoder also reads `yes`/`no`, as the CLI and older replies
 * write them. Every place that looks at a flag reads it the same way (found by review: a peer and interface
 * `disabled: yes` were still probed, `routerboard: no` failed the firmware run, an `invalid: yes` address counted
 * as usable).
 */
import { describe, expect, it } from 'vitest';
import { planProbes, wantsProbes } from '../../src/collectors/wireguard-probe.js';
import { routerboardOf } from '../../src/collectors/firmware.js';
import { usable } from '../../src/analysis/setup-routes.js';
import { saysFalse, saysTrue } from '../../src/routeros/decode.js';
import { testRouter } from '../helpers/config.js';

const SPELLINGS = [
  ['true', 'false'],
  ['yes', 'no'],
] as const;

describe.each(SPELLINGS)('flags written %s / %s', (yes, no) => {
  it('saysTrue and saysFalse read them, and nothing else', () => {
    expect([saysTrue(yes), saysTrue(no), saysFalse(yes), saysFalse(no)]).toEqual([true, false, false, true]);
    for (const other of [undefined, '', 'maybe', 'True']) expect([saysTrue(other), saysFalse(other)]).toEqual([false, false]);
  });

  it('a disabled peer or interface is not probed; an enabled one is', () => {
    const health = testRouter({ health: { probe_tunnels: true } }).health;
    const peer = { interface: 'wg0', 'public-key': 'k', 'allowed-address': '10.0.0.2/32', 'persistent-keepalive': '25s' };
    const addresses = [{ address: '10.0.0.1/24', interface: 'wg0', disabled: no }];
    expect(planProbes([{ name: 'wg0', disabled: yes }], [{ ...peer, disabled: no }], addresses, health).targets).toEqual([]);
    expect(planProbes([{ name: 'wg0', disabled: no }], [{ ...peer, disabled: yes }], addresses, health).targets).toEqual([]);
    expect(planProbes([{ name: 'wg0', disabled: no }], [{ ...peer, disabled: no }], addresses, health).targets).toHaveLength(1);
    // A disabled address is no source.
    expect(planProbes([{ name: 'wg0', disabled: no }], [{ ...peer, disabled: no }], [{ ...addresses[0], disabled: yes }], health).targets).toEqual([]);
  });

  it('no address list is asked for when every selected peer or its interface is disabled', () => {
    const health = testRouter({ health: { probe_tunnels: true } }).health;
    const peer = { interface: 'wg0', 'public-key': 'k', 'allowed-address': '10.0.0.2/32', 'persistent-keepalive': '25s' };
    expect(wantsProbes([{ name: 'wg0', disabled: no }], [{ ...peer, disabled: yes }], health)).toBe(false);
    expect(wantsProbes([{ name: 'wg0', disabled: yes }], [{ ...peer, disabled: no }], health)).toBe(false);
    expect(wantsProbes([{ name: 'wg0', disabled: no }], [{ ...peer, disabled: no }], health)).toBe(true);
  });

  it('a board that says it is no RouterBOARD has no firmware to read', () => {
    expect(routerboardOf({ routerboard: no })).toBeUndefined();
  });

  it('an invalid address is not usable', () => {
    expect(usable({ address: '10.0.0.1/24', interface: 'wg0', invalid: yes })).toBe(false);
    expect(usable({ address: '10.0.0.1/24', interface: 'wg0', invalid: no })).toBe(true);
  });
});
