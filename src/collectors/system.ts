/** `system`: GET /rest/system/resource → routeros_system_* (CPU, memory, disk, uptime, identity). */
import type { Collector, JobContext, JobResult } from './types.js';
import type { RouterRecord } from '../routeros/records.js';
import { SampleSet } from '../metrics/samples.js';
import { F } from '../metrics/families.js';
import { labelPair } from '../metrics/text.js';
import { FieldReader } from './decoding.js';

export const SYSTEM_PROPLIST = [
  'architecture-name',
  'board-name',
  'cpu',
  'cpu-count',
  'cpu-frequency',
  'cpu-load',
  'free-hdd-space',
  'free-memory',
  'platform',
  'total-hdd-space',
  'total-memory',
  'uptime',
  'version',
] as const;

export interface SystemData {
  version: string | undefined;
  boardName: string | undefined;
  uptimeSeconds: number | undefined;
  cpuLoadRatio: number | undefined;
}

/** Pure mapping of a system/resource record to samples. */
export function mapSystem(record: RouterRecord, routerLabel: string): JobResult<SystemData> {
  const read = new FieldReader('system/resource');
  const samples = new SampleSet();
  const info = [
    labelPair('board_name', record['board-name'] ?? ''),
    labelPair('architecture', record['architecture-name'] ?? ''),
    labelPair('cpu', record['cpu'] ?? ''),
    labelPair('platform', record['platform'] ?? ''),
    labelPair('version', record['version'] ?? ''),
  ].join(',');
  samples.add(F.systemInfo, `${routerLabel},${info}`, 1);

  const cpuLoad = read.number(record, 'cpu-load');
  const values: [typeof F.cpuLoad, number | undefined][] = [
    [F.cpuLoad, cpuLoad === undefined ? undefined : cpuLoad / 100],
    [F.cpuCores, read.integer(record, 'cpu-count')],
    [F.cpuFrequency, mhzToHertz(read.integer(record, 'cpu-frequency'))],
    [F.memoryFree, read.integer(record, 'free-memory')],
    [F.memoryTotal, read.integer(record, 'total-memory')],
    [F.diskFree, read.integer(record, 'free-hdd-space')],
    [F.diskTotal, read.integer(record, 'total-hdd-space')],
  ];
  const uptime = read.duration(record, 'uptime');
  values.push([F.uptime, uptime]);
  for (const [family, value] of values) if (value !== undefined) samples.add(family, routerLabel, value);

  return {
    samples,
    problems: read.problems,
    data: {
      version: record['version'],
      boardName: record['board-name'],
      uptimeSeconds: uptime,
      cpuLoadRatio: cpuLoad === undefined ? undefined : cpuLoad / 100,
    },
  };
}

function mhzToHertz(mhz: number | undefined): number | undefined {
  return mhz === undefined ? undefined : mhz * 1_000_000;
}

export const systemCollector: Collector = {
  name: 'system',
  description: 'CPU, memory, disk, uptime and identity from system/resource',
  defaultEnabled: true,
  jobs: (router) => [
    {
      collector: 'system',
      job: 'system',
      schedule: router.schedules.system,
      async run(context: JobContext) {
        const record = await context.client.getSingleton('system/resource', {
          proplist: SYSTEM_PROPLIST,
          signal: context.signal,
        });
        return mapSystem(record, context.routerLabel);
      },
    },
  ],
};
