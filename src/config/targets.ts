/** `ping` and `bandwidth_test` lists: targets the router itself probes, bounded by its 60 s command limit. */
import {
  DEFAULT_PING_COUNT,
  DEFAULT_PING_INTERVAL_SECONDS,
  MAX_PING_COUNT,
  MIN_PING_INTERVAL_SECONDS,
} from './defaults.js';
import { formatDuration } from './duration.js';
import { readCron, readDuration, readEnum, readInteger, readLabelName, readList, readMap, readSecret, readString, REPORTED } from './fields.js';
import type { BandwidthItem, PingItem } from './layer.js';
import type { Located } from './slot.js';
import { isHostName, isIpAddress } from './net.js';
import { joinPath, type Problems } from './problems.js';
import { COMMAND_BUDGET_SECONDS, ROUTER_COMMAND_LIMIT_SECONDS } from './types.js';
import { quoteValue } from './value-error.js';

export const PING_KEYS = ['target', 'count', 'interval', 'schedule', 'interface', 'src_address', 'size', 'name'] as const;
export const BANDWIDTH_KEYS = ['target', 'duration', 'schedule', 'direction', 'protocol', 'user', 'password', 'name'] as const;

const BUDGET_HINT = `would not finish well inside the router's ${ROUTER_COMMAND_LIMIT_SECONDS}s command limit (keep it ≤ ${COMMAND_BUDGET_SECONDS}s)`;

type Reader<T> = (value: unknown, path: string) => T | undefined;

/** Reads an optional key; `bad` turns true when it is present but invalid. */
function optional<T>(map: Record<string, unknown>, key: string, base: string, read: Reader<T>, bad: { value: boolean }): T | undefined {
  if (!Object.hasOwn(map, key)) return undefined;
  const value = read(map[key], joinPath(base, key));
  if (value === undefined) bad.value = true;
  return value;
}

function readTarget(value: unknown, path: string, problems: Problems, hostAllowed: boolean): string | undefined {
  const text = readString(value, path, problems);
  if (text === undefined) return undefined;
  if (isIpAddress(text) || (hostAllowed && isHostName(text))) return text;
  problems.add(path, `${quoteValue(text)} is not an IP address${hostAllowed ? ' or host name' : ''}`);
  return undefined;
}

function readSchedule(map: Record<string, unknown>, base: string, problems: Problems, bad: { value: boolean }): Located<string> | undefined {
  const path = joinPath(base, 'schedule');
  const value = optional(map, 'schedule', base, (v, p) => readCron(v, p, problems), bad);
  return value === undefined ? undefined : { value, path };
}

function requireKey(map: Record<string, unknown>, key: string, base: string, problems: Problems): unknown {
  if (Object.hasOwn(map, key)) return map[key];
  problems.add(joinPath(base, key), 'is required');
  return REPORTED;
}

/** Two entries with the same target and name would write the same series. Exported for its test. */
export function checkDuplicates(items: readonly { path: string; target: string; name: string }[], problems: Problems): void {
  // One pass with a map: a search per entry was quadratic (60,000 pings on one router took 15 s to load).
  const firsts = new Map<string, { path: string }>();
  for (const item of items) {
    const key = `${item.target.length}:${item.target}|${item.name}`;
    const first = firsts.get(key);
    if (first === undefined) firsts.set(key, item);
    else problems.add(item.path, `same target and name as ${first.path}; give one of them another name`);
  }
}

function readPingItem(raw: unknown, path: string, problems: Problems): PingItem | undefined {
  const map = readMap(raw, path, problems, PING_KEYS);
  if (map === undefined) return undefined;
  const bad = { value: false };
  const target = readTarget(requireKey(map, 'target', path, problems), joinPath(path, 'target'), problems, true);
  const count = optional(map, 'count', path, (v, p) => readInteger(v, p, problems, { min: 1, max: MAX_PING_COUNT }), bad);
  const interval = optional(map, 'interval', path, (v, p) => readDuration(v, p, problems, { atLeast: MIN_PING_INTERVAL_SECONDS }), bad);
  const item = {
    schedule: readSchedule(map, path, problems, bad),
    interface: optional(map, 'interface', path, (v, p) => readString(v, p, problems), bad),
    srcAddress: optional(map, 'src_address', path, (v, p) => readTarget(v, p, problems, false), bad),
    size: optional(map, 'size', path, (v, p) => readInteger(v, p, problems, { min: 14, max: 65_535 }), bad),
    name: optional(map, 'name', path, (v, p) => readLabelName(v, p, problems), bad),
  };
  if (target === undefined || bad.value) return undefined;
  const ping: PingItem = {
    path,
    target,
    name: item.name ?? target,
    count: count ?? DEFAULT_PING_COUNT,
    intervalSeconds: interval ?? DEFAULT_PING_INTERVAL_SECONDS,
  };
  if (item.schedule !== undefined) ping.schedule = item.schedule;
  if (item.interface !== undefined) ping.interface = item.interface;
  if (item.srcAddress !== undefined) ping.srcAddress = item.srcAddress;
  if (item.size !== undefined) ping.size = item.size;
  const total = ping.count * ping.intervalSeconds;
  if (total > COMMAND_BUDGET_SECONDS) {
    problems.add(path, `count × interval = ${formatDuration(total)} ${BUDGET_HINT}`);
    return undefined;
  }
  return ping;
}

function readBandwidthItem(raw: unknown, path: string, problems: Problems): BandwidthItem | undefined {
  const map = readMap(raw, path, problems, BANDWIDTH_KEYS);
  if (map === undefined) return undefined;
  const bad = { value: false };
  const target = readTarget(requireKey(map, 'target', path, problems), joinPath(path, 'target'), problems, false);
  const duration = readDuration(requireKey(map, 'duration', path, problems), joinPath(path, 'duration'), problems, {
    atMost: { seconds: COMMAND_BUDGET_SECONDS, why: BUDGET_HINT },
  });
  const item = {
    schedule: readSchedule(map, path, problems, bad),
    direction: optional(map, 'direction', path, (v, p) => readEnum(v, p, problems, ['receive', 'transmit', 'both'] as const), bad),
    protocol: optional(map, 'protocol', path, (v, p) => readEnum(v, p, problems, ['udp', 'tcp'] as const), bad),
    user: optional(map, 'user', path, (v, p) => readString(v, p, problems), bad),
    password: optional(map, 'password', path, (v, p) => readSecret(v, p, problems), bad),
    name: optional(map, 'name', path, (v, p) => readLabelName(v, p, problems), bad),
  };
  if (target === undefined || duration === undefined || bad.value) return undefined;
  const test: BandwidthItem = {
    path,
    target,
    name: item.name ?? target,
    durationSeconds: duration,
    direction: item.direction ?? 'both',
    protocol: item.protocol ?? 'udp',
  };
  if (item.schedule !== undefined) test.schedule = item.schedule;
  if (item.user !== undefined) test.user = item.user;
  if (item.password !== undefined) test.password = item.password;
  return test;
}

function readItems<T extends { path: string; target: string; name: string }>(
  value: unknown,
  path: string,
  problems: Problems,
  readItem: (raw: unknown, path: string, problems: Problems) => T | undefined,
): T[] | undefined {
  const list = readList(value, path, problems);
  if (list === undefined) return undefined;
  const items = list.map((raw, i) => readItem(raw, joinPath(path, i), problems));
  const valid = items.filter((item): item is T => item !== undefined);
  checkDuplicates(valid, problems);
  return valid.length === items.length ? valid : undefined;
}

export function readPingList(value: unknown, path: string, problems: Problems): PingItem[] | undefined {
  return readItems(value, path, problems, readPingItem);
}

export function readBandwidthList(value: unknown, path: string, problems: Problems): BandwidthItem[] | undefined {
  return readItems(value, path, problems, readBandwidthItem);
}
