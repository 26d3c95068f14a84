/**
 * `/system/health` in its reply forms, `/system/routerboard`, `/system/package/update` (and that
 * the commands that would reach the outside are only recorded), `/system/resource` key sets per
 * board, against the recorded captures in test/fixtures/recorded.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { asRec, asRows, Client, ManualClock } from './helpers.js';
import type { Rec } from './helpers.js';

const recorded = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/recorded/${name}`, import.meta.url), 'utf8'));
const keys = (r: object): string[] => Object.keys(r).sort();

const clock = new ManualClock();
let emu: Emulator;
let client: Client;

beforeAll(async () => {
  emu = await startEmulator({
    now: clock.now,
    control: true,
    routers: [
      // The dumbmonit CHR: a long-term 7.23.7 whose update check follows stable.
      { name: 'chr', version: '7.23.7', channel: 'long-term', packageUpdate: { latestVersion: '7.24.4', channel: 'stable' } },
      { name: 'rc', version: '7.24rc2', channel: 'testing', packageUpdate: { latestVersion: '7.24' } },
      {
        name: 'ccr',
        version: '7.19.4',
        board: { boardName: 'CCR2004-1G-12S+2XS', nand: true },
        health: { form: 'rows', temperatureC: 40, fans: 2, psus: 2, power: true },
        routerboard: { model: 'CCR2004-1G-12S+2XS', currentFirmware: '7.18.2', upgradeFirmware: '7.19.4' },
        users: [{ name: 'admin', password: '' }, { name: 'ro', password: 'ro', policies: ['read', 'api', 'rest-api'] }],
      },
      { name: 'hap', version: '7.16', board: { boardName: 'hAP', factorySoftware: '6.44' }, routerboard: { model: 'RBD52G-5HacD2HnD', serialNumber: '123456789', firmwareType: 'ipq4000L', factoryFirmware: '6.44', currentFirmware: '7.15.3', upgradeFirmware: '7.16' } },
      { name: 'legacy', version: '7.10', board: { boardName: 'RB750Gr3' }, health: { form: 'legacy-object' }, packageUpdate: { latestVersion: false } },
      { name: 'bare', board: { boardName: 'hEX S' }, health: { form: 'none' }, routerboard: false },
      { name: 'hapax', version: '7.20.5', board: { boardName: 'hAP ax^2', nand: true } },
    ],
  });
  client = new Client(emu);
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

describe('/system/health', () => {
  it('CHR answers the bare object of the dumbmonit capture', async () => {
    expect((await client.get('chr', '/rest/system/health')).json).toEqual(recorded('system-health-7.23-chr.json'));
  });

  it('hardware answers {.id,name,value,type} rows in base units', async () => {
    const rows = asRows((await client.get('ccr', '/rest/system/health')).json);
    for (const r of rows) expect(keys(r)).toEqual(['.id', 'name', 'type', 'value']);
    const types = Object.fromEntries(rows.map((r) => [r['name'], r['type']]));
    expect(types).toEqual({
      voltage: 'V', temperature: 'C', 'cpu-temperature': 'C', current: 'A', 'power-consumption': 'W',
      'fan1-speed': 'RPM', 'fan2-speed': 'RPM', 'psu1-state': '', 'psu2-state': '',
    });
    const value = (n: string): string => rows.find((r) => r['name'] === n)?.['value'] ?? '';
    expect(value('voltage')).toMatch(/^\d+\.\d$/);
    expect(value('temperature')).toMatch(/^\d+$/);
    expect(value('psu1-state')).toBe('ok');
    expect(Number(value('fan1-speed'))).toBeGreaterThan(4000);
  });

  it('values move a little over time and stay plausible', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const rows = asRows((await client.get('ccr', '/rest/system/health?name=temperature')).json);
      const t = Number(rows[0]?.['value']);
      expect(t).toBeGreaterThanOrEqual(37);
      expect(t).toBeLessThanOrEqual(43);
      seen.add(String(t));
      clock.advance(120);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('faults (control API) stop a fan, fail a PSU and raise temperatures; {} restores', async () => {
    const before = asRows((await client.get('ccr', '/rest/system/health')).json);
    const set = await client.post('ccr', '/emulator/health', { temperatureRiseC: 30, failedFans: [2], failedPsus: [1] });
    expect(set.status).toBe(204);
    const rows = asRows((await client.get('ccr', '/rest/system/health')).json);
    const v = (rs: Rec[], n: string): string => rs.find((r) => r['name'] === n)?.['value'] ?? '';
    expect(v(rows, 'fan2-speed')).toBe('0');
    expect(v(rows, 'fan1-speed')).not.toBe('0');
    expect(v(rows, 'psu1-state')).toBe('fail');
    expect(v(rows, 'psu2-state')).toBe('ok');
    expect(Number(v(rows, 'temperature')) - Number(v(before, 'temperature'))).toBe(30);
    expect((await client.post('ccr', '/emulator/health', { failedFans: [0] })).status).toBe(400);
    emu.router('ccr').setHealth({});
    expect(v(asRows((await client.get('ccr', '/rest/system/health')).json), 'psu1-state')).toBe('ok');
  });

  it('older firmware: a bare object of sensor values; a board without sensors: []', async () => {
    const legacy = asRec((await client.get('legacy', '/rest/system/health')).json);
    expect(keys(legacy)).toEqual(['cpu-temperature', 'temperature', 'voltage']);
    expect((await client.get('bare', '/rest/system/health')).json).toEqual([]);
  });
});

describe('/system/routerboard', () => {
  it('hardware: the key set and values of the Telegraf hAP capture (upgrade pending)', async () => {
    expect((await client.get('hap', '/rest/system/routerboard')).json).toEqual(recorded('system-routerboard-7.16-hap.json'));
    const ccr = asRec((await client.get('ccr', '/rest/system/routerboard')).json);
    expect(ccr).toMatchObject({ 'current-firmware': '7.18.2', 'upgrade-firmware': '7.19.4', routerboard: 'true' });
  });

  it('CHR (and routerboard: false) answer 400 like the dumbmonit capture', async () => {
    const chr = await client.get('chr', '/rest/system/routerboard');
    expect(chr.status).toBe(400);
    expect(chr.json).toEqual(recorded('system-routerboard-absent-7.23-chr.json'));
    expect((await client.get('bare', '/rest/system/routerboard')).status).toBe(400);
  });
});

describe('/system/package/update', () => {
  it('7.23.7 with a newer version known is the dumbmonit capture, byte for byte', async () => {
    const a = await client.get('chr', '/rest/system/package/update');
    expect(a.json).toEqual(recorded('system-package-update-7.23-chr.json'));
    expect(a.text).toBe(JSON.stringify(recorded('system-package-update-7.23-chr.json')));
  });

  it('up to date by default; no latest-version nor status when never checked', async () => {
    expect((await client.get('ccr', '/rest/system/package/update')).json).toEqual({ channel: 'stable', 'installed-version': '7.19.4', 'latest-version': '7.19.4', status: 'System is already up to date' });
    expect((await client.get('legacy', '/rest/system/package/update')).json).toEqual({ channel: 'stable', 'installed-version': '7.10' });
  });

  it('a release is newer than its release candidate (as the firmware collector ranks them; found by review)', async () => {
    expect((await client.get('rc', '/rest/system/package/update')).json).toMatchObject({ channel: 'testing', 'installed-version': '7.24rc2', 'latest-version': '7.24', status: 'New version is available' });
  });

  it('check-for-updates, download, install and routerboard upgrade are recorded no-ops that open no connection', async () => {
    const r = emu.router('hap');
    expect(r.outsideCalls()).toEqual([]);
    // Warm the client's keep-alive connection first, so only the commands' own sockets would count.
    await client.get('hap', '/rest/system/identity');
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    try {
      for (const word of ['check-for-updates', 'download', 'install']) {
        const a = await client.post('hap', `/rest/system/package/update/${word}`);
        expect(a.status, word).toBe(200);
        expect(a.json).toEqual([]);
      }
      expect((await client.post('hap', '/rest/system/routerboard/upgrade')).json).toEqual([]);
      const outward = connect.mock.calls.filter((args) => !JSON.stringify(args).includes('127.0.0.1'));
      expect(outward).toEqual([]);
    } finally {
      connect.mockRestore();
    }
    expect(r.outsideCalls()).toEqual([
      'system/package/update/check-for-updates',
      'system/package/update/download',
      'system/package/update/install',
      'system/routerboard/upgrade',
    ]);
    expect((await client.get('hap', '/emulator/outside-calls')).json).toEqual(r.outsideCalls());
    expect(emu.router('ccr').outsideCalls()).toEqual([]);
    // Reading the menus records nothing.
    await client.get('ccr', '/rest/system/package/update');
    await client.get('ccr', '/rest/system/routerboard');
    expect(emu.router('ccr').outsideCalls()).toEqual([]);
  });

  it('a user without write cannot run them (and nothing is recorded)', async () => {
    const ro = client.as('ro', 'ro');
    const a = await ro.post('ccr', '/rest/system/package/update/check-for-updates');
    expect(a.status).toBe(500);
    expect(asRec(a.json)['detail']).toBe('not enough permissions (9)');
    expect((await ro.get('ccr', '/rest/system/package/update')).status).toBe(200);
    await ro.close();
    expect(emu.router('ccr').outsideCalls()).toEqual([]);
  });
});

describe('/system/resource fields per board (captures)', () => {
  it('CHR 7.23.7 and hAP ac² 7.16: the captures\' key sets (write-sect-*, factory-software, no bad-blocks)', async () => {
    expect(keys(asRec((await client.get('chr', '/rest/system/resource')).json))).toEqual(keys(asRec(recorded('system-resource-7.23-chr.json'))));
    // And the capture's values that are no measurement: the version with its channel, the build, CHR's factory software.
    const chr = asRec((await client.get('chr', '/rest/system/resource')).json);
    const captured = asRec(recorded('system-resource-7.23-chr.json'));
    for (const key of ['version', 'build-time', 'factory-software']) expect([key, chr[key]]).toEqual([key, captured[key]]);
    expect(keys(asRec((await client.get('hap', '/rest/system/resource')).json))).toEqual(keys(asRec(recorded('system-resource-7.16-hap.json'))));
  });

  it('NAND hAP ax² 7.20.5: the capture\'s key set, with bad-blocks', async () => {
    const got = asRec((await client.get('hapax', '/rest/system/resource')).json);
    expect(keys(got)).toEqual(keys(asRec(recorded('system-resource-7.20-hap-ax2.json'))));
    expect(got['bad-blocks']).toBe('0');
    expect(got['build-time']).toBe('2025-11-27 08:17:04');
  });
});
