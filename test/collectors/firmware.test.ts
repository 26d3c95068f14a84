/**
 * The `firmware` collector (system/routerboard, system/package/update): mapping from the recorded replies (a
 * pending RouterBOOT upgrade on the Telegraf hAP, the CHR's 400 for a menu it lacks, an update known or never
 * checked), RouterOS version order, and runs against the emulator over HTTPS — which must never see a call that
 * reaches the outside or changes the router (`outsideCalls()` stays empty).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firmwareCollector, mapFirmware, type FirmwareData } from '../../src/collectors/firmware.js';
import { compareRouterOsVersions, parseRouterOsVersion } from '../../src/collectors/firmware-version.js';
import type { JobContext, JobResult } from '../../src/collectors/types.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { routerLabel } from '../../src/metrics/family.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { testRouter } from '../helpers/config.js';
import { EmulatorJobs } from '../helpers/emulator-jobs.js';
import { fixtureRecord } from '../helpers/fixtures.js';
import { sampleText } from './sample-text.js';

const ROUTER = routerLabel('hq');

describe('firmware mapping', () => {
  it('the Telegraf hAP: RouterOS updated to 7.16, RouterBOOT still 7.15.3 → upgrade pending', () => {
    const result = mapFirmware(fixtureRecord('system-routerboard-7.16-hap.json'), fixtureRecord('system-package-update-never-checked.json'), ROUTER);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_firmware_info{router="hq",model="RBD52G-5HacD2HnD",firmware_type="ipq4000L",current="7.15.3",upgrade="7.16"} 1\n');
    expect(out).toContain('routeros_firmware_upgrade_pending{router="hq"} 1\n');
    // Never checked for updates: the latest version is unknown, so no claim either way.
    expect(out).toContain('routeros_package_update_info{router="hq",installed_version="7.16",latest_version="",channel="stable"} 1\n');
    expect(out).not.toContain('routeros_package_update_available');
    expect(out).not.toContain('serial');
    expect(result.data).toMatchObject({ routerboard: true, upgradePending: true, updateAvailable: undefined });
    expect(result.decodeErrors).toBe(0);
  });

  it('the dumbmonit CHR: no routerboard series; 7.24.4 known and newer than 7.23.7 → update available', () => {
    const result = mapFirmware(undefined, fixtureRecord('system-package-update-7.23-chr.json'), ROUTER);
    expect(sampleText(result.samples)).toBe(
      'routeros_package_update_info{router="hq",installed_version="7.23.7",latest_version="7.24.4",channel="stable"} 1\n' +
        'routeros_package_update_available{router="hq"} 1\n',
    );
    expect(result.data).toEqual<FirmwareData>({
      routerboard: false,
      upgradePending: undefined,
      updateAvailable: true,
    });
  });

  it('firmware matching RouterOS is not pending; the same version is not an update', () => {
    const board = { ...fixtureRecord('system-routerboard-7.16-hap.json'), 'current-firmware': '7.16' };
    const out = sampleText(mapFirmware(board, { 'installed-version': '7.16', 'latest-version': '7.16', channel: 'stable' }, ROUTER).samples);
    expect(out).toContain('routeros_firmware_upgrade_pending{router="hq"} 0\n');
    expect(out).toContain('routeros_package_update_available{router="hq"} 0\n');
  });

  it('a version that does not read is a counted problem and no verdict', () => {
    const result = mapFirmware(undefined, { 'installed-version': '7.16', 'latest-version': 'ERROR: could not resolve dns name', channel: 'stable' }, ROUTER);
    expect(sampleText(result.samples)).not.toContain('update_available');
    expect(result.decodeErrors).toBe(1);
    expect(result.problems[0]).toMatch(/latest-version/);
  });
});

describe('RouterOS version order', () => {
  const order = ['7.9', '7.15.3', '7.16beta2', '7.16rc1', '7.16rc2', '7.16', '7.16.1', '7.16.10', '7.20.5', '7.23.7', '7.24.4', '8.0'];
  it('sorts releases as MikroTik numbers them (a pre-release before its release)', () => {
    const parsed = order.map((text) => {
      const version = parseRouterOsVersion(text);
      if (version === undefined) throw new Error(text);
      return version;
    });
    for (let i = 1; i < parsed.length; i++) {
      expect(compareRouterOsVersions(parsed[i] as never, parsed[i - 1] as never), `${order[i]} > ${order[i - 1]}`).toBeGreaterThan(0);
      expect(compareRouterOsVersions(parsed[i - 1] as never, parsed[i] as never)).toBeLessThan(0);
    }
    expect(compareRouterOsVersions(parsed[3] as never, parseRouterOsVersion('7.16rc1') as never)).toBe(0);
  });

  it('reads no text that is not a version', () => {
    for (const text of ['', '7', 'v7.16', '7.16 (stable)', '7.16.1.2', 'latest', '7.16gamma1', '99999.1']) {
      expect(parseRouterOsVersion(text), text).toBeUndefined();
    }
  });
});

describe('the firmware collector against the emulator over HTTPS', () => {
  let emulator: Emulator;
  const jobs = new EmulatorJobs(() => emulator);

  beforeAll(async () => {
    emulator = await startEmulator({
      control: true,
      routers: [
        {
          name: 'hap',
          version: '7.16',
          board: { boardName: 'hAP' },
          routerboard: { model: 'RBD52G-5HacD2HnD', firmwareType: 'ipq4000L', currentFirmware: '7.15.3', upgradeFirmware: '7.16' },
          packageUpdate: { latestVersion: false },
        },
        { name: 'chr', version: '7.23.7', packageUpdate: { latestVersion: '7.24.4' } },
        { name: 'ccr', version: '7.19.4', board: { boardName: 'CCR2004-1G-12S+2XS' }, routerboard: { model: 'CCR2004-1G-12S+2XS' } },
        // A router whose API user may only read: the collector needs nothing more.
        { name: 'ro', version: '7.19.4', board: { boardName: 'RB5009UG+S+' }, users: [{ name: 'ro', password: 'ro', policies: ['read', 'api', 'rest-api'] }] },
      ],
    });
  });

  afterAll(async () => {
    await jobs.close();
    await emulator.close();
  });

  const run = (name: string, user = 'admin', password = ''): Promise<JobResult<FirmwareData>> => jobs.run(firmwareCollector, name, user, password);

  it('is on by default, hourly, with a deadline for its two requests', () => {
    const router = testRouter();
    expect(router.collectors.firmware).toBe(true);
    const [job] = firmwareCollector.jobs(router);
    expect(job?.schedule).toBe('0 7 * * * *');
    expect(job?.deadlineSeconds).toBe(2 * router.timeoutSeconds);
  });

  it('a hAP with firmware left behind: pending; CHR: success without routerboard series', async () => {
    const hap = await run('hap');
    expect(sampleText(hap.samples)).toContain('routeros_firmware_upgrade_pending{router="hap"} 1\n');
    expect(hap.data.updateAvailable).toBeUndefined();
    const chr = await run('chr');
    const out = sampleText(chr.samples);
    expect(out).not.toContain('routeros_firmware');
    expect(out).toContain('routeros_package_update_available{router="chr"} 1\n');
    expect(chr.data.routerboard).toBe(false);
    const ccr = await run('ccr');
    expect(sampleText(ccr.samples)).toContain('routeros_firmware_upgrade_pending{router="ccr"} 0\n');
    expect(sampleText(ccr.samples)).toContain('routeros_package_update_available{router="ccr"} 0\n');
  });

  it('works for a user with the read policy only', async () => {
    const result = await run('ro', 'ro', 'ro');
    expect(result.data.routerboard).toBe(true);
    expect(result.decodeErrors).toBe(0);
  });

  it('never calls check-for-updates, download, install or routerboard upgrade', async () => {
    for (const name of ['hap', 'chr', 'ccr', 'ro']) await run(name, name === 'ro' ? 'ro' : 'admin', name === 'ro' ? 'ro' : '');
    for (const name of ['hap', 'chr', 'ccr', 'ro']) expect(emulator.router(name).outsideCalls(), name).toEqual([]);
  });

  it('the emulator does record such a call (so the empty record above means something)', async () => {
    const client = jobs.client('ccr');
    const before = emulator.router('ccr').outsideCalls().length;
    await client.run('system/package/update/check-for-updates');
    expect(emulator.router('ccr').outsideCalls().length).toBe(before + 1);
  });

  it.each([['{}', {}], ['{"status":"ok"}', { status: 'ok' }]])('a system/package/update of %s is not the router\'s: the run fails as a shape error', async (_name, update) => {
    const router = testRouter({ name: 'hap', url: emulator.router('hap').url });
    const [job] = firmwareCollector.jobs(router);
    const client: JobContext['client'] = {
      list: () => Promise.reject(new Error('not expected')),
      getSingleton: (menu: string) => Promise.resolve(menu === 'system/routerboard' ? { model: 'RB5009', 'current-firmware': '7.16', 'upgrade-firmware': '7.16' } : update),
      run: () => Promise.reject(new Error('not expected')),
    };
    await expect(job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() })).rejects.toMatchObject({
      code: 'ROS_ERR_SHAPE',
      reason: 'parse',
    });
  });

  it.each([
    ['{}', {}, 'ROS_ERR_SHAPE'],
    ['{"status":"ok"}', { status: 'ok' }, 'ROS_ERR_SHAPE'],
    ['routerboard false (the menu on a board that is none)', { routerboard: 'false' }, undefined],
  ])('a system/routerboard of %s is no board\'s data: a shape error, or no RouterBOARD', async (_name, board, code) => {
    const router = testRouter({ name: 'hap', url: emulator.router('hap').url });
    const [job] = firmwareCollector.jobs(router);
    const client: JobContext['client'] = {
      list: () => Promise.reject(new Error('not expected')),
      getSingleton: (menu: string) => Promise.resolve(menu === 'system/routerboard' ? board : fixtureRecord('system-package-update-never-checked.json')),
      run: () => Promise.reject(new Error('not expected')),
    };
    const run = job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() });
    if (code !== undefined) {
      await expect(run).rejects.toMatchObject({ code, reason: 'parse' });
      return;
    }
    const result = (await run) as JobResult<FirmwareData>;
    expect(result.data).toMatchObject({ routerboard: false });
    expect(sampleText(result.samples)).not.toContain('routeros_firmware_info');
    expect(sampleText(result.samples)).toContain('routeros_package_update_info');
  });

  it('another failure of system/routerboard is a failure, not an absent menu', async () => {
    const router = testRouter({ name: 'hap', url: emulator.router('hap').url });
    const [job] = firmwareCollector.jobs(router);
    const refused = new RouterOsError('ROS_ERR_PERMISSION', 'GET /rest/system/routerboard: refused', { status: 500 });
    const client: JobContext['client'] = {
      list: () => Promise.reject(new Error('not expected')),
      getSingleton: () => Promise.reject(refused),
      run: () => Promise.reject(new Error('not expected')),
    };
    await expect(job?.run({ router, client, routerLabel: ROUTER, now: () => 0, signal: new AbortController().signal, memory: new Map() })).rejects.toBe(refused);
  });
});
