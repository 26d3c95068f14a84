/**
 * Capacity: uplink traffic and utilisation beside the tunnels', 95th percentiles per interface and tunnel,
 * link-downs, memory and disk headroom with linear fill forecasts, and the bandwidth tests the routers run.
 */
import { CAPACITY, COMMON_TAGS, linksFrom } from './catalog.js';
import { dashboard } from './layout.js';
import {
  PLUMBING_COLUMNS,
  boolMapping,
  joinColumns,
  override,
  overrideMatching,
  q,
  steps,
  table,
  tableQuery,
  timeseries,
} from './panels.js';
import type { Dashboard } from './types.js';
import { R, RI, RIP, RU, datasourceVariable, interfaceVariable, peerVariable, routerVariable, uplinkVariable } from './variables.js';

const RX = `rate(routeros_wireguard_peer_receive_bytes_total{${RIP}}[$__rate_interval])`;
const TX = `rate(routeros_wireguard_peer_transmit_bytes_total{${RIP}}[$__rate_interval])`;
const tunnelBits = (rate: string) => `sum by (router, interface) (${rate}) * 8`;
/** The 95th percentile of `expr` over `range`, evaluated at the panel's interval (Grafana picks it from the time range). */
const p95 = (expr: string, range: string) => `quantile_over_time(0.95, (${expr})[${range}:$__interval])`;
/** The peak of `expr` over `range`, evaluated at the panel's interval. */
const peak = (expr: string, range: string) => `max_over_time((${expr})[${range}:$__interval])`;
const TUNNEL = '{{router}} {{interface}}';
const TX_BELOW = overrideMatching('/ tx$/', { 'custom.transform': 'negative-Y' });
const FORECAST_DAYS = 30;
const WINDOW = '7d';

/** An interface counter's rate over the panel's interval, for the given matchers. */
const ifRate = (counter: string, matchers: string) => `rate(routeros_interface_${counter}_total{${matchers}}[$__rate_interval])`;
/** Per interface in bits per second; `type` kept so that tables can show it. */
const ifBits = (counter: 'receive_bytes' | 'transmit_bytes', matchers: string) => `sum by (router, interface, type) (${ifRate(counter, matchers)}) * 8`;
/** All WireGuard interfaces of a router together (their /interface counters: every peer's traffic). */
const TUNNELS = `${RI}, type="wg"`;
const tunnelsBits = (counter: 'receive_bytes' | 'transmit_bytes') => `sum by (router) (${ifRate(counter, TUNNELS)}) * 8`;
/** The uplink's comment (`WAN uplink`) for its legend, from the info series. */
const withComment = (expr: string) => `${expr} * on (router, interface) group_left (comment) max by (router, interface, comment) (routeros_interface_info{${R}})`;
const UPLINK = '{{router}} {{interface}} {{comment}}';
/** Latest value per interface, without job and instance, so a table's rows merge on router, interface and type. */
const perInterface = (expr: string) => `max by (router, interface, type) (${expr})`;

const uplinks = [
  [
    timeseries({
      title: 'Uplink traffic beside tunnel traffic',
      description: 'Bits per second received (above) and transmitted (below) on each selected ethernet uplink, and through all WireGuard interfaces of each router together.',
      unit: 'bps',
      width: 24,
      queries: [
        q(withComment(ifBits('receive_bytes', RU)), `${UPLINK} rx`),
        q(withComment(ifBits('transmit_bytes', RU)), `${UPLINK} tx`),
        q(tunnelsBits('receive_bytes'), '{{router}} tunnels rx'),
        q(tunnelsBits('transmit_bytes'), '{{router}} tunnels tx'),
      ],
      overrides: [TX_BELOW, overrideMatching('/ tunnels /', { 'custom.lineStyle': { fill: 'dash', dash: [10, 10] } })],
    }),
  ],
  [
    timeseries({
      title: 'Uplink utilisation',
      description: 'Traffic of each selected uplink as a share of its negotiated link rate (interface/ethernet/monitor); none while the link is down. A WAN contract below the port speed fills up before 100 %.',
      unit: 'percentunit',
      min: 0,
      queries: [
        q(`${ifRate('receive_bytes', RU)} / routeros_interface_link_speed_bytes_per_second{${RU}}`, '{{router}} {{interface}} rx'),
        q(`${ifRate('transmit_bytes', RU)} / routeros_interface_link_speed_bytes_per_second{${RU}}`, '{{router}} {{interface}} tx'),
      ],
      thresholds: steps('green', [0.8, 'orange'], [0.9, 'red']),
      colorMode: 'palette-classic',
      custom: { thresholdsStyle: { mode: 'dashed' } },
    }),
    timeseries({
      title: 'Uplink link-downs',
      description: 'Times each selected uplink lost its link (interface link-downs), per interval; RouterOSUplinkFlapping fires when they repeat.',
      unit: 'none',
      min: 0,
      queries: [q(`increase(routeros_interface_link_downs_total{${RU}}[$__rate_interval])`, '{{router}} {{interface}}')],
      custom: { drawStyle: 'bars', fillOpacity: 80 },
    }),
  ],
  [
    timeseries({
      title: 'Daily 95th percentile per uplink',
      description: 'Rolling one-day 95th percentile of each selected uplink’s rate, received above, transmitted below.',
      unit: 'bps',
      queries: [
        q(p95(ifBits('receive_bytes', RU), '1d'), '{{router}} {{interface}} rx'),
        q(p95(ifBits('transmit_bytes', RU), '1d'), '{{router}} {{interface}} tx'),
      ],
      overrides: [TX_BELOW],
    }),
    timeseries({
      title: 'Uplink packets, errors and drops',
      description: 'Packets per second on each selected uplink, and those received with errors, failed, or dropped (on receive, before sending, by the transmit queue).',
      unit: 'pps',
      queries: [
        q(ifRate('receive_packets', RU), '{{router}} {{interface}} rx packets'),
        q(ifRate('transmit_packets', RU), '{{router}} {{interface}} tx packets'),
        q(ifRate('receive_errors', RU), '{{router}} {{interface}} rx errors'),
        q(ifRate('transmit_errors', RU), '{{router}} {{interface}} tx errors'),
        q(ifRate('receive_drops', RU), '{{router}} {{interface}} rx drops'),
        q(ifRate('transmit_drops', RU), '{{router}} {{interface}} tx drops'),
        q(ifRate('transmit_queue_drops', RU), '{{router}} {{interface}} tx queue drops'),
      ],
    }),
  ],
  [
    table({
      title: '95th percentile and peak per interface',
      description: 'Every exported interface of the selected routers over the selected time range: 95th percentile and peak rate, link rate, link-downs since the router booted, and state.',
      unit: 'bps',
      queries: [
        tableQuery(p95(ifBits('receive_bytes', R), '$__range')),
        tableQuery(p95(ifBits('transmit_bytes', R), '$__range')),
        tableQuery(peak(ifBits('receive_bytes', R), '$__range')),
        tableQuery(peak(ifBits('transmit_bytes', R), '$__range')),
        tableQuery(perInterface(`routeros_interface_link_speed_bytes_per_second{${R}} * 8`)),
        tableQuery(perInterface(`routeros_interface_link_downs_total{${R}}`)),
        tableQuery(perInterface(`routeros_interface_running{${R}}`)),
        tableQuery(perInterface(`routeros_interface_disabled{${R}}`)),
      ],
      transformations: joinColumns(['Time'], {
        'Value #A': 'rx p95',
        'Value #B': 'tx p95',
        'Value #C': 'rx peak',
        'Value #D': 'tx peak',
        'Value #E': 'Link rate',
        'Value #F': 'Link-downs since boot',
        'Value #G': 'Running',
        'Value #H': 'Disabled',
      }),
      overrides: [
        override('Link-downs since boot', { unit: 'none' }),
        override('Running', { unit: 'none', mappings: boolMapping('running', 'not running') }),
        override('Disabled', { unit: 'none', mappings: [{ type: 'value', options: { '0': { text: 'enabled', index: 0 }, '1': { text: 'disabled', color: 'orange', index: 1 } } }] }),
      ],
    }),
  ],
];

const traffic = [
  [
    timeseries({
      title: 'Traffic per tunnel',
      description: 'Bits per second received (above) and transmitted (below) per WireGuard interface.',
      unit: 'bps',
      width: 24,
      queries: [q(tunnelBits(RX), `${TUNNEL} rx`), q(tunnelBits(TX), `${TUNNEL} tx`)],
      overrides: [TX_BELOW],
    }),
  ],
  [
    timeseries({
      title: 'Traffic per router',
      description: 'Bits per second through all WireGuard tunnels of each router, both directions together.',
      unit: 'bps',
      queries: [q(`sum by (router) (${RX} + ${TX}) * 8`, '{{router}}')],
    }),
    timeseries({
      title: 'Daily 95th percentile per tunnel',
      description: 'Rolling one-day 95th percentile of each tunnel’s rate (5-minute steps), received above, transmitted below.',
      unit: 'bps',
      queries: [
        q(p95(tunnelBits(RX), '1d'), `${TUNNEL} rx`),
        q(p95(tunnelBits(TX), '1d'), `${TUNNEL} tx`),
      ],
      overrides: [TX_BELOW],
    }),
  ],
  [
    table({
      title: '95th percentile and peak per tunnel',
      description: 'Over the selected time range, at 5-minute resolution: 95th percentile and peak rate of each tunnel.',
      unit: 'bps',
      queries: [
        tableQuery(p95(tunnelBits(RX), '$__range')),
        tableQuery(p95(tunnelBits(TX), '$__range')),
        tableQuery(peak(tunnelBits(RX), '$__range')),
        tableQuery(peak(tunnelBits(TX), '$__range')),
      ],
      transformations: joinColumns(['Time'], {
        'Value #A': 'rx p95',
        'Value #B': 'tx p95',
        'Value #C': 'rx peak',
        'Value #D': 'tx peak',
      }),
    }),
  ],
];

const freeRatio = (kind: 'memory' | 'disk') =>
  `routeros_system_${kind}_free_bytes{${R}} / routeros_system_${kind}_total_bytes{${R}}`;
const forecast = (kind: 'memory' | 'disk') =>
  `predict_linear(routeros_system_${kind}_free_bytes{${R}}[${WINDOW}], ${FORECAST_DAYS} * 86400)`;
/** When free space reaches zero at the trend of the window; no value while it does not shrink. */
const fullOn = (kind: 'memory' | 'disk') =>
  `(time() + predict_linear(routeros_system_${kind}_free_bytes{${R}}[${WINDOW}], 0) / -(deriv(routeros_system_${kind}_free_bytes{${R}}[${WINDOW}]) < 0)) * 1000`;

const headroomPanel = (kind: 'memory' | 'disk', title: string) =>
  timeseries({
    title,
    description: `Free ${kind} of each router as a share of the total.`,
    unit: 'percentunit',
    min: 0,
    max: 1,
    queries: [q(freeRatio(kind), '{{router}}')],
    thresholds: steps('red', [0.1, 'orange'], [0.2, 'green']),
    colorMode: 'palette-classic',
    custom: { thresholdsStyle: { mode: 'dashed' } },
  });

const forecastPanel = (kind: 'memory' | 'disk', title: string) =>
  timeseries({
    title,
    description: `Free ${kind} in bytes, and the linear forecast ${FORECAST_DAYS} days ahead from the trend of the last ${WINDOW}.`,
    unit: 'bytes',
    queries: [
      q(`routeros_system_${kind}_free_bytes{${R}}`, '{{router}}'),
      q(forecast(kind), `{{router}} in ${FORECAST_DAYS} d`),
    ],
    overrides: [overrideMatching('/ in \\d+ d$/', { 'custom.lineStyle': { fill: 'dash', dash: [10, 10] } })],
  });

const headroom = [
  [headroomPanel('memory', 'Memory headroom'), headroomPanel('disk', 'Disk headroom')],
  [forecastPanel('memory', 'Memory forecast'), forecastPanel('disk', 'Disk forecast')],
  [
    table({
      title: 'Fill forecast',
      description: `Per router, from the linear trend of the last ${WINDOW}: free space now, in ${FORECAST_DAYS} days, and the date it runs out (empty while it does not shrink).`,
      unit: 'bytes',
      height: 7,
      queries: [
        tableQuery(`routeros_system_memory_free_bytes{${R}}`),
        tableQuery(forecast('memory')),
        tableQuery(fullOn('memory')),
        tableQuery(`routeros_system_disk_free_bytes{${R}}`),
        tableQuery(forecast('disk')),
        tableQuery(fullOn('disk')),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, {
        'Value #A': 'Memory free',
        'Value #B': `Memory free in ${FORECAST_DAYS} d`,
        'Value #C': 'Memory full on',
        'Value #D': 'Disk free',
        'Value #E': `Disk free in ${FORECAST_DAYS} d`,
        'Value #F': 'Disk full on',
      }),
      overrides: [
        override('Memory full on', { unit: 'dateTimeAsIso' }),
        override('Disk full on', { unit: 'dateTimeAsIso' }),
      ],
    }),
  ],
];

const BTEST = '{{router}} → {{name}}';
const bandwidth = [
  [
    timeseries({
      title: 'Bandwidth test throughput',
      description: 'Average receive and transmit rate of each bandwidth test’s last run, as the router measured it.',
      unit: 'bps',
      width: 24,
      queries: [
        q(`routeros_bandwidth_test_receive_bytes_per_second{${R}} * 8`, `${BTEST} rx`),
        q(`routeros_bandwidth_test_transmit_bytes_per_second{${R}} * 8`, `${BTEST} tx`),
      ],
      custom: { lineInterpolation: 'stepAfter', showPoints: 'always' },
    }),
  ],
  [
    table({
      title: 'Bandwidth test results',
      description: 'Each configured bandwidth test: when it last ran, whether it succeeded, its rates and lost packets.',
      unit: 'none',
      queries: [
        tableQuery(`routeros_bandwidth_test_last_run_timestamp_seconds{${R}} * 1000`),
        tableQuery(`routeros_bandwidth_test_success{${R}}`),
        tableQuery(`routeros_bandwidth_test_receive_bytes_per_second{${R}} * 8`),
        tableQuery(`routeros_bandwidth_test_transmit_bytes_per_second{${R}} * 8`),
        tableQuery(`routeros_bandwidth_test_lost_packets{${R}}`),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, {
        'Value #A': 'Last run',
        'Value #B': 'Result',
        'Value #C': 'Receive',
        'Value #D': 'Transmit',
        'Value #E': 'Lost packets',
      }),
      overrides: [
        override('Last run', { unit: 'dateTimeFromNow' }),
        override('Result', { mappings: boolMapping('success', 'failed') }),
        override('Receive', { unit: 'bps' }),
        override('Transmit', { unit: 'bps' }),
      ],
    }),
  ],
];

export function capacityDashboard(): Dashboard {
  return dashboard({
    uid: CAPACITY.uid,
    title: CAPACITY.title,
    description: 'Uplink traffic, utilisation and link-downs beside the tunnels, 95th percentiles per interface and tunnel, memory and disk headroom with forecasts, bandwidth tests.',
    tags: [...COMMON_TAGS, 'wireguard', 'capacity'],
    time: { from: 'now-7d', to: 'now' },
    refresh: '5m',
    variables: [datasourceVariable(), routerVariable(), uplinkVariable(), interfaceVariable(), peerVariable()],
    links: linksFrom(CAPACITY.uid),
    sections: [
      { title: 'Uplinks and interfaces', rows: uplinks },
      { title: 'Tunnel traffic', rows: traffic },
      { title: 'Headroom', rows: headroom },
      { title: 'Bandwidth tests', rows: bandwidth },
    ],
  });
}
