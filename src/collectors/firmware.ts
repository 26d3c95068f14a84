/**
 * `firmware`: GET /rest/system/routerboard and GET /rest/system/package/update → routeros_firmware_*,
 * routeros_package_update_*.
 *
 * Read only, by design: it reads what the router last learned and never asks it to learn more. Neither
 * `/system package update check-for-updates` (which makes the router contact MikroTik's servers), `download`,
 * `install` nor `/system routerboard upgrade` is ever called; test/collectors/firmware.test.ts holds it to that
 * against the emulator's record of such calls.
 *
 * CHR and x86 have no RouterBOARD: `system/routerboard` answers 400 "no such command or directory
 * (routerboard)". That is the board's nature, not a failure: the run succeeds without routerboard series.
 */
import type { Collector, JobContext, JobResult } from './types.js';
import type { RouterRecord } from '../routeros/records.js';
import { saysFalse } from '../routeros/decode.js';
import { isRouterOsError, RouterOsError } from '../routeros/errors.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type RouterLabel } from '../metrics/family.js';
import { FIRMWARE, FIRMWARE_FAMILIES as F } from './firmware.contract.js';
import { FieldReader, given, problemsOf } from '../analysis/decoding.js';
import { compareRouterOsVersions, parseRouterOsVersion } from './firmware-version.js';
import { quoteRouterText } from '../util/text.js';

export const ROUTERBOARD_PROPLIST = ['routerboard', 'model', 'firmware-type', 'current-firmware', 'upgrade-firmware'] as const;
export const PACKAGE_UPDATE_PROPLIST = ['installed-version', 'latest-version', 'channel'] as const;

/**
 * What a run keeps for the store beside its samples. No router text (the versions, the router's words on its last
 * check): nothing reads it, and a hostile reply's (up to a record's 1 MiB each) would be kept until the next run.
 */
export interface FirmwareData {
  /** False on boards without system/routerboard (CHR, x86). */
  routerboard: boolean;
  upgradePending: boolean | undefined;
  updateAvailable: boolean | undefined;
}

/**
 * Pure mapping of both replies; `routerboard` is undefined when the board has no such menu.
 */
export function mapFirmware(routerboard: RouterRecord | undefined, update: RouterRecord, routerLabel: RouterLabel): JobResult<FirmwareData> {
  const read = new FieldReader('system/package/update');
  const samples = new SampleSet();

  let upgradePending: boolean | undefined;
  if (routerboard !== undefined) {
    const current = routerboard['current-firmware'] ?? '';
    const upgrade = routerboard['upgrade-firmware'] ?? '';
    samples.add(F.firmwareInfo, seriesLabels(F.firmwareInfo, routerLabel, [routerboard['model'] ?? '', routerboard['firmware-type'] ?? '', current, upgrade]), 1);
    // Any difference is pending: RouterOS offers the firmware of the installed packages, never an older one
    // by itself, and after a downgrade of RouterOS the matching firmware is as much a step left to do.
    if (current !== '' && upgrade !== '') {
      upgradePending = current !== upgrade;
      samples.add(F.upgradePending, routerLabel, upgradePending ? 1 : 0);
    }
  }

  const installed = update['installed-version'];
  const latest = update['latest-version'];
  samples.add(F.packageUpdateInfo, seriesLabels(F.packageUpdateInfo, routerLabel, [installed ?? '', latest ?? '', update['channel'] ?? '']), 1);
  let updateAvailable: boolean | undefined;
  if (installed !== undefined && installed !== '' && latest !== undefined && latest !== '') {
    const from = parseRouterOsVersion(installed);
    const to = parseRouterOsVersion(latest);
    if (from === undefined) read.problem(`installed-version: not a RouterOS version: ${quoteRouterText(installed, 40)}`);
    if (to === undefined) read.problem(`latest-version: not a RouterOS version: ${quoteRouterText(latest, 40)}`);
    if (from !== undefined && to !== undefined) {
      updateAvailable = compareRouterOsVersions(to, from) > 0;
      samples.add(F.packageUpdateAvailable, routerLabel, updateAvailable ? 1 : 0);
    }
  }

  return {
    samples,
    ...problemsOf(read),
    data: {
      routerboard: routerboard !== undefined,
      upgradePending,
      updateAvailable,
    },
  };
}

/**
 * system/routerboard, or undefined on a board that has none: HTTP 400 "no such command or directory" (CHR), or
 * a reply of `routerboard: false` (a board that has the menu but is no RouterBOARD).
 */
async function readRouterboard(context: JobContext): Promise<RouterRecord | undefined> {
  let record: RouterRecord;
  try {
    record = await context.client.getSingleton('system/routerboard', { proplist: ROUTERBOARD_PROPLIST, signal: context.signal });
  } catch (error) {
    if (isRouterOsError(error) && error.code === 'ROS_ERR_UNSUPPORTED' && error.status === 400) return undefined;
    throw error;
  }
  return routerboardOf(record);
}

/**
 * A board's reply says whether it is a RouterBOARD, and a RouterBOARD's names its model and firmware. One that says
 * neither (`{}`, an `{"status":"ok"}` from something in between) is not the router's: a shape error, as for
 * system/package/update, never an info series of empty names (found by review).
 */
export function routerboardOf(record: RouterRecord): RouterRecord | undefined {
  if (saysFalse(record['routerboard'])) return undefined;
  if (given(record, 'model') || given(record, 'current-firmware')) return record;
  throw new RouterOsError('ROS_ERR_SHAPE', "GET /rest/system/routerboard: the reply names no model and no firmware; it is not the router's system/routerboard");
}

/**
 * Every system/package/update reply names the installed version. One without (`{}`, an `{"status":"ok"}` from
 * something in between) is not the router's: a shape error, never an info series of empty versions.
 */
function packageUpdate(record: RouterRecord): RouterRecord {
  if (given(record, 'installed-version')) return record;
  throw new RouterOsError('ROS_ERR_SHAPE', "GET /rest/system/package/update: the reply has no installed-version; it is not the router's system/package/update");
}

export const firmwareCollector: Collector<FirmwareData, 'firmware'> = {
  ...FIRMWARE,
  name: 'firmware',
  jobs: (router) => [
    {
      collector: 'firmware',
      job: 'firmware',
      schedule: router.schedules.firmware,
      // Two requests, one after the other.
      deadlineSeconds: 2 * router.timeoutSeconds,
      connection: 'reads',
      settings: null,
      async run(context: JobContext) {
        const routerboard = await readRouterboard(context);
        const update = await context.client.getSingleton('system/package/update', { proplist: PACKAGE_UPDATE_PROPLIST, signal: context.signal });
        return mapFirmware(routerboard, packageUpdate(update), context.routerLabel);
      },
    },
  ],
};
