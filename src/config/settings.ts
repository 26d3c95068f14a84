/** Reads one settings layer: the `defaults` mapping, or the settings part of one router. */
import {
  readBoolean,
  readCron,
  readDuration,
  readEnum,
  readMap,
  readNumber,
  readPattern,
  readString,
  readStringList,
  REPORTED,
  type RawMap,
} from './fields.js';
import type { PasswordSource, SettingsLayer } from './layer.js';
import type { Slot } from './slot.js';
import { joinPath, type Problems } from './problems.js';
import { readLabels } from './labels.js';
import { readBandwidthList, readPingList } from './targets.js';
import { readInterfaceLayer } from './interfaces.js';
import { readExpect } from './expect.js';
import { readProbeCount, readProbeDefault, readProbeMap } from './probe.js';
import { COLLECTOR_NAMES, IDLE_CONNECTIONS, ROUTER_COMMAND_LIMIT_SECONDS, type CollectorName } from './types.js';
import { readSlot, type Reader } from './slot.js';
import { isCertificateName, isIpAddress } from './net.js';
import { quoteValue } from './value-error.js';

const PASSWORD_KEYS = ['password', 'password_file', 'password_env'] as const;
export const SETTINGS_KEYS = [
  'username',
  ...PASSWORD_KEYS,
  'timeout',
  'idle_connection',
  'tls',
  'schedules',
  'collectors',
  'health',
  'ping',
  'bandwidth_test',
  'interfaces',
  'labels',
] as const;
export const TLS_KEYS = ['ca_file', 'server_name', 'insecure_skip_verify'] as const;
export const HEALTH_KEYS = ['handshake_stale_after', 'ping_loss_critical', 'exclude_peers', 'exclude_peer_pattern', 'expect', 'probe_tunnels', 'probe', 'probe_count'] as const;

/** At most one password source per layer; the router's (if any) replaces the defaults' when merging. */
function readPassword(map: RawMap, base: string, problems: Problems): Slot<PasswordSource> {
  const present = PASSWORD_KEYS.filter((key) => Object.hasOwn(map, key));
  const [key] = present;
  if (key === undefined) return undefined;
  if (present.length > 1) {
    problems.add(base, `set only one of password, password_file and password_env (found ${present.join(' and ')})`);
    return null;
  }
  return readSlot(map, key, base, problems, (value, path): PasswordSource | undefined => {
    // An unset ${VAR} was reported where it was expanded: a second "must be a string" would be wrong.
    if (value === REPORTED) return undefined;
    // Never echo a value of the wrong type under any of the three keys: it may be the password (a numeric one
    // pasted into password_env or password_file reads as a number).
    if (typeof value !== 'string') {
      problems.add(path, 'must be a string (quote it in YAML)');
      return undefined;
    }
    if (key === 'password') return { kind: 'password', value };
    const text = readString(value, path, problems);
    if (text === undefined) return undefined;
    if (key === 'password_file') return { kind: 'password_file', file: text };
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) return { kind: 'password_env', name: text };
    // Not quoted: a value that is not a name is most likely the password itself, pasted in the wrong key.
    problems.add(path, 'is not an environment variable name (letters, digits and _, not starting with a digit): give the name of the variable that holds the password');
    return undefined;
  });
}

function readCollectorMap<T>(value: unknown, base: string, problems: Problems, read: Reader<T>): Partial<Record<CollectorName, Slot<T>>> {
  const map = readMap(value, base, problems, COLLECTOR_NAMES) ?? {};
  const out: Partial<Record<CollectorName, Slot<T>>> = {};
  for (const name of COLLECTOR_NAMES) {
    if (Object.hasOwn(map, name)) out[name] = readSlot(map, name, base, problems, read);
  }
  return out;
}

function readLossRatio(value: unknown, path: string, problems: Problems): number | undefined {
  const ratio = readNumber(value, path, problems);
  if (ratio === undefined || (ratio > 0 && ratio <= 1)) return ratio;
  problems.add(path, `must be a ratio above 0 and at most 1 (0.5 = 50 % loss), not ${ratio}`);
  return undefined;
}

const TIMEOUT_LIMIT = {
  atMost: {
    seconds: ROUTER_COMMAND_LIMIT_SECONDS,
    exclusive: true,
    why: `must be below the router's ${ROUTER_COMMAND_LIMIT_SECONDS}s limit on one request`,
  },
};

/**
 * `tls.server_name`: the name the router's certificate is checked against, so a host name or an address. Any text
 * was taken (`a b`), and failed only at the router's first connect, as a certificate that does not match (found by
 * a hostile tester).
 */
function readServerName(value: unknown, path: string, problems: Problems): string | undefined {
  const text = readString(value, path, problems);
  if (text === undefined || isCertificateName(text) || isIpAddress(text)) return text;
  problems.add(path, `${quoteValue(text)} is not a host name or IP address (the name the router's certificate holds)`);
  return undefined;
}

/** The settings keys of a mapping whose keys the caller has already checked. */
export function readSettings(map: RawMap, base: string, problems: Problems): SettingsLayer {
  const tlsBase = joinPath(base, 'tls');
  const healthBase = joinPath(base, 'health');
  const tls = readMap(map.tls ?? null, tlsBase, problems, TLS_KEYS) ?? {};
  const health = readMap(map.health ?? null, healthBase, problems, HEALTH_KEYS) ?? {};
  return {
    username: readSlot(map, 'username', base, problems, readString),
    password: readPassword(map, base, problems),
    timeout: readSlot(map, 'timeout', base, problems, (v, p, s) => readDuration(v, p, s, TIMEOUT_LIMIT)),
    idleConnection: readSlot(map, 'idle_connection', base, problems, (v, p, s) => readEnum(v, p, s, IDLE_CONNECTIONS)),
    tls: {
      caFile: readSlot(tls, 'ca_file', tlsBase, problems, readString),
      serverName: readSlot(tls, 'server_name', tlsBase, problems, readServerName),
      insecureSkipVerify: readSlot(tls, 'insecure_skip_verify', tlsBase, problems, readBoolean),
    },
    schedules: Object.hasOwn(map, 'schedules') ? readCollectorMap(map.schedules, joinPath(base, 'schedules'), problems, readCron) : {},
    collectors: Object.hasOwn(map, 'collectors') ? readCollectorMap(map.collectors, joinPath(base, 'collectors'), problems, readBoolean) : {},
    health: {
      handshakeStaleAfter: readSlot(health, 'handshake_stale_after', healthBase, problems, (v, p, s) => readDuration(v, p, s)),
      pingLossCritical: readSlot(health, 'ping_loss_critical', healthBase, problems, readLossRatio),
      excludePeers: readSlot(health, 'exclude_peers', healthBase, problems, readStringList),
      excludePeerPattern: readSlot(health, 'exclude_peer_pattern', healthBase, problems, readPattern),
      expect: readSlot(health, 'expect', healthBase, problems, readExpect),
      probeTunnels: readSlot(health, 'probe_tunnels', healthBase, problems, readProbeDefault),
      probe: readSlot(health, 'probe', healthBase, problems, readProbeMap),
      probeCount: readSlot(health, 'probe_count', healthBase, problems, readProbeCount),
    },
    ping: readSlot(map, 'ping', base, problems, readPingList),
    bandwidthTest: readSlot(map, 'bandwidth_test', base, problems, readBandwidthList),
    interfaces: readInterfaceLayer(map, base, problems),
    labels: Object.hasOwn(map, 'labels') ? readLabels(map.labels, joinPath(base, 'labels'), problems) : {},
  };
}
