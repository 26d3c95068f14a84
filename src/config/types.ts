/**
 * The resolved configuration: what the rest of the daemon sees after the YAML was parsed, validated,
 * interpolated and `defaults` merged into each router. Durations are in seconds, secrets are `Secret`s.
 */
import type { PeerPattern } from '../util/pattern.js';
import type { Secret } from '../util/secret.js';
import type { InterfaceFilter } from './interfaces.js';

/** Names of the collectors a router can run (each has its own schedule key), from the collector catalog. */
export { COLLECTOR_NAMES, type CollectorName } from '../collectors/descriptors.js';
export { ConfigError, MAX_PROBLEMS_LISTED, type ConfigProblem } from './problems.js';
import type { CollectorName } from '../collectors/descriptors.js';

export interface TlsConfig {
  /** Path of a PEM bundle to trust, as written in the config (resolved against the config's folder). */
  caFile?: string;
  /** The PEM text read from caFile at load time. */
  ca?: string;
  /** SNI and certificate name to check instead of the URL's host. */
  serverName?: string;
  /** Off by default; when on, the daemon logs a warning for the router at start. */
  insecureSkipVerify: boolean;
}

export interface HealthConfig {
  /** A peer whose latest handshake is older than this is unhealthy. */
  handshakeStaleAfterSeconds: number;
  /** Ping loss ratio (0–1) at or above which a ping target is critical. */
  pingLossCritical: number;
  /** Peers reported but not judged: exact peer names (or comments when a peer has no name). */
  excludePeers: string[];
  /**
   * Peers reported but not judged: a pattern (a linear-time subset of regular expressions, see
   * src/util/pattern.ts) that must match the peer's whole name or comment.
   */
  excludePeerPattern?: PeerPattern;
  /**
   * `health.expect`: peer names (or comments) and interface names → what is expected of them; a peer's own
   * entry wins over its interface's. Absent or `auto`: inferred from keepalive and traffic (analysis/liveness.ts).
   */
  expect?: Readonly<Record<string, ExpectMode>>;
  /**
   * `health.probe_tunnels`: which peers the data-plane probe pings when `health.probe` does not name them
   * (collectors/wireguard-probe.ts): `auto` (absent) those declared `expect: always`; `on` (`true`) every peer
   * expected up, keepalive ones too; `off` (`false`) none.
   */
  probeTunnels?: ProbeDefault;
  /** `health.probe`: peer names (or comments) and interface names → probed or not; a peer's entry wins. */
  probe?: Readonly<Record<string, boolean>>;
  /** `health.probe_count`: pings per probe, 1–3 (absent: 1). */
  probeCount?: number;
}

/** `health.probe_tunnels`, the router-wide default of the data-plane probe. */
export type ProbeDefault = 'auto' | 'on' | 'off';
/** `health.probe_count`'s bounds: a probe is a liveness check, not a measurement (RouterOS CPUs are small). */
export const PROBE_COUNT_MAX = 3;

/** What the operator expects of a peer's tunnel: `auto` infers it from keepalive and traffic. */
export type ExpectMode = 'always' | 'on_demand' | 'auto';
export const EXPECT_MODES: readonly ExpectMode[] = ['always', 'on_demand', 'auto'];

export interface PingTargetConfig {
  target: string;
  /** Label `name`: the configured name, else the target. */
  name: string;
  count: number;
  intervalSeconds: number;
  schedule: string;
  interface?: string;
  srcAddress?: string;
  size?: number;
}

export type BandwidthDirection = 'receive' | 'transmit' | 'both';
export type BandwidthProtocol = 'udp' | 'tcp';

export interface BandwidthTestConfig {
  target: string;
  /** Label `name`: the configured name, else the target. */
  name: string;
  durationSeconds: number;
  schedule: string;
  direction: BandwidthDirection;
  protocol: BandwidthProtocol;
  /** Credentials of the remote btest server, when it asks for them. */
  user?: string;
  password?: Secret;
}

export const IDLE_CONNECTIONS = ['keep', 'close'] as const;
export type IdleConnection = (typeof IDLE_CONNECTIONS)[number];

export interface RouterConfig {
  name: string;
  /** scheme://host[:port] without a trailing slash; the client appends /rest. */
  url: string;
  username: string;
  password: Secret;
  /** Per request. */
  timeoutSeconds: number;
  /**
   * What becomes of a router's connection between collections: `keep` it open for the next one (no TLS handshake
   * per cycle), or `close` it once idle (memory bounded by the runs in flight, one TLS resumption per cycle).
   */
  idleConnection: IdleConnection;
  tls: TlsConfig;
  /** node-cron expressions (a seconds field allowed) per collector; ping/bandwidth_test are defaults for targets. */
  schedules: Record<CollectorName, string>;
  /** Which collectors run for this router. */
  collectors: Record<CollectorName, boolean>;
  health: HealthConfig;
  ping: PingTargetConfig[];
  bandwidthTest: BandwidthTestConfig[];
  /** Which interfaces the `interface` collector exports (`interfaces:`). */
  interfaces: InterfaceFilter;
  /**
   * `labels:` merged over `defaults.labels`: put on every series of the router after `router` (names checked
   * at load: valid, and none the exporter sets itself).
   */
  labels: Record<string, string>;
}

/** One entry of a profile's `targets:` allow list (src/config/allow-list.ts parses, src/discovery/allow.ts matches). */
export type AllowEntry =
  | { kind: 'network'; text: string; family: 'ipv4' | 'ipv6'; address: string; prefix: number }
  /** Lower-case labels, each exact or with one `*` inside it; `anyDepth` (`**.` in front): any labels before them. */
  | { kind: 'host'; text: string; labels: string[]; anyDepth: boolean };

/**
 * `profiles.NAME`: how to poll routers Prometheus names on `/probe?target=HOST[:PORT]&profile=NAME`
 * (src/discovery). Its settings are a router's over `defaults`; the target gives the name and URL.
 */
export interface ProfileConfig {
  name: string;
  scheme: 'https' | 'http';
  /** What every target discovered under the profile runs; `name` and `url` come from the target. */
  settings: Omit<RouterConfig, 'name' | 'url'>;
  /** The allow list: a target outside it is refused before any connection. Never empty. */
  targets: AllowEntry[];
  /**
   * `ports`: the only ports a target may name (its scheme's default when it names none); absent → any. The allow
   * list trusts a host, not every service on it: a router's REST port, not its neighbour's web server, gets the
   * profile's credentials.
   */
  ports?: number[];
  /** At most this many discovered targets at once; a new one past it is refused as full. */
  maxTargets: number;
  /** `forget_after`: absent → 10 × the longest schedule of the jobs a target runs (src/discovery). */
  forgetAfterSeconds?: number;
}

export interface ShardConfig {
  index: number;
  count: number;
}

export interface Config {
  listen: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Resolved path of the exporter-toolkit web config, if any. */
  webConfigFile?: string;
  /** `--web.enable-lifecycle`: POST /-/reload answers without basic auth users (off by default). */
  enableLifecycle?: boolean;
  shard?: ShardConfig;
  routers: RouterConfig[];
  /** `profiles:` for routers from inventory, in file order; absent when none are configured. */
  profiles?: ProfileConfig[];
  /** Where the config came from (a path, or "<demo>"), for messages. */
  source: string;
}

/** The router's hard limit on one REST command (spec §8). */
export const ROUTER_COMMAND_LIMIT_SECONDS = 60;
/** Pings and bandwidth tests must finish within this, to stay well inside the router's limit. */
export const COMMAND_BUDGET_SECONDS = 45;
