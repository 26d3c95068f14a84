/**
 * A reply of another menu's rows is no data of this one. Just after it boots, a router may answer its /user list for
 * every menu asked (routeros-real-formats.md §1; the emulator's post-boot race does the same): rows with a `name`,
 * which was all interface, WireGuard interface and set-up reads asked of a record. `interface` then succeeded with
 * an interface named after a user, `wireguard_setup` found a set-up fault on it, and `health` took the rows as
 * sensors with a decode error (found by review). Each is a shape error now, whatever other menu's rows come.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapInterfaces } from '../../src/collectors/interface.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { mapWireguardSetup } from '../../src/collectors/wireguard-setup.js';
import { mapSystemHealth } from '../../src/collectors/system-health.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import type { SetupRecords } from '../../src/analysis/setup-audit.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import { peerRecord, T0, WG_UP } from '../health/snapshots.js';

const ROUTER = routerLabel('hq');
const router = testRouter();
/** What a router just booted was seen to send for every menu (the emulator sends it too). */
const USER_LIST: RouterRecord[] = [{ '.id': '*1', address: '', disabled: 'false', expired: 'false', group: 'full', name: 'admin' }];

/** Rows of menus that have a `name` but are none of these: users, groups, scripts, schedulers, queues, bridges' ports. */
const otherRows = fc.array(
  fc.record(
    {
      '.id': fc.constantFrom('*1', '*2', '*A'),
      name: fc.constantFrom('admin', 'monitor', 'full', 'backup', 'ether1', 'wg0'),
      group: fc.constantFrom('full', 'read', 'write'),
      disabled: fc.constantFrom('true', 'false'),
      comment: fc.string({ maxLength: 8 }),
      policy: fc.constantFrom('read,write,test', 'ftp,reboot'),
      'last-logged-in': fc.constantFrom('2026-11-30 10:00:00', ''),
      source: fc.constantFrom(':log info x', ''),
      'start-time': fc.constantFrom('startup', '00:00:00'),
      // A user restricted by source address (common hardening) has one: its row must still be no address.
      address: fc.constantFrom('10.0.0.0/8', '192.0.2.7', ''),
    },
    { requiredKeys: ['name'] },
  ),
  { minLength: 1, maxLength: 4 },
);

function shapeError(map: () => unknown): RouterOsError | undefined {
  try {
    map();
  } catch (error) {
    return error instanceof RouterOsError ? error : undefined;
  }
  return undefined;
}

const GOOD_SETUP: SetupRecords = {
  interfaces: [WG_UP],
  peers: [peerRecord('site', '5s')],
  addresses: [{ '.id': '*1', address: '10.0.0.1/24', interface: 'wg-branch', disabled: 'false' }],
  routes: [{ '.id': '*1', 'dst-address': '0.0.0.0/0', gateway: '192.0.2.1', disabled: 'false' }],
  filter: [{ '.id': '*1', chain: 'input', action: 'accept' }],
};

describe("another menu's rows", () => {
  it('the /user list: a shape error for interface, wireguard, wireguard_setup and health; the good replies map', () => {
    expect(shapeError(() => mapInterfaces(USER_LIST, ROUTER, router.interfaces))?.reason).toBe('parse');
    expect(shapeError(() => mapWireguard(USER_LIST, [], ROUTER, router.health, T0))?.reason).toBe('parse');
    expect(shapeError(() => mapWireguard([WG_UP], USER_LIST, ROUTER, router.health, T0))?.reason).toBe('parse');
    for (const menu of Object.keys(GOOD_SETUP) as (keyof SetupRecords)[]) {
      expect(shapeError(() => mapWireguardSetup({ ...GOOD_SETUP, [menu]: USER_LIST }, ROUTER, T0))?.message).toMatch(/the reply is not this menu's data$/);
    }
    expect(shapeError(() => mapSystemHealth(USER_LIST, ROUTER))?.reason).toBe('parse');

    expect(shapeError(() => mapInterfaces([{ name: 'ether1', type: 'ether', running: 'true' }], ROUTER, router.interfaces))).toBeUndefined();
    expect(shapeError(() => mapWireguardSetup(GOOD_SETUP, ROUTER, T0))).toBeUndefined();
    expect(shapeError(() => mapSystemHealth([{ name: 'cpu-temperature', value: '45', type: 'C' }], ROUTER))).toBeUndefined();
    // Sensors listed before their first reading (a type, no value yet) are the menu's, not another's.
    expect(shapeError(() => mapSystemHealth([{ name: 'cpu-temperature', type: 'C' }, { name: 'fan1-speed', type: 'RPM' }], ROUTER))).toBeUndefined();
  });

  it('property: any rows of another named menu fail each of them, and never make a series', () => {
    fc.assert(
      fc.property(otherRows, fc.constantFrom('interface', 'wireguard', 'setup', 'addresses', 'health'), (rows, reader) => {
        const map = {
          interface: () => mapInterfaces(rows, ROUTER, router.interfaces),
          wireguard: () => mapWireguard(rows, [], ROUTER, router.health, T0),
          setup: () => mapWireguardSetup({ ...GOOD_SETUP, interfaces: rows }, ROUTER, T0),
          addresses: () => mapWireguardSetup({ ...GOOD_SETUP, addresses: rows }, ROUTER, T0),
          health: () => mapSystemHealth(rows, ROUTER),
        }[reader];
        expect(shapeError(map)?.message).toMatch(/the reply is not this menu's data$/);
      }),
      { numRuns: 300 },
    );
  });
});
