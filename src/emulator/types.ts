/**
 * Public types of the RouterOS 7 REST emulator: start options, router seeds, faults and handles.
 * Everything a test or the `demo` command needs to describe a router set-up lives here.
 */

/** RouterOS user policies (real-formats §9). Users get all of them unless told otherwise. */
export const ALL_POLICIES = [
  'local', 'telnet', 'ssh', 'ftp', 'reboot', 'read', 'write', 'policy', 'test', 'winbox',
  'password', 'web', 'sniff', 'sensitive', 'api', 'romon', 'rest-api',
] as const;

export interface UserSeed {
  name: string;
  password: string;
  /** Default: every policy in ALL_POLICIES (like the built-in `full` group of `admin`). */
  policies?: string[];
}

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** First router's port; router i listens on port+i. 0 (default) = a free port per router. */
  port?: number;
  /** Default 'demo' when `routers` is not given. */
  scenario?: 'demo' | 'scale';
  /** For 'scale': N routers, each with `interfaces` wg interfaces and `peers` peers in total. */
  scale?: { routers: number; interfaces: number; peers: number };
  /** Explicit set-up; overrides `scenario`. */
  routers?: RouterSeed[];
  /** Default [{ name: 'admin', password: '' }] (spec §5). Each router gets its own copy. */
  users?: UserSeed[];
  /** Else a self-signed certificate for 127.0.0.1, ::1 and localhost is generated at start. */
  tls?: { cert: string; key: string };
  /** The router's 60 s REST command cap (spec §8). Default 60,000. */
  commandTimeoutMs?: number;
  /** Clock in ms; default Date.now. All simulation is derived lazily from it. */
  now?: () => number;
  /** Seed of every generated key and simulated value. Default 1. */
  seed?: number;
  /** When a going-stale peer stops handshaking, after start, unless its seed says. Default 60,000. */
  staleAfterMs?: number;
  /** Serve POST/DELETE /emulator/faults and POST /emulator/reboot (docs/emulator.md). */
  control?: boolean;
  /**
   * How long an idle keep-alive connection stays open, in seconds, announced as `Keep-Alive: timeout=N`.
   * Default 30. Shorter than a client's schedule, every cycle reconnects (what resumption is for).
   */
  keepAliveSeconds?: number;
  /**
   * How a reconnecting client may skip the full TLS handshake: `tickets` (default, stateless session
   * tickets, as Node and most servers), `cache` (a server-side session cache by session id, no tickets),
   * `off` (every connection is a full handshake).
   */
  tlsSessionResumption?: TlsSessionResumption;
}

export type TlsSessionResumption = 'tickets' | 'cache' | 'off';

export interface Emulator {
  readonly routers: EmulatedRouter[];
  /** Throws on an unknown name. */
  router(name: string): EmulatedRouter;
  /** PEM a client can trust. */
  readonly ca: string;
  /**
   * Resolves once every router's state is built. Scale-scenario routers are built in the
   * background after start (or on first use); explicit and demo routers are ready at once.
   */
  readonly ready: Promise<void>;
  /** Closes every server, connection and pending (hung) request. */
  close(): Promise<void>;
}

/** A rendered RouterOS record: every value a string. */
export type Row = Record<string, string>;

export interface RouterStats {
  /** TLS connections accepted since start (full handshakes + resumed). */
  connections: number;
  /** Of those, the ones that resumed an earlier TLS session (no certificate, no key exchange signature). */
  resumed: number;
  /** HTTP requests received since start (all paths). */
  requests: number;
}

export interface EmulatedRouter {
  readonly name: string;
  /** https://HOST:PORT — the client appends /rest. */
  readonly url: string;
  readonly port: number;
  readonly version: string;
  readonly stats: Readonly<RouterStats>;
  /** TCP connections open now (idle keep-alive ones included). */
  readonly openConnections: number;
  setFaults(faults: Faults | Faults[]): void;
  clearFaults(): void;
  /** Uptime restarts, rx/tx fall to 0, handshakes reset; optionally with the post-boot REST race. */
  reboot(options?: RebootOptions): void;
  /** Stop listening (connection refused) / listen again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Rows of a menu as a full-policy user sees them now (e.g. 'interface/wireguard/peers'). */
  rows(menu: string): Row[];
  /** One row by `*ID` or name, as `rows` renders it; undefined when absent. */
  row(menu: string, ref: string): Row | undefined;
  /** The current password of a user (tests of POST /password). */
  password(user: string): string | undefined;
  /** Sensor faults from now on (replaces the previous ones); {} restores health. */
  setHealth(faults: HealthFaults): void;
  /** Pulls (false) or plugs back (true) the cable of a non-WireGuard interface now; false if no such interface. */
  setLink(name: string, up: boolean): boolean;
  /**
   * Commands that would contact the outside or change firmware (`system/package/update/check-for-updates`,
   * `…/download`, `…/install`, `system/routerboard/upgrade`), in call order: the emulator only records them.
   */
  outsideCalls(): readonly string[];
}

export interface RebootOptions {
  /**
   * Real routers answer oddly for a short while after boot (real-formats §1): for the first half
   * of this many milliseconds (real time) every /rest request gets 401, for the second half a 200
   * with the wrong body (a /user list). Default 0: REST is up at once.
   */
  raceMs?: number;
}

export interface WgInterfaceSeed {
  name: string;
  listenPort?: number;
  mtu?: number;
  /** Base64; generated (X25519) when absent. */
  privateKey?: string;
  comment?: string;
  disabled?: boolean;
}

/**
 * How a peer's handshakes behave over time.
 * - live: re-handshakes about every 2 minutes;
 * - never: no handshake ever (`last-handshake` absent);
 * - stale: last handshook `staleForSeconds` (default 600) before start, never since;
 * - going-stale: live at start, stops after `staleAfterSeconds` (default: the emulator's staleAfterMs).
 */
export type PeerLife = 'live' | 'never' | 'stale' | 'going-stale';

export interface PeerSeed {
  interface: string;
  /** Base64; random when absent. */
  publicKey?: string;
  /** RouterOS 7.15+ only; auto `peerN` there when absent. */
  name?: string;
  comment?: string;
  allowedAddress?: string[];
  endpointAddress?: string;
  endpointPort?: number;
  /** Seconds; 0 = off. */
  persistentKeepalive?: number;
  presharedKey?: string;
  disabled?: boolean;
  /** `is-responder` on 7.15–7.16, `responder` on 7.17+. */
  responder?: boolean;
  life?: PeerLife;
  staleForSeconds?: number;
  staleAfterSeconds?: number;
  /** Traffic while connected, bytes per second. */
  rxRate?: number;
  txRate?: number;
  /**
   * Rx while not connected, bytes per second: the far end's handshake initiations arriving while none completes (a
   * link both sides keep trying over a path that fails one way). Default 0.
   */
  idleRxRate?: number;
  /**
   * A healthy idle tunnel (life `stale`: its last handshake `staleForSeconds` before start) that this side wakes
   * `afterSeconds` after start: it sends a handshake initiation (148 B of tx), nothing while idle before (no trickle of
   * initiations), and each of `lostResponses` (default 0) lost responses costs a retry 5 s later (148 B more); the last
   * is answered (92 B of rx) a round trip later, the handshake made then, and the peer is live from there.
   */
  wake?: { afterSeconds: number; lostResponses?: number };
  /** Counters at start (decimal strings allow values past 2^53). */
  rx?: number | string;
  tx?: number | string;
}

export interface AddressSeed {
  address: string;
  interface: string;
  comment?: string;
  disabled?: boolean;
}

export interface RouteSeed {
  dstAddress: string;
  gateway: string;
  distance?: number;
  comment?: string;
  disabled?: boolean;
}

export interface FirewallRuleSeed {
  chain: string;
  action?: string;
  protocol?: string;
  dstPort?: string;
  srcAddress?: string;
  dstAddress?: string;
  inInterface?: string;
  inInterfaceList?: string;
  connectionState?: string;
  comment?: string;
  disabled?: boolean;
}

export interface InterfaceListSeed {
  name: string;
  /** Comma-separated names of other lists. */
  include?: string;
  exclude?: string;
  comment?: string;
}

export interface InterfaceListMemberSeed {
  list: string;
  interface: string;
  comment?: string;
  disabled?: boolean;
}

/** What a ping to an address does. Addresses without an entry time out. */
export type PingBehaviour =
  | { kind: 'reachable'; rttMs: number; jitterMs?: number; ttl?: number }
  | { kind: 'lossy'; rttMs: number; loss: number; jitterMs?: number; ttl?: number }
  | { kind: 'timeout' }
  /** Rows with status `host unreachable`, `host` being the router `from` that sent the ICMP error. */
  | { kind: 'host-unreachable'; from: string };

/** A btest server at an address. Addresses without an entry answer `can not connect`. */
export type BandwidthServer =
  | { kind: 'ok'; rxBps: number; txBps: number; lostPerSecond?: number; user?: string; password?: string }
  | { kind: 'fail'; status: string };

export interface BoardSeed {
  boardName?: string;
  architecture?: string;
  cpu?: string;
  cpuCount?: number;
  cpuFrequencyMhz?: number;
  totalMemory?: number;
  totalHdd?: number;
  factorySoftware?: string;
  /** NAND boards report `bad-blocks`. */
  nand?: boolean;
  /**
   * Disk filling up (logs, a growing file): free-hdd-space falls by this many bytes per second of uptime, and
   * "rotates" back up when it reaches 20 % free. Default 0: the disk stays as it is.
   */
  diskFillBytesPerSecond?: number;
  /**
   * A memory leak: free-memory falls by this many bytes per second (on top of its wander) through 60 % of
   * total-memory, then is given back at once, as when the leaking process restarts. Default 0.
   */
  memoryLeakBytesPerSecond?: number;
}

/** `type` of a non-WireGuard interface as `/interface` prints it. */
export type LinkType = 'ether' | 'bridge' | 'vlan' | 'loopback' | 'pppoe-in' | 'l2tp-in';

/**
 * A non-WireGuard interface (docs/emulator.md, "Interfaces"). Counters grow lazily at the rates while the
 * link is up and enabled, from the last boot.
 */
export interface LinkSeed {
  name: string;
  /** Default 'ether'. pppoe-in / l2tp-in rows are dynamic (a client's session). */
  type?: LinkType;
  comment?: string;
  disabled?: boolean;
  /** Default 1500 (bridge: 'auto', loopback 65536, pppoe-in/l2tp-in 1480). */
  mtu?: number | 'auto';
  /** Uppercase hex; derived from the name when absent (bridges take their first port's, vlans their parent's). */
  macAddress?: string;
  /** Traffic while up, bytes per second (rx = received by the router). Default a few KB/s from the name. */
  rxRate?: number;
  txRate?: number;
  /** rx-error per million packets; rx-drop and tx-queue-drop follow at half that rate. Default 0. */
  errorsPerMillion?: number;
  /** A port of a bridge (prints `slave: "true"`). */
  bridge?: string;
  /** vlan: the parent interface and the VLAN id. */
  parent?: string;
  vlanId?: number;
  /** Ethernet: configured `speed` and the link rate `monitor` reports. Default '1Gbps'. */
  rate?: '10Mbps' | '100Mbps' | '1Gbps' | '2.5Gbps' | '10Gbps';
  /** No cable (running false, no last-link-up-time) from start on. */
  noLink?: boolean;
  /** Link-down events: [seconds after emulator start, seconds down] (negative = before start). */
  linkDowns?: [number, number][];
  /** Dynamic sessions: connected this many seconds before start (default 3600). */
  sessionAgeSeconds?: number;
}

/** Rows of a hardware `/system/health` (RouterOS 7 list form). */
export interface HealthSensors {
  /** Board temperature, °C (cpu-temperature runs ~8 °C above). Default 38. */
  temperatureC?: number;
  /** Supply voltage, V. Default 24. */
  voltageV?: number;
  /** Number of fans (`fanN-speed` rows, RPM). Default 0. */
  fans?: number;
  /** Number of PSUs (`psuN-state` rows, ok/fail). Default 0. */
  psus?: number;
  /** Adds `power-consumption` (W) and `current` (A) rows. Default false. */
  power?: boolean;
}

/**
 * The reply form of `/system/health` (docs/emulator.md, "Health"):
 * - rows: RouterOS 7 hardware, a list of `{".id","name","value","type"}`;
 * - object: CHR 7.23.7, the bare object `{"state":"disabled","state-after-reboot":"enabled"}`;
 * - legacy-object: older firmware's bare object of sensor values (`{"temperature":"38","voltage":"24.1"}`);
 * - none: a device without sensors, the empty list `[]`.
 */
export type HealthForm = 'rows' | 'object' | 'legacy-object' | 'none';

export interface HealthSeed extends HealthSensors {
  form: HealthForm;
}

/** What the control API or EmulatedRouter.setHealth changes in the sensors (alert tests). */
export interface HealthFaults {
  /** Added to every temperature, °C. */
  temperatureRiseC?: number;
  /** 1-based fan numbers that stopped (speed 0). */
  failedFans?: number[];
  /** 1-based PSU numbers that failed (`psuN-state` `fail`). */
  failedPsus?: number[];
}

/** `/system/routerboard` of a hardware router; CHR has no such menu (400). */
export interface RouterboardSeed {
  model?: string;
  serialNumber?: string;
  firmwareType?: string;
  factoryFirmware?: string;
  /** Default: the RouterOS version. Older than upgradeFirmware = an upgrade pending. */
  currentFirmware?: string;
  /** Default: the RouterOS version. */
  upgradeFirmware?: string;
}

/** `/system/package/update`: what the last (pretend) check found. */
export interface PackageUpdateSeed {
  /** Newer than the running version = `New version is available`; false = never checked. Default: the running version. */
  latestVersion?: string | false;
  /** The update channel it follows. Default: the running version's channel. */
  channel?: string;
}

export interface RouterSeed {
  /** Handle name and default identity. */
  name: string;
  identity?: string;
  /** e.g. '7.19.4'; default '7.19.4'. */
  version?: string;
  /** Default 'stable'. */
  channel?: 'stable' | 'long-term' | 'testing' | 'development';
  board?: BoardSeed;
  /** Uptime at start; default a few days, derived from the name. */
  uptimeSeconds?: number;
  /** Ethernet ports by name (shorthand for `links` of type ether). Default ['ether1', 'ether2'] when `links` is absent. */
  ethernet?: string[];
  /** Non-WireGuard interfaces in `/interface` order, after `ethernet` (docs/emulator.md, "Interfaces"). */
  links?: LinkSeed[];
  /** The loopback `lo` row (RouterOS 7.18+ by default; inferred). */
  loopback?: boolean;
  /** Default: `object` on a CHR board (the default board), `rows` with a temperature and voltage otherwise. */
  health?: HealthSeed;
  /** Default: present on hardware boards, absent (400) on CHR. false = absent. */
  routerboard?: RouterboardSeed | false;
  packageUpdate?: PackageUpdateSeed;
  interfaces?: WgInterfaceSeed[];
  peers?: PeerSeed[];
  addresses?: AddressSeed[];
  routes?: RouteSeed[];
  firewall?: FirewallRuleSeed[];
  /** `interface/list` lists besides the four built-in ones. Absent: defconf's `WAN` and `LAN`. */
  interfaceLists?: InterfaceListSeed[];
  /**
   * `interface/list/member` rows. Absent: defconf's, `ether1` in `WAN` and `bridge` in `LAN`, each when the router
   * has that interface and list.
   */
  interfaceListMembers?: InterfaceListMemberSeed[];
  /** Menus this router lacks, e.g. ['interface/wireguard'] (answers 400 no such command). */
  missingMenus?: string[];
  ping?: Record<string, PingBehaviour>;
  bandwidthServers?: Record<string, BandwidthServer>;
  /** Overrides EmulatorOptions.users for this router. */
  users?: UserSeed[];
}

/** A forced status: a number, or a number with the RouterOS `detail` text. */
export type ForcedStatus = number | { code: number; detail?: string };

/**
 * A reply that is not data in place of a successful one (what a captive portal, a proxy or a misconfigured
 * service sends): `status` (a 3xx, a 2xx such as 200 or 204, a 304) with an empty body, with the menu's real
 * JSON when `body` is 'data', or with `text` (a proxy's broken JSON that quotes what it was sent);
 * `contentType` replaces application/json, `location` adds a Location header.
 */
export interface ReplyFault {
  status: number;
  body?: 'empty' | 'data';
  contentType?: string;
  location?: string;
  text?: string;
}

/**
 * Faults injected into replies under /rest. A set applies to every request unless `path`
 * limits it to paths (after /rest) starting with that prefix; pass several sets for several scopes.
 */
export interface Faults {
  path?: string;
  /** Delay before answering (still subject to the command cap). */
  latencyMs?: number;
  /** Accept the request and never answer until the client or close() ends it. */
  hang?: boolean;
  /**
   * Close a kept-alive connection instead of answering the requests after its first, as a router does whose
   * idle timer fires as a request arrives; a new connection's first request is answered.
   */
  closeKept?: boolean;
  /** Path prefix → forced status with a RouterOS-style error body. */
  status?: Record<string, ForcedStatus>;
  /** 200 with syntactically broken JSON (correct Content-Length). */
  brokenJson?: boolean;
  /** Fewer bytes than Content-Length, then the connection closes. */
  truncated?: boolean;
  /** A valid-looking JSON body of at least this many bytes. */
  oversizedBytes?: number;
  /**
   * Valid JSON of at least this many bytes made of empty records, `[{},{},…]`: millions of values, more per byte
   * than RouterOS ever writes (a reply whose parse would cost seconds and hundreds of MB).
   */
  valueFloodBytes?: number;
  /** An object where a list is expected and the reverse. */
  wrongShape?: boolean;
  /** A WebFig HTML page with status 200. */
  html?: boolean;
  /** Drip the body over this many milliseconds. */
  slowBodyMs?: number;
  /** cp1252 bytes (invalid UTF-8) inside a comment. */
  invalidUtf8?: boolean;
  /** A raw ESC (0x1b) inside a JSON string. */
  controlChars?: boolean;
  /** Values in forms a client cannot decode (`"last-handshake":"soon"`, `"rx":"5.3KiB"`). */
  unknownFormats?: boolean;
  /** Successful replies replaced by one that is not data (ReplyFault). */
  reply?: ReplyFault;
  /** A 500 whose detail quotes the request's Authorization header, like a router or proxy that echoes headers. */
  echoAuthorization?: boolean;
  /** A 500 whose detail is this many characters laced with terminal escapes, C1 controls and bidi overrides. */
  noisyErrorChars?: number;
}
