/**
 * Fleet overview: is every router answering, is every collector working, how loaded and how hot are the routers,
 * has a power supply or fan failed, which firmware upgrades wait, how many tunnels are in trouble, and is the
 * exporter itself healthy.
 */
import { ERROR_REASONS } from '../../src/routeros/errors.js';
import { COMMON_TAGS, FLEET, linksFrom } from './catalog.js';
import { dashboard } from './layout.js';
import {
  PLUMBING_COLUMNS,
  barGauge,
  boolMapping,
  instant,
  joinColumns,
  override,
  q,
  stat,
  stateTimeline,
  steps,
  table,
  tableQuery,
  timeseries,
} from './panels.js';
import type { Dashboard, ValueMapping } from './types.js';
import { R, datasourceVariable, jobVariable, routerVariable } from './variables.js';

const J = 'job=~"$job"';
const ALERT = steps('green', [1, 'red']);
/** routeros_exporter_config_restart_required: 0 is fine, 1 asks for a restart. */
const RESTART_TEXT: ValueMapping[] = [
  { type: 'value', options: { '0': { text: 'no', color: 'green', index: 0 }, '1': { text: 'yes', color: 'orange', index: 1 } } },
];
const USAGE = steps('green', [0.8, 'orange'], [0.9, 'red']);
const usage = (title: string, description: string, expr: string) =>
  timeseries({
    title,
    description,
    unit: 'percentunit',
    min: 0,
    max: 1,
    width: 8,
    queries: [q(expr, '{{router}}')],
    thresholds: USAGE,
    colorMode: 'palette-classic',
    custom: { thresholdsStyle: { mode: 'dashed' } },
  });

const summary = [
  stat({
    title: 'Routers up',
    description: 'Routers whose last system collection succeeded (routeros_up = 1).',
    unit: 'none',
    queries: [instant(`sum(routeros_up{${R}}) or vector(0)`)],
    thresholds: steps('red', [1, 'green']),
  }),
  stat({
    title: 'Routers down',
    description: 'Routers whose last system collection failed (routeros_up = 0).',
    unit: 'none',
    queries: [instant(`count(routeros_up{${R}} == 0) or vector(0)`)],
    thresholds: ALERT,
  }),
  stat({
    title: 'Failing collectors',
    description: 'Collector runs (router × collector) whose last run failed.',
    unit: 'none',
    queries: [instant(`count(routeros_collector_success{${R}} == 0) or vector(0)`)],
    thresholds: steps('green', [1, 'orange']),
  }),
  stat({
    title: 'Stale peers',
    description: 'WireGuard peers judged unhealthy: handshake too old, never connected, or blocked (a fresh handshake, every probe ping lost). Excluded and disabled peers are not judged.',
    unit: 'none',
    queries: [instant(`sum(1 - routeros_wireguard_peer_healthy{${R}}) or vector(0)`)],
    thresholds: ALERT,
  }),
  stat({
    title: 'Tunnels not running',
    description: 'Enabled WireGuard interfaces that RouterOS does not report as running.',
    unit: 'none',
    queries: [
      instant(
        `sum((1 - routeros_wireguard_interface_running{${R}}) * (1 - routeros_wireguard_interface_disabled{${R}})) or vector(0)`,
      ),
    ],
    thresholds: ALERT,
  }),
  stat({
    title: 'Config reload',
    description: 'Outcome of the exporter’s last configuration (re)load; a failed reload keeps the old config running.',
    unit: 'none',
    queries: [instant(`min(routeros_exporter_config_last_reload_successful{${J}})`)],
    mappings: boolMapping('OK', 'Failed'),
    thresholds: steps('red', [1, 'green']),
  }),
];

const routers = [
  [
    table({
      title: 'Routers',
      description: 'One row per router whose system collection succeeds: board, CPU, RouterOS version and uptime.',
      unit: 'none',
      height: 7,
      queries: [
        tableQuery(
          `routeros_system_uptime_seconds{${R}} * on (job, instance, router) group_left (board_name, architecture, cpu, platform, version) routeros_system_info{${R}}`,
        ),
        tableQuery(`routeros_system_cpu_cores{${R}}`),
        tableQuery(`routeros_system_cpu_frequency_hertz{${R}}`),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, { 'Value #A': 'Uptime', 'Value #B': 'CPUs', 'Value #C': 'CPU clock' }),
      overrides: [override('Uptime', { unit: 'dtdurations' }), override('CPU clock', { unit: 'hertz' })],
    }),
  ],
  [
    stateTimeline({
      title: 'Router reachability',
      description: 'Whether each router’s system collection succeeded, over time.',
      unit: 'none',
      queries: [q(`routeros_up{${R}}`, '{{router}}')],
      mappings: boolMapping('Up', 'Down'),
    }),
    timeseries({
      title: 'Uptime',
      description: 'Time since each router booted; a drop to zero is a reboot.',
      unit: 's',
      queries: [q(`routeros_system_uptime_seconds{${R}}`, '{{router}}')],
    }),
  ],
];

const collectors = [
  [
    stateTimeline({
      title: 'Collector success',
      description: 'Outcome of each collector’s last run per router.',
      unit: 'none',
      queries: [q(`routeros_collector_success{${R}}`, '{{router}} {{collector}}')],
      mappings: boolMapping('OK', 'Failed'),
    }),
    timeseries({
      title: 'Collector errors by reason',
      description:
        // From the reasons themselves: a new one is never missing here (`redirect` was).
        `Failed collector runs per second by reason: ${ERROR_REASONS.join(', ')}.`,
      unit: 'short',
      queries: [
        q(
          `sum by (router, collector, reason) (rate(routeros_collector_errors_total{${R}}[$__rate_interval]))`,
          '{{router}} {{collector}} {{reason}}',
        ),
      ],
    }),
  ],
  [
    timeseries({
      title: 'Collector run time',
      description: 'How long each collector’s last run took; runs close to the request timeout are about to fail.',
      unit: 's',
      queries: [q(`routeros_collector_duration_seconds{${R}}`, '{{router}} {{collector}}')],
    }),
    barGauge({
      title: 'Time since last successful run',
      description: 'Age of each collector’s last success. Bandwidth tests usually run rarely, so theirs is large.',
      unit: 's',
      queries: [instant(`time() - routeros_collector_last_success_timestamp_seconds{${R}}`, '{{router}} {{collector}}')],
      thresholds: steps('blue'),
    }),
  ],
];

const resources = [
  [
    usage('CPU load', 'RouterOS cpu-load of each router, 0–100 %.', `routeros_system_cpu_load_ratio{${R}}`),
    usage(
      'Memory used',
      'Share of each router’s RAM in use.',
      `1 - routeros_system_memory_free_bytes{${R}} / routeros_system_memory_total_bytes{${R}}`,
    ),
    usage(
      'Disk used',
      'Share of each router’s storage (HDD/flash) in use.',
      `1 - routeros_system_disk_free_bytes{${R}} / routeros_system_disk_total_bytes{${R}}`,
    ),
  ],
];

/** From the `health` collector (system/health); boards without sensors (CHR, x86) have no series here. */
const HOT = steps('green', [70, 'orange'], [80, 'red']);
const hardware = [
  [
    timeseries({
      title: 'Temperatures',
      description: 'Every temperature sensor of each router (system/health). RouterOSTemperatureHigh fires above 80 °C.',
      unit: 'celsius',
      width: 12,
      queries: [q(`routeros_health_temperature_celsius{${R}}`, '{{router}} {{sensor}}')],
      thresholds: HOT,
      colorMode: 'palette-classic',
      custom: { thresholdsStyle: { mode: 'dashed' } },
    }),
    timeseries({
      title: 'Fan speeds',
      description: 'Fan speeds in RPM (system/health fanN-speed); a stopped or failed fan reads 0.',
      unit: 'rotrpm',
      width: 12,
      min: 0,
      queries: [q(`routeros_health_fan_speed_rpm{${R}}`, '{{router}} {{sensor}}')],
    }),
  ],
  [
    stateTimeline({
      title: 'PSU and fan states',
      description: 'Power supply and fan state sensors (psuN-state, fan-state): OK or Failed, over time.',
      unit: 'none',
      width: 6,
      queries: [q(`routeros_health_state_ok{${R}}`, '{{router}} {{sensor}}')],
      mappings: boolMapping('OK', 'Failed'),
    }),
    timeseries({
      title: 'Voltages',
      description: 'Input and PSU voltages (system/health voltage, psuN-voltage).',
      unit: 'volt',
      width: 6,
      queries: [q(`routeros_health_voltage_volts{${R}}`, '{{router}} {{sensor}}')],
    }),
    timeseries({
      title: 'Current draw',
      description: 'Current drawn (system/health current, psuN-current), on boards that measure it.',
      unit: 'amp',
      width: 6,
      min: 0,
      queries: [q(`routeros_health_current_amperes{${R}}`, '{{router}} {{sensor}}')],
    }),
    timeseries({
      title: 'Power draw',
      description: 'Power consumption (system/health power-consumption), on boards that measure it.',
      unit: 'watt',
      width: 6,
      min: 0,
      queries: [q(`routeros_health_power_watts{${R}}`, '{{router}} {{sensor}}')],
    }),
  ],
];

/** From the `firmware` collector (system/routerboard, system/package/update), read only. */
const YES_NO: ValueMapping[] = [
  { type: 'value', options: { '0': { text: 'no', color: 'green', index: 0 }, '1': { text: 'yes', color: 'orange', index: 1 } } },
];
const firmware = [
  [
    stat({
      title: 'Firmware upgrades pending',
      description: 'Routers whose RouterBOOT firmware differs from what their RouterOS offers: run /system routerboard upgrade, then reboot.',
      unit: 'none',
      width: 6,
      height: 7,
      queries: [instant(`count(routeros_firmware_upgrade_pending{${R}} == 1) or vector(0)`)],
      thresholds: steps('green', [1, 'orange']),
    }),
    table({
      title: 'Firmware and RouterOS versions',
      description:
        'Per router: installed RouterOS, the latest version its last update check found (empty when it never checked; ' +
        'the exporter never asks it to check), the channel, and RouterBOOT current vs upgrade firmware (none on CHR/x86).',
      unit: 'none',
      width: 18,
      height: 7,
      queries: [
        tableQuery(`routeros_package_update_info{${R}}`),
        tableQuery(`routeros_package_update_available{${R}}`),
        tableQuery(
          `routeros_firmware_upgrade_pending{${R}} * on (job, instance, router) group_left (model, firmware_type, current, upgrade) routeros_firmware_info{${R}}`,
        ),
      ],
      transformations: joinColumns([...PLUMBING_COLUMNS, 'Value #A'], {
        installed_version: 'RouterOS',
        latest_version: 'Latest known',
        channel: 'Channel',
        'Value #B': 'Update available',
        model: 'Model',
        firmware_type: 'Firmware type',
        current: 'RouterBOOT',
        upgrade: 'RouterBOOT offered',
        'Value #C': 'Firmware upgrade pending',
      }),
      overrides: [
        override('Update available', { mappings: YES_NO, 'custom.cellOptions': { type: 'color-text' } }),
        override('Firmware upgrade pending', { mappings: YES_NO, 'custom.cellOptions': { type: 'color-text' } }),
      ],
    }),
  ],
];

const staleByRouter = `sum by (router) (1 - routeros_wireguard_peer_healthy{${R}})`;
const wireguard = [
  [
    barGauge({
      title: 'Stale peers per router',
      description: 'Judged WireGuard peers that are unhealthy, per router (0 when all are healthy).',
      unit: 'none',
      width: 8,
      queries: [instant(staleByRouter, '{{router}}')],
      thresholds: ALERT,
    }),
    timeseries({
      title: 'Stale peers over time',
      description: 'Unhealthy judged WireGuard peers per router; see the WireGuard dashboard for which ones.',
      unit: 'none',
      width: 16,
      queries: [q(staleByRouter, '{{router}}')],
    }),
  ],
];

const exporter = [
  [
    table({
      title: 'Exporter build',
      description:
        'Version and Node.js runtime of each routeros-exporter instance, its shard (index of count; 0 of 1 when ' +
        'not sharded), and whether its loaded configuration changes a setting only a restart applies (listen).',
      unit: 'none',
      width: 8,
      height: 6,
      queries: [
        tableQuery(`routeros_exporter_build_info{${J}}`),
        tableQuery(`routeros_exporter_config_restart_required{${J}}`),
        tableQuery(`routeros_exporter_shard_index{${J}}`),
        tableQuery(`routeros_exporter_shards{${J}}`),
      ],
      transformations: joinColumns(['Time', '__name__', 'Value #A'], { 'Value #B': 'Restart needed', 'Value #C': 'Shard', 'Value #D': 'Of' }),
      overrides: [override('Restart needed', { mappings: RESTART_TEXT, 'custom.cellOptions': { type: 'color-text' } })],
    }),
    stateTimeline({
      title: 'Exporter scrapes',
      description: 'Whether Prometheus could scrape each exporter instance (up).',
      unit: 'none',
      width: 8,
      height: 6,
      queries: [q(`up{${J}}`, '{{instance}}')],
      mappings: boolMapping('Up', 'Down'),
    }),
    barGauge({
      title: 'Time since last good config load',
      description: 'Age of each exporter’s last successful configuration load (start, SIGHUP or POST /-/reload).',
      unit: 's',
      width: 8,
      height: 6,
      queries: [
        instant(`time() - routeros_exporter_config_last_reload_success_timestamp_seconds{${J}}`, '{{instance}}'),
      ],
      thresholds: steps('blue'),
    }),
  ],
  [
    timeseries({
      title: 'Exporter memory',
      description: 'Resident memory of each exporter process.',
      unit: 'bytes',
      width: 12,
      queries: [q(`process_resident_memory_bytes{${J}}`, '{{instance}}')],
    }),
    timeseries({
      title: 'Exporter CPU',
      description: 'CPU time used by each exporter process, as a share of one core.',
      unit: 'percentunit',
      width: 12,
      queries: [q(`rate(process_cpu_seconds_total{${J}}[$__rate_interval])`, '{{instance}}')],
    }),
  ],
];

export function fleetDashboard(): Dashboard {
  return dashboard({
    uid: FLEET.uid,
    title: FLEET.title,
    description: 'Every RouterOS router at a glance: reachability, collectors, resources, hardware health, firmware, tunnel health, exporter.',
    tags: [...COMMON_TAGS, 'fleet'],
    time: { from: 'now-6h', to: 'now' },
    refresh: '1m',
    variables: [datasourceVariable(), routerVariable(), jobVariable()],
    links: linksFrom(FLEET.uid),
    sections: [
      { title: 'Fleet', rows: [summary] },
      { title: 'Routers', rows: routers },
      { title: 'Collectors', rows: collectors },
      { title: 'Resources', rows: resources },
      { title: 'Hardware health', rows: hardware },
      { title: 'Firmware and versions', rows: firmware },
      { title: 'WireGuard', rows: wireguard },
      { title: 'Exporter', rows: exporter },
    ],
  });
}
