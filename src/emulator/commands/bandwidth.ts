/**
 * `/tool/bandwidth-test` (real-formats §5): `.section` rows, one per second of test, answered when
 * the duration is over; status `connecting` → `running` … → `done testing`, or a failure status
 * (`can not connect`, `authentication failed`) with HTTP 200. Rates are integer bits per second.
 */
import { badRequest, unknownParameter } from '../rest/errors.js';
import { asBool, asDurationMicros, asEnum, asInt, asText } from '../rest/values.js';
import type { BandwidthServer, Row } from '../types.js';
import { formatSeconds } from '../util/duration.js';
import { unit } from '../util/rng.js';
import { checkKnown, forever, sleep } from './types.js';
import type { CommandContext } from './types.js';

const PARAMS = new Set([
  'address', 'duration', 'direction', 'protocol', 'user', 'password', 'connection-count', 'local-udp-tx-size',
  'remote-udp-tx-size', 'random-data', 'local-tx-speed', 'remote-tx-speed', 'interval',
]);

const CANNOT_CONNECT: BandwidthServer = { kind: 'fail', status: 'can not connect' };

interface Setup {
  direction: 'receive' | 'transmit' | 'both';
  udp: boolean;
  connections: string;
  rxSize: string;
  txSize: string;
  randomData: string;
}

function base(setup: Setup, section: number, status: string): Row {
  const row: Row = {
    '.section': String(section),
    'connection-count': setup.connections,
    direction: setup.direction,
    'random-data': setup.randomData,
    status,
  };
  if (setup.udp) row['lost-packets'] = '0';
  return row;
}

/** Adds `rx-*` / `tx-*` rates; `history` holds every sample of that side so far. */
function rates(row: Row, side: 'rx' | 'tx', size: string, history: readonly number[]): void {
  const current = history[history.length - 1] ?? 0;
  const last10 = history.slice(-10);
  const avg = (xs: readonly number[]): number => (xs.length === 0 ? 0 : Math.round(xs.reduce((a, b) => a + b, 0) / xs.length));
  row[`${side}-current`] = String(current);
  row[`${side}-10-second-average`] = String(avg(last10));
  row[`${side}-total-average`] = String(avg(history));
  row[`${side}-size`] = size;
}

export async function bandwidthTest(ctx: CommandContext): Promise<Row[]> {
  const { state, params, signal } = ctx;
  checkKnown(params, PARAMS, unknownParameter);
  const rawAddress = params.get('address');
  if (rawAddress === undefined) throw badRequest('missing =address=');
  const address = asText('address', rawAddress).trim();
  const setup: Setup = {
    direction: params.has('direction') ? asEnum('direction', params.get('direction'), ['receive', 'transmit', 'both'] as const) : 'receive',
    udp: (params.has('protocol') ? asEnum('protocol', params.get('protocol'), ['udp', 'tcp'] as const) : 'udp') === 'udp',
    connections: String(params.has('connection-count') ? asInt('connection-count', params.get('connection-count'), 1, 255) : 20),
    rxSize: String(params.has('remote-udp-tx-size') ? asInt('remote-udp-tx-size', params.get('remote-udp-tx-size'), 28, 64000) : 1500),
    txSize: String(params.has('local-udp-tx-size') ? asInt('local-udp-tx-size', params.get('local-udp-tx-size'), 28, 64000) : 1500),
    randomData: params.has('random-data') ? asBool('random-data', params.get('random-data')) : 'false',
  };
  const rawDuration = params.get('duration');
  if (rawDuration === undefined) return forever(signal);
  const durationUs = asDurationMicros('duration', rawDuration, 0, 4_294_967);
  const server = state.bandwidthServers.get(address) ?? CANNOT_CONNECT;
  const connecting = base(setup, 0, 'connecting');
  if (setup.direction !== 'transmit') rates(connecting, 'rx', setup.rxSize, []);
  if (setup.direction !== 'receive') rates(connecting, 'tx', setup.txSize, []);
  const user = params.has('user') ? asText('user', params.get('user')) : '';
  const password = params.has('password') ? asText('password', params.get('password')) : '';
  const failure =
    server.kind === 'fail'
      ? server.status
      : server.user !== undefined && (user !== server.user || password !== (server.password ?? ''))
        ? 'authentication failed'
        : undefined;
  if (failure !== undefined) {
    // A refused test ends as soon as the server says no: within the first second.
    await sleep(Math.min(durationUs / 1000, 1000), signal);
    return [connecting, base(setup, 1, failure)];
  }
  await sleep(durationUs / 1000, signal);
  if (server.kind !== 'ok') return [connecting];
  const sections = Math.max(1, Math.ceil(durationUs / 1_000_000));
  const rows: Row[] = [connecting];
  // Each run samples a little differently, as real tests do, yet reproducibly.
  const runKey = `btest ${address}`;
  const run = state.runCounters.get(runKey) ?? 0;
  state.runCounters.set(runKey, run + 1);
  const rx: number[] = [];
  const tx: number[] = [];
  for (let k = 1; k <= sections; k++) {
    const wobble = (side: string): number => 0.9 + 0.2 * unit(state.name, address, side, run, k);
    rx.push(Math.round(server.rxBps * wobble('rx')));
    tx.push(Math.round(server.txBps * wobble('tx')));
    const row = base(setup, k, k === sections ? 'done testing' : 'running');
    row['duration'] = formatSeconds(k);
    // Per section, not a running total: the manual's capture goes 0, 0, 581175, 9014 (docs/emulator.md).
    if (setup.udp) row['lost-packets'] = String(Math.round((server.lostPerSecond ?? 0) * wobble('lost')));
    if (setup.direction !== 'transmit') rates(row, 'rx', setup.rxSize, rx);
    if (setup.direction !== 'receive') rates(row, 'tx', setup.txSize, tx);
    rows.push(row);
  }
  return rows;
}
