/**
 * The `health` collector (system/health): every reply form real routers send, from the recorded replies
 * (sensor rows, the CHR settings object, the older sensor object, `[]`), the range rules of each sensor kind,
 * and runs against the emulator over HTTPS with the REST client, faults included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mapSystemHealth, MAX_ROWS, MAX_SENSORS, systemHealthCollector } from '../../src/collectors/system-health.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { routerLabel } from '../../src/metrics/family.js';
import { testRouter } from '../helpers/config.js';
import { EmulatorJobs } from '../helpers/emulator-jobs.js';
import { fixtureList, fixtureRecord } from '../helpers/fixtures.js';
import { sampleText } from './sample-text.js';

const ROUTER = routerLabel('hq');

describe('system/health mapping', () => {
  it('maps RouterOS 7 sensor rows by their type to base units, labelled by sensor name', () => {
    const result = mapSystemHealth(fixtureList('system-health-rows-7.x-ccr.json'), ROUTER);
    expect(sampleText(result.samples)).toBe(
      [
        'routeros_health_temperature_celsius{router="hq",sensor="temperature"} 41',
        'routeros_health_temperature_celsius{router="hq",sensor="cpu-temperature"} 49',
        'routeros_health_voltage_volts{router="hq",sensor="voltage"} 24.1',
        'routeros_health_current_amperes{router="hq",sensor="current"} 0.5',
        'routeros_health_power_watts{router="hq",sensor="power-consumption"} 12.1',
        'routeros_health_fan_speed_rpm{router="hq",sensor="fan1-speed"} 4530',
        'routeros_health_fan_speed_rpm{router="hq",sensor="fan2-speed"} 0',
        'routeros_health_state_ok{router="hq",sensor="psu1-state"} 1',
        'routeros_health_state_ok{router="hq",sensor="psu2-state"} 0',
        '',
      ].join('\n'),
    );
    expect(result.problems).toEqual([]);
    expect(result.data).toEqual({ form: 'rows', sensors: 9 });
  });

  it('CHR answers an object of monitor settings: success, no series, no problem', () => {
    const result = mapSystemHealth([fixtureRecord('system-health-7.23-chr.json')], ROUTER);
    expect(result.samples.size).toBe(0);
    expect(result.decodeErrors).toBe(0);
    expect(result.data).toEqual({ form: 'object', sensors: 0 });
  });

  it.each([[{}], [{ status: 'ok' }], [{ message: 'welcome', detail: 'proxy' }]])('an object with no health key (%j) is not data: a shape error, never "no sensors"', (reply) => {
    expect(() => mapSystemHealth([reply], ROUTER)).toThrow(expect.objectContaining({ code: 'ROS_ERR_SHAPE' }));
  });

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])('a row whose type is %s is a sensor it cannot place, not a failed run', (type) => {
    const result = mapSystemHealth([{ name: 'odd', value: '40', type }, { name: 'cpu-temperature', value: '41', type: 'C' }], ROUTER);
    expect(sampleText(result.samples)).toBe('routeros_health_temperature_celsius{router="hq",sensor="cpu-temperature"} 41\n');
    expect(result.decodeErrors).toBe(0);
  });

  it('a row whose name tells a unit is that unit whatever its value looks like: board-temperature1 = ok is a temperature that does not read, not a state (found by a hostile tester)', () => {
    for (const value of ['ok', 'fail']) {
      const result = mapSystemHealth([{ name: 'board-temperature1', value, type: '' }, { name: 'psu1-state', value, type: '' }, { name: 'odd', value, type: '' }], ROUTER);
      const out = sampleText(result.samples);
      expect(out).not.toContain('sensor="board-temperature1"');
      // A name that tells a state, or tells nothing, is a state by its value.
      expect(out).toContain('sensor="psu1-state"');
      expect(out).toContain('sensor="odd"');
      expect(result.decodeErrors).toBe(1);
    }
  });

  it('older firmware: one object of sensor values, the unit read from the key', () => {
    const result = mapSystemHealth([fixtureRecord('system-health-legacy-object.json')], ROUTER);
    const out = sampleText(result.samples);
    expect(out).toContain('routeros_health_temperature_celsius{router="hq",sensor="cpu-temperature"} 46\n');
    expect(out).toContain('routeros_health_temperature_celsius{router="hq",sensor="temperature"} 38\n');
    expect(out).toContain('routeros_health_voltage_volts{router="hq",sensor="voltage"} 24.1\n');
    expect(result.samples.size).toBe(3);
    expect(result.decodeErrors).toBe(0);
  });

  it('older firmware keys of every kind; settings keys are not sensors', () => {
    const record = {
      'psu1-voltage': '12.2', 'psu1-current': '1.5', 'poe-out-consumption': '7.5', 'fan1-speed': '3000', 'psu2-state': 'fail',
      'board-temperature1': '33', state: 'enabled', 'state-after-reboot': 'enabled', 'fan-mode': 'auto', 'use-fan': 'main', 'active-fan': 'main',
    };
    const out = sampleText(mapSystemHealth([record], ROUTER).samples);
    expect(out).toContain('routeros_health_voltage_volts{router="hq",sensor="psu1-voltage"} 12.2\n');
    expect(out).toContain('routeros_health_current_amperes{router="hq",sensor="psu1-current"} 1.5\n');
    expect(out).toContain('routeros_health_power_watts{router="hq",sensor="poe-out-consumption"} 7.5\n');
    expect(out).toContain('routeros_health_fan_speed_rpm{router="hq",sensor="fan1-speed"} 3000\n');
    expect(out).toContain('routeros_health_state_ok{router="hq",sensor="psu2-state"} 0\n');
    expect(out).toContain('routeros_health_temperature_celsius{router="hq",sensor="board-temperature1"} 33\n');
    expect(out).not.toMatch(/sensor="(state|state-after-reboot|fan-mode|use-fan|active-fan)"/);
  });

  it('a board without sensors answers []: success, no series, no problem', () => {
    const result = mapSystemHealth(fixtureList('system-health-none.json'), ROUTER);
    expect(result.samples.size).toBe(0);
    expect(result.decodeErrors).toBe(0);
    expect(result.data).toEqual({ form: 'none', sensors: 0 });
  });

  it('a type this exporter does not know is skipped quietly (a future unit is not a broken reply), whatever its name says', () => {
    const result = mapSystemHealth([{ name: 'humidity', type: '%', value: '40' }, { name: 'board-temperature', type: 'F', value: '104' }, { name: 'temperature', type: 'C', value: '40' }], ROUTER);
    expect(result.samples.size).toBe(1);
    expect(result.decodeErrors).toBe(0);
  });

  it('rows without a type take the unit from the name, as the object form does; a name that tells none is counted (found by review)', () => {
    const result = mapSystemHealth(
      [
        { name: 'cpu-temperature', value: '53' },
        { name: 'psu1-voltage', value: '24.1' },
        { name: 'fan1-speed', value: '4200' },
        { name: 'humidity', value: '40' },
      ],
      ROUTER,
    );
    const text = sampleText(result.samples);
    expect(text).toContain('routeros_health_temperature_celsius{router="hq",sensor="cpu-temperature"} 53\n');
    expect(text).toContain('routeros_health_voltage_volts{router="hq",sensor="psu1-voltage"} 24.1\n');
    expect(text).toContain('routeros_health_fan_speed_rpm{router="hq",sensor="fan1-speed"} 4200\n');
    expect(result.samples.size).toBe(3);
    expect(result.decodeErrors).toBe(1);
    expect(result.problems.join()).toMatch(/humidity.*no type/);
  });
});

describe('system/health range rules', () => {
  const row = (name: string, type: string, value: string): Record<string, string> => ({ name, type, value });

  it('temperatures outside −60…150 °C, negative voltage, current, power or fan speed are left out and counted', () => {
    const result = mapSystemHealth(
      [
        row('t-low', 'C', '-61'), row('t-high', 'C', '151'), row('t-cold', 'C', '-40'), row('t-hot', 'C', '150'),
        row('v', 'V', '-1'), row('a', 'A', '-0.5'), row('w', 'W', '-3'), row('fan', 'RPM', '-100'), row('fan-big', 'RPM', '1e9'),
        row('v-nan', 'V', 'NaN'), row('t-unit', 'C', '40C'),
      ],
      ROUTER,
    );
    const out = sampleText(result.samples);
    expect(out).toBe(
      'routeros_health_temperature_celsius{router="hq",sensor="t-cold"} -40\nrouteros_health_temperature_celsius{router="hq",sensor="t-hot"} 150\n',
    );
    expect(result.decodeErrors).toBe(9);
    expect(result.problems.join('\n')).toMatch(/t-high.*151.*out of range -60–150/);
  });

  it('a state other than ok or fail is a problem, not a sample', () => {
    const result = mapSystemHealth([row('psu1-state', '', 'flaky')], ROUTER);
    expect(result.samples.size).toBe(0);
    expect(result.decodeErrors).toBe(1);
  });

  it('a sensor listed twice is exported from its row with the lowest .id, whatever the reply\'s order, and counted (the first listed flipped 41 and 95 °C as the order changed: found by a hostile tester)', () => {
    const low = { '.id': '*2', ...row('temperature', 'C', '41') };
    const high = { '.id': '*20', ...row('temperature', 'C', '95') };
    for (const rows of [[low, high], [high, low]]) {
      const result = mapSystemHealth(rows, ROUTER);
      expect(sampleText(result.samples)).toBe('routeros_health_temperature_celsius{router="hq",sensor="temperature"} 41\n');
      expect(result.decodeErrors).toBe(1);
    }
    // Names written out as one (the format carries neither \r nor \t) in the object form, which has no .id: one
    // stands, the same in either key order.
    const objects = [{ 'cpu\rtemperature': '41', 'cpu\ttemperature': '95' }, { 'cpu\ttemperature': '95', 'cpu\rtemperature': '41' }];
    const texts = objects.map((object) => sampleText(mapSystemHealth([object], ROUTER).samples));
    expect(texts[0]).toBe(texts[1]);
    expect(texts[0]?.split('\n').filter((line) => line !== '')).toHaveLength(1);
  });

  it('property: sensors listed more than once give the same series whatever the order, each from its row with the lowest .id', () => {
    const sensorArb = fc.record({
      name: fc.constantFrom('temperature', 'cpu-temperature', 'board-temperature1', 'voltage'),
      id: fc.integer({ min: 1, max: 0xfff }),
      value: fc.oneof(fc.integer({ min: 0, max: 120 }).map(String), fc.constant('hot')),
    });
    const caseArb = fc
      .uniqueArray(sensorArb, { minLength: 1, maxLength: 12, selector: (sensor) => sensor.id })
      .map((sensors) => sensors.map(({ name, id, value }): Record<string, string> => ({ '.id': `*${id.toString(16).toUpperCase()}`, ...row(name, name === 'voltage' ? 'V' : 'C', value) })))
      .chain((rows) => fc.record({ rows: fc.constant(rows), shuffled: fc.shuffledSubarray(rows, { minLength: rows.length, maxLength: rows.length }) }));
    fc.assert(
      fc.property(caseArb, ({ rows, shuffled }) => {
        const [first, second] = [mapSystemHealth(rows, ROUTER), mapSystemHealth(shuffled, ROUTER)];
        expect(sampleText(second.samples).split('\n').sort()).toEqual(sampleText(first.samples).split('\n').sort());
        expect(second.decodeErrors).toBe(first.decodeErrors);
        for (const name of new Set(rows.map((sensor) => sensor['name']))) {
          const lowest = rows.filter((sensor) => sensor['name'] === name).sort((a, b) => Number.parseInt((a['.id'] ?? '').slice(1), 16) - Number.parseInt((b['.id'] ?? '').slice(1), 16))[0];
          const family = name === 'voltage' ? 'routeros_health_voltage_volts' : 'routeros_health_temperature_celsius';
          const line = `${family}{router="hq",sensor="${name}"} ${lowest?.['value'] ?? ''}`;
          if (lowest?.['value'] === 'hot') expect(sampleText(first.samples)).not.toContain(`sensor="${name}"`);
          else expect(sampleText(first.samples).split('\n')).toContain(line);
        }
      }),
      { numRuns: 500 },
    );
  });

  it(`at most ${MAX_SENSORS} sensors: the series count stays bounded whatever the router lists`, () => {
    const rows = Array.from({ length: MAX_SENSORS + 50 }, (_, i) => row(`t${i}`, 'C', '40'));
    const result = mapSystemHealth(rows, ROUTER);
    expect(result.samples.size).toBe(MAX_SENSORS);
    expect(result.decodeErrors).toBe(1);
  });
});

describe('system/health bounds', () => {
  it(`reads at most ${MAX_ROWS} rows: rows that never become sensors (unreadable, unknown) do not make a router's work unbounded`, () => {
    let looked = 0;
    const rows = new Proxy(
      Array.from({ length: 100_000 }, (_, i) => ({ name: `t${i}`, type: 'C', value: 'hot' })),
      { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) ? (looked++, Reflect.get(target, key, receiver)) : Reflect.get(target, key, receiver)) },
    );
    const result = mapSystemHealth(rows, ROUTER);
    expect(result.samples.size).toBe(0);
    expect(result.problems).toContain(`system/health more than ${MAX_ROWS} rows; the rest are left out`);
    // The form check looks at rows until one has a name; the loop stops at the bound.
    expect(looked).toBeLessThanOrEqual(MAX_ROWS + 2);
  });

  it('refuses a list of objects without names as not this menu\'s data, reading none of them (a million were read to the end, 256 of 5,000 keys each held the loop 0.3 s and counted a success; found by reviews)', () => {
    for (const make of [(): Record<string, string> => ({ temperature: '40' }), (): Record<string, string> => ({ state: 'enabled' })]) {
      let looked = 0;
      const objects = new Proxy(
        Array.from({ length: 100_000 }, make),
        { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) ? (looked++, Reflect.get(target, key, receiver)) : Reflect.get(target, key, receiver)) },
      );
      expect(() => mapSystemHealth(objects, ROUTER)).toThrow(expect.objectContaining({ code: 'ROS_ERR_SHAPE', message: expect.stringContaining('a list of 100000 objects without names') }));
      // The form check looks at the first rows for a name; nothing after.
      expect(looked).toBeLessThanOrEqual(MAX_ROWS + 2);
    }
  });

  it(`reads at most ${MAX_ROWS} keys of the one object, sensors first found kept`, () => {
    const object: Record<string, string> = { 'cpu-temperature': '41' };
    for (let i = 0; i < 100_000; i++) object[`k${i}`] = '';
    object['board-temperature1'] = '39';
    const result = mapSystemHealth([object], ROUTER);
    expect(result.problems).toContain(`system/health more than ${MAX_ROWS} keys; the rest are left out`);
    expect(result.data).toEqual({ form: 'object', sensors: 1 });
    // Keys that tell nothing past the bound: still not this menu's data.
    const junk: Record<string, string> = {};
    for (let i = 0; i < 100_000; i++) junk[`k${i}`] = '';
    junk['state'] = 'enabled';
    expect(() => mapSystemHealth([junk], ROUTER)).toThrow(expect.objectContaining({ code: 'ROS_ERR_SHAPE' }));
  });
});

describe('the health collector against the emulator over HTTPS', () => {
  let emulator: Emulator;
  const jobs = new EmulatorJobs(() => emulator);

  beforeAll(async () => {
    emulator = await startEmulator({
      control: true,
      routers: [
        { name: 'ccr', version: '7.19.4', board: { boardName: 'CCR2004-1G-12S+2XS' }, health: { form: 'rows', temperatureC: 40, fans: 2, psus: 2, power: true } },
        { name: 'chr', version: '7.23.7' },
        { name: 'legacy', version: '7.10', board: { boardName: 'RB750Gr3' }, health: { form: 'legacy-object' } },
        { name: 'bare', board: { boardName: 'hEX S' }, health: { form: 'none' } },
      ],
    });
  });

  afterAll(async () => {
    await jobs.close();
    await emulator.close();
  });

  const run = (name: string): Promise<ReturnType<typeof mapSystemHealth>> => jobs.run(systemHealthCollector, name);

  it('is on by default, one job on its own schedule', () => {
    const router = testRouter();
    expect(systemHealthCollector.defaultEnabled).toBe(true);
    expect(router.collectors.health).toBe(true);
    expect(systemHealthCollector.jobs(router).map((job) => job.schedule)).toEqual([router.schedules.health]);
  });

  it('hardware rows: every sensor kind, within its range', async () => {
    const result = await run('ccr');
    const out = sampleText(result.samples);
    expect(result.decodeErrors).toBe(0);
    expect(result.data).toEqual({ form: 'rows', sensors: 9 });
    const temperature = Number(/sensor="temperature"\} (\S+)/.exec(out)?.[1]);
    expect(temperature).toBeGreaterThanOrEqual(37);
    expect(temperature).toBeLessThanOrEqual(43);
    expect(out).toMatch(/routeros_health_fan_speed_rpm\{router="ccr",sensor="fan2-speed"\} 4\d{3}\n/);
    expect(out).toContain('routeros_health_state_ok{router="ccr",sensor="psu2-state"} 1\n');
    expect(out).toMatch(/routeros_health_power_watts\{router="ccr",sensor="power-consumption"\} \d+(\.\d)?\n/);
  });

  it('faults: a failed PSU reads 0, a failed fan 0 RPM, temperatures rise', async () => {
    const before = sampleText((await run('ccr')).samples);
    const baseline = Number(/sensor="temperature"\} (\S+)/.exec(before)?.[1]);
    emulator.router('ccr').setHealth({ temperatureRiseC: 40, failedFans: [2], failedPsus: [1] });
    try {
      const out = sampleText((await run('ccr')).samples);
      expect(out).toContain('routeros_health_state_ok{router="ccr",sensor="psu1-state"} 0\n');
      expect(out).toContain('routeros_health_state_ok{router="ccr",sensor="psu2-state"} 1\n');
      expect(out).toContain('routeros_health_fan_speed_rpm{router="ccr",sensor="fan2-speed"} 0\n');
      expect(Number(/sensor="temperature"\} (\S+)/.exec(out)?.[1])).toBeGreaterThan(baseline + 30);
    } finally {
      emulator.router('ccr').setHealth({});
    }
  });

  it('CHR object, older sensor object and [] all succeed', async () => {
    const chr = await run('chr');
    expect([chr.samples.size, chr.decodeErrors, chr.data.form]).toEqual([0, 0, 'object']);
    const legacy = await run('legacy');
    expect([legacy.samples.size, legacy.decodeErrors, legacy.data.form]).toEqual([3, 0, 'object']);
    const bare = await run('bare');
    expect([bare.samples.size, bare.decodeErrors, bare.data.form]).toEqual([0, 0, 'none']);
  });
});
