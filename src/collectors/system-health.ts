/**
 * `health`: GET /rest/system/health → routeros_health_* (temperatures, voltages, current, power, fan speeds,
 * PSU and fan states), labelled by the sensor's name.
 *
 * Routers answer in one of three forms (docs/emulator.md, "Health"), all read here:
 * - RouterOS 7 hardware: a list of `{name, value, type}` rows; `type` gives the unit (C, V, A, W, RPM; "" for
 *   an ok/fail state);
 * - older firmware: one bare object of sensor values, the unit only in the key (`temperature`, `fan1-speed`…);
 * - CHR: one bare object holding only the monitor's own settings (`state`, `state-after-reboot`), and boards
 *   without sensors: `[]`. Neither is an error: the run succeeds with no sensor series.
 */
import type { Collector, JobContext, JobResult } from './types.js';
import type { RouterRecord } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type Family, type RouterLabel } from '../metrics/family.js';
import { escapeLabelValue } from '../metrics/text.js';
import { SYSTEM_HEALTH, SYSTEM_HEALTH_FAMILIES as F } from './system-health.contract.js';
import { FieldReader, problemsOf, type FieldKindName } from '../analysis/decoding.js';
import { quoteRouterText } from '../util/text.js';
import { RouterOsError } from '../routeros/errors.js';
import { chosenTwinRowsSteps, type RowOrder } from '../analysis/twin-rows.js';
import { finish } from '../util/slices.js';

/** A board lists a few dozen sensors at most; past this a reply is broken, and the series count stays bounded. */
export const MAX_SENSORS = 64;

/** Rows of the list form read at most (four times the sensors kept). */
export const MAX_ROWS = 4 * MAX_SENSORS;

export type HealthForm = 'rows' | 'object' | 'none';

export interface SystemHealthData {
  form: HealthForm;
  /** Sensor series written. */
  sensors: number;
}

/** A sensor's number kind (its range rule in analysis/decoding.ts), or an ok/fail state. */
type Kind = Extract<FieldKindName, 'celsius' | 'volts' | 'amperes' | 'watts' | 'rpm'> | 'state';

/** The row form's `type` → how its value reads and where it goes. */
const BY_TYPE: Readonly<Record<string, Kind>> = { C: 'celsius', V: 'volts', A: 'amperes', W: 'watts', RPM: 'rpm' };

const FAMILY_OF: Readonly<Record<Kind, Family<readonly ['sensor']>>> = {
  celsius: F.temperature,
  volts: F.voltage,
  amperes: F.current,
  watts: F.power,
  rpm: F.fanSpeed,
  state: F.stateOk,
};

/**
 * The object form carries no unit: it follows from the key, as RouterOS names them (`cpu-temperature`,
 * `psu2-voltage`, `power-consumption`, `fan1-speed`, `psu1-state`). Keys that match none (`state`,
 * `state-after-reboot`, `fan-mode`, `use-fan`…) are settings, not sensors, and are skipped.
 */
function kindOfKey(key: string): Kind | undefined {
  if (/temperature\d*$/.test(key)) return 'celsius';
  if (/(^|-)voltage$/.test(key)) return 'volts';
  if (/(^|-)current$/.test(key)) return 'amperes';
  if (/(^|-)(power|consumption)$/.test(key)) return 'watts';
  if (/^fan\d*-speed$/.test(key)) return 'rpm';
  if (/.-state$/.test(key) && key !== 'state-after-reboot') return 'state';
  return undefined;
}

/**
 * Keys of the object form that are no sensor but show the reply is the health menu's: CHR answers
 * `{"state":"disabled","state-after-reboot":"enabled"}` (the 7.23.7 capture), and the fan and over-temperature
 * settings sit beside sensors on some models. An object with none of these and no sensor (`{}`, a proxy's
 * `{"status":"ok"}`) is not data: a failure, never "no sensors".
 */
const HEALTH_SETTING = /^(?:state|state-after-reboot|use-fan|fan-[a-z-]+|cpu-overtemp-[a-z-]+)$/;

/** A sensor as read: its row (for the object form, one made of its key and value), and where its value goes. */
interface Sensor {
  readonly row: RouterRecord;
  readonly name: string;
  readonly kind: Kind;
  readonly value: string;
}

/**
 * Which row of a sensor listed twice is exported (twin-rows.ts): the lowest `.id`, then by name (two names written
 * out as one), type and value, never by the reply's order.
 */
const SENSOR_ROWS: RowOrder = { identityKeys: ['name', 'type', 'value'] };

/** Pure mapping of a system/health reply (the client's list, a bare object arriving as its one element). */
export function mapSystemHealth(records: readonly RouterRecord[], routerLabel: RouterLabel): JobResult<SystemHealthData> {
  const read = new FieldReader('system/health');
  const samples = new SampleSet();
  const seen = new Set<string>();
  // The form by the first rows only: a list of a million objects without a name was looked through to its end.
  let isRows = false;
  for (let index = 0; index < Math.min(records.length, MAX_ROWS) && !isRows; index++) isRows = records[index]?.['name'] !== undefined;
  const sensors: Sensor[] = [];
  if (isRows) {
    // A router has tens of sensors. Rows are read up to a bound, not to the end: unreadable rows never count
    // toward MAX_SENSORS, and 789,000 of them took 2.5 s (a hostile-router review).
    let rows = 0;
    let valued = 0;
    let typed = 0;
    for (const record of records) {
      if (++rows > MAX_ROWS) {
        read.problem(`more than ${MAX_ROWS} rows; the rest are left out`);
        break;
      }
      const name = record['name'];
      const value = record['value'];
      if (record['type'] !== undefined) typed++;
      if (name === undefined || name === '' || value === undefined) {
        read.problem('row without name or value');
        continue;
      }
      valued++;
      // A type this exporter does not know (a future unit) is a sensor it cannot place, not a broken reply.
      // Own keys only: a `type` of "constructor" or "__proto__" found Object's own members (and failed the run).
      // Without a type the name tells the unit, as in the object form (`cpu-temperature`, `psu1-voltage`): such
      // rows were left out unseen (found by review); one whose name tells nothing is counted as a problem.
      // A unit the name tells comes before what the value looks like: `board-temperature1` = `ok` is a temperature
      // that does not read (counted, left out), not a state (it was exported as one: found by a hostile tester).
      const type = record['type'] ?? '';
      const named = type === '' ? kindOfKey(name) : undefined;
      const kind =
        (Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type] : undefined) ??
        named ??
        (/^(ok|fail)$/.test(value) ? 'state' : undefined);
      if (kind !== undefined) sensors.push({ row: record, name, kind, value });
      else if (type === '') read.problem(() => `sensor ${quoteRouterText(name, 40)} has no type, and its name tells no unit; left out`);
    }
    // Named rows none of which holds a value or a type are no sensors: a just-booted router answered its /user list
    // (`name`, `group`) for every menu, and it was taken as health rows with a decode error (found by review). A
    // sensor listed before it was first read (a type, no value yet) is a sensor, counted as unreadable.
    if (valued === 0 && typed === 0) {
      throw new RouterOsError('ROS_ERR_SHAPE', 'system/health: none of the rows holds a value or a type; the reply is not this menu\'s data');
    }
  } else if (records.length > 1) {
    // The menu answers one object: a list of them comes only from something that is not a router. Read, a million of
    // one sensor each took 1 s, and 256 objects of 5,000 keys each held the event loop 0.3 s and counted a success
    // (found by hostile reviews).
    throw new RouterOsError('ROS_ERR_SHAPE', `system/health: a list of ${String(records.length)} objects without names; the menu answers one object or named rows, so the reply is not this menu's data`);
  } else if (records.length === 1) {
    // Its keys up to the same bound: a board's object holds a few dozen.
    const record = records[0] as RouterRecord;
    let known = false;
    let keys = 0;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      if (++keys > MAX_ROWS) {
        read.problem(`more than ${MAX_ROWS} keys; the rest are left out`);
        break;
      }
      const kind = kindOfKey(key);
      const value = record[key] ?? '';
      if (kind !== undefined) sensors.push({ row: { name: key, value }, name: key, kind, value });
      known ||= kind !== undefined || HEALTH_SETTING.test(key);
    }
    if (!known) {
      throw new RouterOsError(
        'ROS_ERR_SHAPE',
        `system/health: an object with none of the health menu's keys (sensors, or state as on CHR); the reply is not this menu's data`,
      );
    }
  }

  // Two sensors of one name would be two series of one identity: an invalid exposition. One name as written out:
  // names that differ only in characters the format cannot carry (`cpu\rtemp`, `cpu\ttemp`: both U+FFFD) are one
  // series too. One row stands, the same whatever the reply's order: the first listed made the series flip between
  // two readings (41 and 95 °C, an alert firing and resolving) as the order changed (found by a hostile tester).
  const identities = sensors.map((sensor) => escapeLabelValue(sensor.name));
  const chosen = finish(chosenTwinRowsSteps(sensors.map((sensor) => sensor.row), (_, index) => identities[index], SENSOR_ROWS, MAX_ROWS));
  for (const [index, { row, name, kind, value }] of sensors.entries()) {
    const identity = identities[index] as string;
    // Seen too: one row object listed twice is chosen twice.
    if (seen.has(identity) || (chosen !== undefined && !chosen.rows.has(row))) {
      read.problem(() => `sensor ${quoteRouterText(name, 40)} listed twice; one row stands, by .id, whatever the order`);
      continue;
    }
    if (seen.size >= MAX_SENSORS) {
      read.problem(`more than ${MAX_SENSORS} sensors; the rest are left out`);
      break;
    }
    const number = kind === 'state' ? stateValue(read, name, value) : read.value(kind, { [name]: value }, name);
    if (number === undefined) continue;
    seen.add(identity);
    const family = FAMILY_OF[kind];
    samples.add(family, seriesLabels(family, routerLabel, [name]), number);
  }

  const form: HealthForm = isRows ? 'rows' : records.length === 0 ? 'none' : 'object';
  return { samples, ...problemsOf(read), data: { form, sensors: seen.size } };
}

/** ok → 1, fail → 0; anything else is a state this exporter cannot judge, counted as a decode problem. */
function stateValue(read: FieldReader, name: string, value: string): number | undefined {
  if (value === 'ok') return 1;
  if (value === 'fail') return 0;
  if (value === '') return undefined;
  read.problem(() => `${quoteRouterText(name, 40)}: not a state (ok or fail): ${quoteRouterText(value, 40)}`);
  return undefined;
}

export const systemHealthCollector: Collector<SystemHealthData, 'health'> = {
  ...SYSTEM_HEALTH,
  name: 'health',
  jobs: (router) => [
    {
      collector: 'health',
      job: 'health',
      schedule: router.schedules.health,
      // One request.
      deadlineSeconds: router.timeoutSeconds,
      connection: 'reads',
      settings: null,
      async run(context: JobContext) {
        const records = await context.client.list('system/health', { objectAsList: true, signal: context.signal });
        return mapSystemHealth(records, context.routerLabel);
      },
    },
  ],
};
