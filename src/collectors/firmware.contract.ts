/** `firmware`'s contract: its descriptor (config defaults) and its metric families. */
import { defineFamily } from '../metrics/family.js';
import type { CollectorDescriptor } from './contract.js';

/** HELP names the RouterOS path and property a value comes from, so an operator can check it on the router. */
export const FIRMWARE_FAMILIES = {
  firmwareInfo: defineFamily('routeros_firmware_info', 'info', ['model', 'firmware_type', 'current', 'upgrade'], 'RouterBOOT firmware from system/routerboard (model, firmware-type, current-firmware, upgrade-firmware); always 1. Absent on CHR and x86, which have no RouterBOARD.'),
  upgradePending: defineFamily('routeros_firmware_upgrade_pending', 'gauge', [], 'system/routerboard current-firmware differs from upgrade-firmware: 1 when a RouterBOOT upgrade is waiting for /system routerboard upgrade and a reboot.'),
  packageUpdateInfo: defineFamily('routeros_package_update_info', 'info', ['installed_version', 'latest_version', 'channel'], 'system/package/update installed-version, latest-version (empty until the router last checked for updates) and channel; always 1.'),
  packageUpdateAvailable: defineFamily('routeros_package_update_available', 'gauge', [], 'system/package/update latest-version is newer than installed-version: 1 yes, 0 no; absent while the router has never checked.'),
} as const;

export const FIRMWARE = {
  name: 'firmware',
  description: 'RouterBOOT firmware (system/routerboard) and RouterOS update state (system/package/update), read only',
  defaultEnabled: true,
  // Both change only when someone updates the router or it checks for updates: hourly is plenty.
  defaultSchedule: '0 7 * * * *',
  jobsPer: 'router',
  healthParts: [],
  families: Object.values(FIRMWARE_FAMILIES),
} as const satisfies CollectorDescriptor;
