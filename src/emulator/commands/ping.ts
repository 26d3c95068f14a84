/**
 * `/ping` and `/tool/ping` (real-formats §4): one row per probe with cumulative statistics, lost
 * probes as `status: timeout` rows, rtt statistics absent until the first reply. The reply comes
 * after count × interval of real time; without `count` the command runs until the cap.
 */
import { badRequest, unknownParameter } from '../rest/errors.js';
import { asDurationMicros, asInt, asText, invalidValue } from '../rest/values.js';
import type { PingBehaviour, Row } from '../types.js';
import { formatMicros } from '../util/duration.js';
import { ipv4ToInt, isIp, parsePrefix } from '../util/ip.js';
import { unit } from '../util/rng.js';
import type { RouterState } from '../state/router-state.js';
import { checkKnown, forever, sleep } from './types.js';
import type { CommandContext } from './types.js';

const PARAMS = new Set([
  'address', 'count', 'interval', 'size', 'ttl', 'src-address', 'interface', 'vrf', 'routing-table',
  'do-not-fragment', 'dscp', 'arp-ping',
]);

/** Pinging one of the router's own addresses answers in microseconds. */
const LOCAL: PingBehaviour = { kind: 'reachable', rttMs: 0.02, jitterMs: 0.005 };

function behaviour(state: RouterState, address: string): PingBehaviour {
  const configured = state.ping.get(address);
  if (configured !== undefined) return configured;
  const own = state.addresses.entries().some((e) => (e.values['address'] ?? '').split('/')[0] === address);
  return own ? LOCAL : { kind: 'timeout' };
}

/** WireGuard refuses a session older than this (REJECT_AFTER_TIME): nothing passes without a newer handshake. */
const REJECT_AFTER_MS = 180_000;

function inPrefix(address: string, prefix: string): boolean {
  const p = parsePrefix(prefix);
  if (p === undefined || p.family !== 4 || !isIp(address) || address.includes(':')) return false;
  const mask = p.length === 0 ? 0 : (0xffffffff << (32 - p.length)) >>> 0;
  return ((ipv4ToInt(address) & mask) >>> 0) === ((ipv4ToInt(p.address) & mask) >>> 0);
}

/**
 * Why a ping forced out of `interface=` / from `src-address=` gets no reply, or undefined when it may. Through a
 * WireGuard interface, cryptokey routing sends a packet only to the enabled peer whose allowed-address holds the
 * target, and only over a live session (a handshake within 180 s): a fresh handshake with the wrong
 * allowed-address, or a dead peer, loses every probe. A source address the router does not own gets no
 * replies back. IPv6 targets are not checked.
 */
function blocked(state: RouterState, address: string, iface: string | undefined, src: string | undefined): string | undefined {
  if (src !== undefined && !state.addresses.entries().some((e) => (e.values['address'] ?? '').split('/')[0] === src)) return 'foreign source';
  if (iface === undefined || !state.wgInterfaceNames().includes(iface) || address.includes(':')) return undefined;
  const now = state.now();
  const peer = state.peers
    .entries()
    .find((e) => e.values['interface'] === iface && !e.sim.disabled && (e.values['allowed-address'] ?? '').split(',').some((prefix) => inPrefix(address, prefix)));
  if (peer === undefined) return 'no peer allows it';
  const at = peer.sim.lastHandshakeAt(now);
  return at === undefined || now - at > REJECT_AFTER_MS ? 'no live session' : undefined;
}

/** Loss spread evenly: probe n of a target is lost when ⌊(n+1)·r⌋ > ⌊n·r⌋ (exact long-run ratio). */
function lost(n: number, ratio: number): boolean {
  return Math.floor((n + 1) * ratio) > Math.floor(n * ratio);
}

interface Stats {
  sent: number;
  received: number;
  min: number;
  max: number;
  sum: number;
}

function statsRow(s: Stats): Row {
  const row: Row = {
    sent: String(s.sent),
    received: String(s.received),
    'packet-loss': String(Math.floor(((s.sent - s.received) * 100) / s.sent)),
  };
  if (s.received > 0) {
    row['min-rtt'] = formatMicros(s.min);
    // Truncated, as RouterOS prints it: 453 us and 382 us give 417us (the manual's capture), not 418us.
    row['avg-rtt'] = formatMicros(Math.floor(s.sum / s.received));
    row['max-rtt'] = formatMicros(s.max);
  }
  return row;
}

export async function ping(ctx: CommandContext): Promise<Row[]> {
  const { state, params, signal } = ctx;
  checkKnown(params, PARAMS, unknownParameter);
  const rawAddress = params.get('address');
  if (rawAddress === undefined) throw badRequest('missing =address=');
  const address = asText('address', rawAddress).trim();
  if (!isIp(address) && !state.ping.has(address)) {
    throw badRequest(`invalid value for argument address: ${address} while resolving ip-address: could not get answer from dns server`);
  }
  const intervalUs = params.has('interval') ? asDurationMicros('interval', params.get('interval'), 0.01, 5) : 1_000_000;
  const size = params.has('size') ? asInt('size', params.get('size'), 14, 65535) : 56;
  const iface = params.get('interface');
  if (iface !== undefined && !state.interfaceNames().includes(asText('interface', iface))) {
    throw badRequest('input does not match any value of interface');
  }
  const src = params.get('src-address');
  if (src !== undefined && !isIp(asText('src-address', src))) throw invalidValue('src-address');
  const rawCount = params.get('count');
  if (rawCount === undefined) return forever(signal);
  const count = asInt('count', rawCount, 1, 4_294_967_295);
  await sleep((count * intervalUs) / 1000, signal);
  const dropped = blocked(state, address, iface === undefined ? undefined : asText('interface', iface), src === undefined ? undefined : asText('src-address', src));
  return probeRows(state, address, count, size, dropped === undefined ? undefined : { kind: 'timeout' });
}

export function probeRows(state: RouterState, address: string, count: number, size: number, override?: PingBehaviour): Row[] {
  const how = override ?? behaviour(state, address);
  const rows: Row[] = [];
  const s: Stats = { sent: 0, received: 0, min: Infinity, max: 0, sum: 0 };
  let n = state.runCounters.get(address) ?? 0;
  for (let seq = 0; seq < count; seq++, n++) {
    s.sent++;
    // The gateway answers the first ping of a run with host unreachable, the rest time out (as captured:
    // `ping__unreachable_then_timeouts`, the gateway's ICMP rate limit).
    if (how.kind === 'host-unreachable' && seq === 0) {
      const time = formatMicros(600_000 + Math.floor(unit(state.name, address, n) * 30_000));
      rows.push({ ...statsRow(s), host: how.from, seq: String(seq), status: 'host unreachable', time, ttl: '64' });
      continue;
    }
    if (how.kind === 'timeout' || how.kind === 'host-unreachable' || (how.kind === 'lossy' && lost(n, how.loss))) {
      rows.push({ ...statsRow(s), host: address, seq: String(seq), status: 'timeout' });
      continue;
    }
    const jitter = how.jitterMs ?? how.rttMs * 0.1;
    const rttUs = Math.max(10, Math.round((how.rttMs + (unit(state.name, address, n) * 2 - 1) * jitter) * 1000));
    s.received++;
    s.min = Math.min(s.min, rttUs);
    s.max = Math.max(s.max, rttUs);
    s.sum += rttUs;
    rows.push({
      ...statsRow(s),
      host: address,
      seq: String(seq),
      size: String(size),
      time: formatMicros(rttUs),
      ttl: String(how.ttl ?? 64),
    });
  }
  state.runCounters.set(address, n);
  return rows;
}
