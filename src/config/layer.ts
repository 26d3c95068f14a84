/** The shape of one settings layer (`defaults` or one router) before merging, with where each value came from. */
import type { PeerPattern } from '../util/pattern.js';
import { pick, type Located, type Slot } from './slot.js';
import { mergeInterfaceLayers, type InterfaceLayer } from './interfaces.js';
import type { BandwidthDirection, BandwidthProtocol, CollectorName, ExpectMode, IdleConnection, ProbeDefault } from './types.js';
import { mergeLabels, type LabelsLayer } from './labels.js';

export type PasswordSource =
  | { kind: 'password'; value: string }
  | { kind: 'password_file'; file: string }
  | { kind: 'password_env'; name: string };

export interface PingItem {
  path: string;
  target: string;
  name: string;
  count: number;
  intervalSeconds: number;
  schedule?: Located<string>;
  interface?: string;
  srcAddress?: string;
  size?: number;
}

export interface BandwidthItem {
  path: string;
  target: string;
  name: string;
  durationSeconds: number;
  schedule?: Located<string>;
  direction: BandwidthDirection;
  protocol: BandwidthProtocol;
  user?: string;
  password?: string;
}

export interface SettingsLayer {
  username: Slot<string>;
  password: Slot<PasswordSource>;
  timeout: Slot<number>;
  idleConnection: Slot<IdleConnection>;
  tls: { caFile: Slot<string>; serverName: Slot<string>; insecureSkipVerify: Slot<boolean> };
  schedules: Partial<Record<CollectorName, Slot<string>>>;
  collectors: Partial<Record<CollectorName, Slot<boolean>>>;
  health: {
    handshakeStaleAfter: Slot<number>;
    pingLossCritical: Slot<number>;
    excludePeers: Slot<string[]>;
    excludePeerPattern: Slot<PeerPattern>;
    expect: Slot<Record<string, ExpectMode>>;
    probeTunnels: Slot<ProbeDefault>;
    probe: Slot<Record<string, boolean>>;
    probeCount: Slot<number>;
  };
  ping: Slot<PingItem[]>;
  bandwidthTest: Slot<BandwidthItem[]>;
  interfaces: InterfaceLayer;
  labels: LabelsLayer;
}

function pickEach<K extends string, T>(
  router: Partial<Record<K, Slot<T>>>,
  defaults: Partial<Record<K, Slot<T>>>,
): Partial<Record<K, Slot<T>>> {
  const merged: Partial<Record<K, Slot<T>>> = { ...defaults };
  for (const key of Object.keys(router) as K[]) merged[key] = pick(router[key], defaults[key]);
  return merged;
}

/**
 * A router's layer over `defaults`: the maps (`tls`, `schedules`, `collectors`, `health`, `labels`) merge key by
 * key; every other key, lists included, replaces the default; a password source set on the router
 * replaces the defaults' source whatever its kind (password_file in defaults, password on the router).
 */
export function mergeLayers(defaults: SettingsLayer, router: SettingsLayer): SettingsLayer {
  return {
    username: pick(router.username, defaults.username),
    password: pick(router.password, defaults.password),
    timeout: pick(router.timeout, defaults.timeout),
    idleConnection: pick(router.idleConnection, defaults.idleConnection),
    tls: {
      caFile: pick(router.tls.caFile, defaults.tls.caFile),
      serverName: pick(router.tls.serverName, defaults.tls.serverName),
      insecureSkipVerify: pick(router.tls.insecureSkipVerify, defaults.tls.insecureSkipVerify),
    },
    schedules: pickEach(router.schedules, defaults.schedules),
    collectors: pickEach(router.collectors, defaults.collectors),
    health: {
      handshakeStaleAfter: pick(router.health.handshakeStaleAfter, defaults.health.handshakeStaleAfter),
      pingLossCritical: pick(router.health.pingLossCritical, defaults.health.pingLossCritical),
      excludePeers: pick(router.health.excludePeers, defaults.health.excludePeers),
      excludePeerPattern: pick(router.health.excludePeerPattern, defaults.health.excludePeerPattern),
      expect: pick(router.health.expect, defaults.health.expect),
      probeTunnels: pick(router.health.probeTunnels, defaults.health.probeTunnels),
      probe: pick(router.health.probe, defaults.health.probe),
      probeCount: pick(router.health.probeCount, defaults.health.probeCount),
    },
    ping: pick(router.ping, defaults.ping),
    bandwidthTest: pick(router.bandwidthTest, defaults.bandwidthTest),
    interfaces: mergeInterfaceLayers(defaults.interfaces, router.interfaces),
    labels: mergeLabels(defaults.labels, router.labels),
  };
}
