/**
 * WireGuard tunnels: per interface and peer — is the tunnel up and set up right, when did each peer last
 * handshake, how much flows through it, where are the peers, and do pings through the tunnels get answered.
 */
import { COMMON_TAGS, WIREGUARD, linksFrom } from './catalog.js';
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
import { R, RI, RIP, datasourceVariable, interfaceVariable, peerVariable, routerVariable } from './variables.js';

const PEER = '{{router}} {{interface}} {{peer}}';
/** Adds the `peer` label the legends show: the peer's name, else the start of its public key. */
const named = (expr: string) =>
  `label_replace(label_replace(${expr}, "peer", "$1…", "public_key", "(.{1,8}).*"), "peer", "$1", "name", "(.+)")`;
const HANDSHAKE = `routeros_wireguard_peer_latest_handshake_timestamp_seconds{${RIP}}`;
const RX = `rate(routeros_wireguard_peer_receive_bytes_total{${RIP}}[$__rate_interval])`;
const TX = `rate(routeros_wireguard_peer_transmit_bytes_total{${RIP}}[$__rate_interval])`;
/** Enabled peers that never completed a handshake (the timestamp is 0 for never). */
const NEVER = `((${HANDSHAKE} == 0) unless (routeros_wireguard_peer_disabled{${RIP}} == 1))`;
const NEVER_TEXT: ValueMapping[] = [{ type: 'value', options: { '0': { text: 'never', color: 'red', index: 0 } } }];
/** The liveness states (docs/health.md "Peer states"), as numbers a state timeline can colour. */
const STATES = [
  ['up', 'green'],
  ['idle', 'blue'],
  ['down', 'red'],
  ['never', 'orange'],
  ['unknown', 'purple'],
  ['disabled', 'text'],
  ['blocked', 'dark-red'],
] as const;
/** One number per peer: its state's index in STATES (the state label dropped so a change stays one series). */
const STATE_CODE = `max without (state) (${STATES.map(([state], index) => `(routeros_wireguard_peer_state{${RIP}, state="${state}"} * ${index})`).join(' or ')})`;
const STATE_TEXT: ValueMapping[] = [
  { type: 'value', options: Object.fromEntries(STATES.map(([state, color], index) => [String(index), { text: state, color, index }])) },
];
const EXPECTED_BY = `routeros_wireguard_peer_handshake_expected_by_timestamp_seconds{${RIP}}`;

const summary = [
  stat({
    title: 'Interfaces running',
    description: 'WireGuard interfaces that RouterOS reports as running.',
    unit: 'none',
    queries: [instant(`sum(routeros_wireguard_interface_running{${RI}}) or vector(0)`)],
    thresholds: steps('blue'),
  }),
  stat({
    title: 'Interfaces down',
    description: 'Enabled WireGuard interfaces that are not running.',
    unit: 'none',
    queries: [
      instant(
        `sum((1 - routeros_wireguard_interface_running{${RI}}) * (1 - routeros_wireguard_interface_disabled{${RI}})) or vector(0)`,
      ),
    ],
    thresholds: steps('green', [1, 'red']),
  }),
  stat({
    title: 'Set-up checks failing',
    description: 'Failed tunnel set-up checks (address, route, firewall_input, firewall_forward).',
    unit: 'none',
    queries: [instant(`count(routeros_wireguard_interface_setup_ok{${RI}} == 0) or vector(0)`)],
    thresholds: steps('green', [1, 'orange']),
  }),
  stat({
    title: 'Peers',
    description: 'WireGuard peers configured on the selected interfaces.',
    unit: 'none',
    queries: [instant(`count(routeros_wireguard_peer_info{${RIP}}) or vector(0)`)],
    thresholds: steps('blue'),
  }),
  stat({
    title: 'Peers down',
    description:
      'Judged peers expected up (keepalive, traffic waiting, or expect: always) that are down, never connected, or blocked (a fresh handshake, every probe ping lost): what pages.',
    unit: 'none',
    queries: [instant(`sum(1 - routeros_wireguard_peer_healthy{${RIP}}) or vector(0)`)],
    thresholds: steps('green', [1, 'red']),
  }),
  stat({
    title: 'Peers idle',
    description: 'Peers nothing is expected of (no keepalive, nothing sent) with no session now: a laptop asleep. Information, not a problem.',
    unit: 'none',
    queries: [instant(`count(routeros_wireguard_peer_state{${RIP}, state="idle"}) or vector(0)`)],
    thresholds: steps('blue'),
  }),
];

const interfaces = [
  [
    table({
      title: 'Interfaces',
      description: 'Each WireGuard interface: running, disabled, listen port and MTU.',
      unit: 'none',
      width: 14,
      height: 7,
      queries: [
        tableQuery(`routeros_wireguard_interface_running{${RI}}`),
        tableQuery(`routeros_wireguard_interface_disabled{${RI}}`),
        tableQuery(`routeros_wireguard_interface_listen_port{${RI}}`),
        tableQuery(`routeros_wireguard_interface_mtu_bytes{${RI}}`),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, {
        'Value #A': 'Running',
        'Value #B': 'Disabled',
        'Value #C': 'Listen port',
        'Value #D': 'MTU',
      }),
      overrides: [
        override('Running', { mappings: boolMapping('yes', 'no') }),
        override('Disabled', { mappings: boolMapping('yes', 'no', true) }),
        override('MTU', { unit: 'bytes' }),
      ],
    }),
    table({
      title: 'Set-up audit',
      description:
        'Per interface: an address on it, routes through it for the peers’ subnets, UDP to its port accepted in input, routed subnets accepted in forward.',
      unit: 'none',
      width: 10,
      height: 7,
      queries: [tableQuery(`routeros_wireguard_interface_setup_ok{${RI}}`)],
      transformations: joinColumns(PLUMBING_COLUMNS, { Value: 'Result' }),
      overrides: [
        override('Result', { mappings: boolMapping('pass', 'fail'), 'custom.cellOptions': { type: 'color-text' } }),
      ],
    }),
  ],
  [
    stateTimeline({
      title: 'Interface running',
      description: 'Whether each WireGuard interface was running, over time.',
      unit: 'none',
      width: 24,
      height: 6,
      queries: [q(`routeros_wireguard_interface_running{${RI}}`, '{{router}} {{interface}}')],
      mappings: boolMapping('running', 'not running'),
    }),
  ],
];

const peers = [
  [
    timeseries({
      title: 'Handshake age',
      description:
        'Time since each peer’s latest handshake. Active peers re-handshake every 2 minutes; a keepalive peer is down past 180 s + keepalive + 5 s (3m30s for 25 s), an idle peer is fine at any age (see Peer state). Peers that never handshook are left out.',
      unit: 's',
      width: 24,
      queries: [q(named(`time() - (${HANDSHAKE} > 0)`), PEER)],
      thresholds: steps('green', [180, 'orange'], [300, 'red']),
      colorMode: 'palette-classic',
      custom: { thresholdsStyle: { mode: 'dashed' } },
    }),
  ],
  [
    stateTimeline({
      title: 'Peer state',
      description:
        'Each peer’s liveness state over time: up, idle (nothing expected, no session: fine), down (expected up, no handshake within its bound), never, unknown (interface not running, unreadable handshake), disabled, blocked (handshake fresh, every ping of the probe through the tunnel lost; health.probe).',
      unit: 'none',
      width: 24,
      queries: [q(named(STATE_CODE), PEER)],
      mappings: STATE_TEXT,
    }),
  ],
  [
    table({
      title: 'Down and never-handshaken peers',
      description:
        'Peers judged down (expected up, no handshake within the bound), and enabled peers without any handshake, with their latest handshake, when the next one was due, and endpoint.',
      unit: 'none',
      height: 7,
      queries: [
        tableQuery(
          `((${HANDSHAKE} * 1000) and ((routeros_wireguard_peer_healthy{${RIP}} == 0) or ${NEVER})) * on (job, instance, router, interface, public_key) group_left (endpoint) routeros_wireguard_peer_info{${RIP}}`,
        ),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, { Value: 'Latest handshake' }),
      overrides: [override('Latest handshake', { unit: 'dateTimeFromNow', mappings: NEVER_TEXT })],
    }),
  ],
  [
    table({
      title: 'Expected handshake by',
      description:
        'For every peer expected up: when its next handshake is due (latest handshake + 180 s + keepalive + 5 s, or handshake_stale_after for expect: always). A time in the past means down.',
      unit: 'none',
      height: 7,
      queries: [
        tableQuery(`${EXPECTED_BY} * 1000`),
        tableQuery(`${HANDSHAKE} * 1000 and ${EXPECTED_BY}`),
        tableQuery(`routeros_wireguard_peer_persistent_keepalive_seconds{${RIP}} and ${EXPECTED_BY}`),
        // Only probed peers (health.probe, probe_tunnels) have the column; it stays empty elsewhere.
        tableQuery(`routeros_wireguard_peer_probe_success{${RIP}}`),
      ],
      transformations: joinColumns(PLUMBING_COLUMNS, {
        'Value #A': 'Expected by',
        'Value #B': 'Latest handshake',
        'Value #C': 'Keepalive',
        'Value #D': 'Probe answered',
      }),
      overrides: [
        override('Expected by', { unit: 'dateTimeFromNow' }),
        override('Latest handshake', { unit: 'dateTimeFromNow' }),
        override('Keepalive', { unit: 's' }),
        override('Probe answered', { unit: 'bool_yes_no' }),
      ],
    }),
  ],
  [
    timeseries({
      title: 'Receive rate',
      description: 'Bits per second the router received from each peer through the tunnel.',
      unit: 'bps',
      queries: [q(named(`${RX} * 8`), PEER)],
    }),
    timeseries({
      title: 'Transmit rate',
      description: 'Bits per second the router sent to each peer through the tunnel.',
      unit: 'bps',
      queries: [q(named(`${TX} * 8`), PEER)],
    }),
  ],
  [
    barGauge({
      title: 'Top talkers',
      description: 'The ten peers with the most traffic (receive plus transmit) right now.',
      unit: 'bps',
      queries: [instant(named(`topk(10, (${RX} + ${TX}) * 8)`), PEER)],
      thresholds: steps('blue'),
    }),
    stateTimeline({
      title: 'Peer health',
      description: 'The exporter’s verdict on each judged peer over time: down only for peers expected up (idle peers are healthy).',
      unit: 'none',
      queries: [q(named(`routeros_wireguard_peer_healthy{${RIP}}`), PEER)],
      mappings: boolMapping('healthy', 'down'),
    }),
  ],
  [
    table({
      title: 'Endpoints and allowed addresses',
      description: 'Each peer’s current endpoint (else the configured one) and its allowed addresses.',
      unit: 'none',
      queries: [tableQuery(`routeros_wireguard_peer_info{${RIP}}`)],
      transformations: joinColumns([...PLUMBING_COLUMNS, 'Value'], {}),
    }),
  ],
];

const PING = '{{router}} → {{name}}';
const pings = [
  [
    timeseries({
      title: 'Ping round-trip time',
      description: 'Minimum, average and maximum round-trip time of the last ping run from each router.',
      unit: 's',
      queries: [q(`routeros_ping_rtt_seconds{${R}}`, `${PING} {{stat}}`)],
    }),
    timeseries({
      title: 'Ping loss',
      description: 'Share of probes lost: in the last run, and over the interval from the packet counters.',
      unit: 'percentunit',
      min: 0,
      max: 1,
      queries: [
        q(`routeros_ping_loss_ratio{${R}}`, `${PING} last run`),
        q(
          `1 - sum by (router, target, name) (rate(routeros_ping_packets_received_total{${R}}[$__rate_interval])) / (sum by (router, target, name) (rate(routeros_ping_packets_sent_total{${R}}[$__rate_interval])) > 0)`,
          `${PING} counters`,
        ),
      ],
    }),
  ],
  [
    timeseries({
      title: 'Tunnel probe round trip',
      description:
        'Average round trip of each peer’s data-plane probe: a ping from the router through the tunnel to the peer’s tunnel address (health.probe, probe_tunnels). Only probed peers that answered.',
      unit: 's',
      width: 8,
      queries: [q(named(`routeros_wireguard_peer_probe_rtt_seconds{${RIP}}`), PEER)],
    }),
    timeseries({
      title: 'Tunnel probe loss',
      description:
        'Share of each probe’s pings lost (probe_count 1–3). 100 % with a fresh handshake is the peer state blocked: the keys match but traffic does not pass (allowed-address or routes).',
      unit: 'percentunit',
      width: 8,
      min: 0,
      max: 1,
      queries: [q(named(`routeros_wireguard_peer_probe_loss_ratio{${RIP}}`), PEER)],
    }),
    timeseries({
      title: 'Peers not probed',
      description:
        'Peers the probe settings select that were not probed, by reason: no_tunnel_address (no /32 in allowed-address), no_source_address (no address on the interface), over_cap (past 16 per run).',
      unit: 'none',
      width: 8,
      min: 0,
      queries: [q(`routeros_wireguard_probe_skipped_peers{${RI}}`, '{{router}} {{interface}} {{reason}}')],
    }),
  ],
  [
    stateTimeline({
      title: 'Ping reachability',
      description: 'Whether each ping target answered at least one probe in its last run.',
      unit: 'none',
      width: 24,
      height: 5,
      queries: [q(`routeros_ping_success{${R}}`, PING)],
      mappings: boolMapping('reply', 'no reply'),
    }),
  ],
];

export function wireguardDashboard(): Dashboard {
  return dashboard({
    uid: WIREGUARD.uid,
    title: WIREGUARD.title,
    description: 'WireGuard interfaces and peers on RouterOS: set-up, handshakes, traffic, endpoints and pings.',
    tags: [...COMMON_TAGS, 'wireguard'],
    time: { from: 'now-6h', to: 'now' },
    refresh: '1m',
    variables: [datasourceVariable(), routerVariable(), interfaceVariable(), peerVariable()],
    links: linksFrom(WIREGUARD.uid),
    sections: [
      { title: 'Summary', rows: [summary] },
      { title: 'Interfaces', rows: interfaces },
      { title: 'Peers', rows: peers },
      { title: 'Pings through the tunnels', rows: pings },
    ],
  });
}
