/** `system`: GET /rest/system/resource → routeros_system_* (CPU, memory, disk, flash wear, uptime, identity). */
import type { Collector, JobContext, JobResult } from './types.js';
import type { RouterRecord } from '../routeros/records.js';
import { RouterOsError } from '../routeros/errors.js';
import { SampleSet } from '../metrics/samples.js';
import { seriesLabels, type Family, type RouterLabel } from '../metrics/family.js';
import { SYSTEM, SYSTEM_FAMILIES as F } from './system.contract.js';
import { FieldReader, given, problemsOf } from '../analysis/decoding.js';

export const SYSTEM_PROPLIST = [
  'architecture-name',
  'bad-blocks',
  'board-name',
  'build-time',
  'cpu',
  'cpu-count',
  'cpu-frequency',
  'cpu-load',
  'factory-software',
  'free-hdd-space',
  'free-memory',
  // factory-software's name from 7.24 (docs/metrics.md); a proplist naming a field the router lacks is fine.
  'minimum-version',
  'platform',
  'total-hdd-space',
  'total-memory',
  'uptime',
  'version',
  'write-sect-since-reboot',
  'write-sect-total',
] as const;

/**
 * What a run keeps for the store beside its samples. No router text: nothing reads it, and a hostile reply's
 * version or board name (up to a record's 1 MiB) would be kept until the next run.
 */
export interface SystemData {
  uptimeSeconds: number | undefined;
  cpuLoadRatio: number | undefined;
}

/** Pure mapping of a system/resource record to samples; `now` (Unix ms) bounds the uptime to the era (a boot since 2015). */
export function mapSystem(record: RouterRecord, routerLabel: RouterLabel, now: number = Date.now()): JobResult<SystemData> {
  const read = new FieldReader('system/resource');
  const samples = new SampleSet();
  const info = seriesLabels(F.systemInfo, routerLabel, [
    record['board-name'] ?? '',
    record['architecture-name'] ?? '',
    record['cpu'] ?? '',
    record['platform'] ?? '',
    record['version'] ?? '',
    record['build-time'] ?? '',
    record['factory-software'] ?? record['minimum-version'] ?? '',
  ]);
  samples.add(F.systemInfo, info, 1);

  const cpuLoadRatio = read.ratioFromPercent(record, 'cpu-load');
  const uptime = read.age(record, 'uptime', now / 1000);
  const [memoryFree, memoryTotal] = freeAndTotal(read, record, 'free-memory', 'total-memory');
  const [diskFree, diskTotal] = freeAndTotal(read, record, 'free-hdd-space', 'total-hdd-space');
  const [writeSectorsSinceReboot, writeSectorsTotal] = partAndWhole(read, read.counter(record, 'write-sect-since-reboot'), read.counter(record, 'write-sect-total'), 'write-sect-since-reboot', 'write-sect-total');
  const values: [Family<readonly []>, number | undefined][] = [
    [F.cpuLoad, cpuLoadRatio],
    [F.cpuCores, read.value('count', record, 'cpu-count')],
    [F.cpuFrequency, mhzToHertz(read.value('megahertz', record, 'cpu-frequency'))],
    [F.memoryFree, memoryFree],
    [F.memoryTotal, memoryTotal],
    [F.diskFree, diskFree],
    [F.diskTotal, diskTotal],
    [F.uptime, uptime],
    // Only NAND boards report bad-blocks; elsewhere the series is absent, not 0.
    [F.badBlocks, read.ratioFromPercent(record, 'bad-blocks')],
    [F.writeSectors, writeSectorsTotal],
    [F.writeSectorsSinceReboot, writeSectorsSinceReboot],
  ];
  for (const [family, value] of values) if (value !== undefined) samples.add(family, routerLabel, value);

  return {
    samples,
    ...problemsOf(read),
    data: {
      uptimeSeconds: uptime,
      cpuLoadRatio,
    },
  };
}

/** Free space above the total cannot be: one of the two is wrong and neither says which, so both are left out. */
function freeAndTotal(read: FieldReader, record: RouterRecord, freeKey: string, totalKey: string): [number | undefined, number | undefined] {
  return partAndWhole(read, read.bytes(record, freeKey), read.bytes(record, totalKey), freeKey, totalKey);
}

/** A part above its whole (free above total, sectors written since reboot above all written) leaves both out, with a problem. */
function partAndWhole(read: FieldReader, part: number | undefined, whole: number | undefined, partKey: string, wholeKey: string): [number | undefined, number | undefined] {
  if (part !== undefined && whole !== undefined && part > whole) {
    read.problem(`${partKey} ${part} is above ${wholeKey} ${whole}`);
    return [undefined, undefined];
  }
  return [part, whole];
}

function mhzToHertz(mhz: number | undefined): number | undefined {
  return mhz === undefined ? undefined : mhz * 1_000_000;
}

/**
 * Every system/resource reply holds the version and the uptime. One with neither (`{}`, an `{"status":"ok"}`
 * from a proxy) is not the router's: this run decides routeros_up, so it fails as a shape error rather than
 * report the router up with an empty info series.
 */
function systemResource(record: RouterRecord): RouterRecord {
  if (given(record, 'version') || given(record, 'uptime')) return record;
  throw new RouterOsError('ROS_ERR_SHAPE', 'GET /rest/system/resource: the reply holds neither version nor uptime; it is not the router\'s system/resource');
}

export const systemCollector: Collector<SystemData, 'system'> = {
  ...SYSTEM,
  name: 'system',
  jobs: (router) => [
    {
      collector: 'system',
      job: 'system',
      schedule: router.schedules.system,
      // One request.
      deadlineSeconds: router.timeoutSeconds,
      connection: 'reads',
      settings: null,
      async run(context: JobContext) {
        const record = await context.client.getSingleton('system/resource', {
          proplist: SYSTEM_PROPLIST,
          signal: context.signal,
        });
        return mapSystem(systemResource(record), context.routerLabel, context.now());
      },
    },
  ],
};
