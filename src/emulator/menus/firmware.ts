/**
 * `system/routerboard` (hardware only; CHR answers 400 for the menu) and `system/package/update`,
 * in the shapes of the Telegraf 7.16 hAP ac² and dumbmonit 7.23.7 CHR captures. Both are read
 * only here: the commands that would reach the outside or flash firmware are recorded no-ops.
 */
import type { PackageUpdateSeed, RouterboardSeed, Row } from '../types.js';
import { hash32 } from '../util/rng.js';
import { atLeast, compareReleases, parseVersion } from '../util/version.js';
import type { RosVersion } from '../util/version.js';
import type { SingletonMenu } from './types.js';

export class RouterboardMenu implements SingletonMenu {
  readonly kind = 'singleton';
  readonly #row: Row;

  constructor(routerName: string, boardName: string, version: RosVersion, seed: RouterboardSeed) {
    this.#row = {
      'board-name': boardName,
      'current-firmware': seed.currentFirmware ?? version.text,
      'factory-firmware': seed.factoryFirmware ?? '7.5',
      'firmware-type': seed.firmwareType ?? 'ipq4000L',
      model: seed.model ?? boardName,
      routerboard: 'true',
      'serial-number': seed.serialNumber ?? `HG${(hash32('serial', routerName) % 0xfffffff).toString(16).toUpperCase().padStart(7, '0')}`,
      'upgrade-firmware': seed.upgradeFirmware ?? version.text,
    };
  }

  row(): Row {
    return { ...this.#row };
  }
}

export class PackageUpdateMenu implements SingletonMenu {
  readonly kind = 'singleton';
  readonly #row: Row;

  constructor(version: RosVersion, channel: string, seed: PackageUpdateSeed) {
    // The update channel is a setting of its own: a long-term 7.23.7 was captured following `stable` (dumbmonit).
    const row: Row = { channel: seed.channel ?? channel, 'installed-version': version.text };
    // check-certificate / ip-version / mode: seen on 7.23.7 (dumbmonit); shown from 7.22 (inferred).
    if (atLeast(version, '7.22')) Object.assign(row, { 'check-certificate': 'yes', 'ip-version': 'auto', mode: 'https' });
    const latest = seed.latestVersion ?? version.text;
    if (latest !== false) {
      row['latest-version'] = latest;
      // 7.24 is newer than an installed 7.24rc2, as the exporter's firmware collector reads it too.
      row['status'] = compareReleases(parseVersion(latest), version) > 0 ? 'New version is available' : 'System is already up to date';
    }
    this.#row = row;
  }

  row(): Row {
    return { ...this.#row };
  }
}
