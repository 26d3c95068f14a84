/**
 * Everything one emulated router knows: version, users, menus, ping and btest behaviour, boot
 * time. It is the RouterContext the menus share, and owns reboot (a state change, not a restart
 * of the HTTPS server).
 */
import { AddressMenu } from '../menus/address.js';
import { PackageUpdateMenu, RouterboardMenu } from '../menus/firmware.js';
import { healthMenu } from '../menus/health.js';
import { EthernetMenu } from '../menus/ethernet.js';
import { InterfaceMenu } from '../menus/interface.js';
import { Links } from '../menus/links.js';
import { FirewallFilterMenu } from '../menus/firewall.js';
import { InterfaceListMemberMenu, InterfaceListMenu } from '../menus/interface-list.js';
import { IdentityMenu } from '../menus/identity.js';
import { PeersMenu } from '../menus/peers.js';
import { ResourceMenu } from '../menus/resource.js';
import { RouteMenu } from '../menus/route.js';
import type { Menu, RouterContext } from '../menus/types.js';
import { WireguardMenu } from '../menus/wireguard.js';
import type { BandwidthServer, HealthFaults, HealthSeed, LinkSeed, PingBehaviour, RouterSeed, UserSeed } from '../types.js';
import { hash32, Rng } from '../util/rng.js';
import { atLeast, parseVersion } from '../util/version.js';
import type { RosVersion } from '../util/version.js';
import { Users } from './users.js';
import { isIPv4 } from 'node:net';
import { ipv4ToInt, parsePrefix } from '../util/ip.js';

export interface RouterStateOptions {
  now: () => number;
  /** The emulator's start instant: uptime and peer histories count back from it. */
  start: number;
  seed: number;
  users: readonly UserSeed[];
}

export class RouterState implements RouterContext {
  readonly name: string;
  readonly version: RosVersion;
  readonly rng: Rng;
  readonly now: () => number;
  readonly users: Users;
  readonly links: Links;
  readonly interfaces: InterfaceMenu;
  readonly ethernetMenu: EthernetMenu;
  readonly health: Menu;
  /** Absent on CHR (the menu answers 400, like dumbmonit's capture). */
  readonly routerboard: RouterboardMenu | undefined;
  readonly packageUpdate: PackageUpdateMenu;
  /** Sensor faults set through the control API (EmulatedRouter.setHealth). */
  healthFaults: HealthFaults = {};
  /** Commands that would contact the outside or flash firmware: recorded, never run. */
  readonly outsideCalls: string[] = [];
  readonly missingMenus: ReadonlySet<string>;
  readonly ping: ReadonlyMap<string, PingBehaviour>;
  readonly bandwidthServers: ReadonlyMap<string, BandwidthServer>;
  readonly identity: IdentityMenu;
  readonly resource: ResourceMenu;
  readonly wireguard: WireguardMenu;
  readonly peers: PeersMenu;
  readonly addresses: AddressMenu;
  readonly routes: RouteMenu;
  readonly filter: FirewallFilterMenu;
  readonly interfaceLists: InterfaceListMenu;
  readonly interfaceListMembers: InterfaceListMemberMenu;
  /** Probes per ping target and runs per btest server, so patterns continue across requests. */
  readonly runCounters = new Map<string, number>();
  #bootAt: number;

  constructor(seed: RouterSeed, options: RouterStateOptions) {
    this.name = seed.name;
    this.version = parseVersion(seed.version ?? '7.19.4');
    this.rng = new Rng(hash32(options.seed, seed.name));
    this.now = options.now;
    this.users = new Users(seed.users ?? options.users);
    this.missingMenus = new Set((seed.missingMenus ?? []).map((m) => m.replace(/^\/+|\/+$/g, '')));
    this.ping = new Map(Object.entries(seed.ping ?? {}));
    this.bandwidthServers = new Map(Object.entries(seed.bandwidthServers ?? {}));
    const uptime = seed.uptimeSeconds ?? 200_000 + (hash32(seed.name, 'uptime') % 400_000);
    this.#bootAt = options.start - uptime * 1000;
    this.identity = new IdentityMenu(seed.identity ?? seed.name);
    this.resource = new ResourceMenu(this, seed.name, seed.channel ?? 'stable', seed.board ?? {});
    const boardName = seed.board?.boardName ?? 'CHR';
    const hardware = !boardName.startsWith('CHR');
    this.links = new Links(this, linkSeeds(seed, this.version), options.start, hardware);
    // Interface ids share one namespace on RouterOS: the links come first, WireGuard after them.
    this.wireguard = new WireguardMenu(this, () => this.links.names(), this.links.table.nextId());
    this.peers = new PeersMenu(this);
    this.interfaces = new InterfaceMenu(this, this.links, this.wireguard, (now) => this.#wgTraffic(now));
    this.ethernetMenu = new EthernetMenu(this, this.links, this.interfaces);
    const health: HealthSeed = seed.health ?? (hardware ? { form: 'rows' } : { form: 'object' });
    this.health = healthMenu(seed.name, health, () => this.healthFaults);
    this.routerboard =
      seed.routerboard === false || (!hardware && seed.routerboard === undefined)
        ? undefined
        : new RouterboardMenu(seed.name, boardName, this.version, seed.routerboard ?? {});
    this.packageUpdate = new PackageUpdateMenu(this.version, seed.channel ?? 'stable', seed.packageUpdate ?? {});
    this.addresses = new AddressMenu(this);
    this.routes = new RouteMenu(this);
    this.filter = new FirewallFilterMenu(this);
    this.interfaceLists = new InterfaceListMenu(this);
    this.interfaceListMembers = new InterfaceListMemberMenu(this, this.interfaceLists);
  }

  bootAt(): number {
    return this.#bootAt;
  }

  /** Names of the non-WireGuard interfaces (targets of addresses and rules). */
  get ethernet(): string[] {
    return this.links.names();
  }

  interfaceNames(): string[] {
    return [...this.links.names(), ...this.wireguard.names()];
  }

  connectedInterfaceOf(ip: string): string | undefined {
    if (!isIPv4(ip)) return undefined;
    const target = ipv4ToInt(ip);
    for (const entry of this.addresses.entries()) {
      if (entry.values['disabled'] === 'true') continue;
      const prefix = parsePrefix(entry.values['address'] ?? '');
      if (prefix?.family !== 4) continue;
      const mask = prefix.length === 0 ? 0 : (0xffffffff << (32 - prefix.length)) >>> 0;
      if (((ipv4ToInt(prefix.address) & mask) >>> 0) === ((target & mask) >>> 0)) return entry.values['interface'];
    }
    return undefined;
  }

  /** rx/tx sums of the peers of each WireGuard interface (the interface's own counters). */
  #wgTraffic(now: number): Map<string, { rx: bigint; tx: bigint }> {
    const out = new Map<string, { rx: bigint; tx: bigint }>();
    for (const peer of this.peers.entries()) {
      const name = peer.values['interface'] ?? '';
      const { rx, tx } = peer.sim.counters(now);
      const sum = out.get(name);
      if (sum === undefined) out.set(name, { rx: BigInt(rx), tx: BigInt(tx) });
      else {
        sum.rx += BigInt(rx);
        sum.tx += BigInt(tx);
      }
    }
    return out;
  }

  /** Records a command that would contact the outside or flash firmware (the emulator never does either). */
  recordOutsideCall(path: string): void {
    this.outsideCalls.push(path);
  }

  wgInterfaceNames(): string[] {
    return this.wireguard.names();
  }

  renameInterface(from: string, to: string): void {
    this.peers.renameInterface(from, to);
    this.addresses.renameInterface(from, to);
    this.routes.renameInterface(from, to);
    this.filter.renameInterface(from, to);
    this.interfaceListMembers.renameInterface(from, to);
  }

  /**
   * Inferred (no source shows it): like other RouterOS references to a removed object, peers,
   * addresses, routes and rules stay and name the interface by its old id (`*7`); the peers stop
   * (no handshake, counters frozen) since their interface is gone.
   */
  interfaceRemoved(name: string, id: string): void {
    const now = this.now();
    for (const peer of this.peers.entries()) if (peer.values['interface'] === name) peer.sim.disable(now);
    this.renameInterface(name, id);
  }

  wgInterfaceSwitched(name: string): void {
    for (const peer of this.peers.entries()) if (peer.values['interface'] === name) this.peers.follow(peer);
  }

  wgInterfaceDown(name: string): boolean {
    const iface = this.wireguard.byName(name);
    return iface === undefined || iface.values['disabled'] === 'true';
  }

  /** Uptime restarts, counters fall to 0, handshakes reset. */
  reboot(): void {
    const t = this.now();
    this.#bootAt = t;
    for (const peer of this.peers.entries()) peer.sim.reboot(t);
    this.links.reboot(t);
  }
}

/**
 * The link list: `lo` first (it is `*1` on 7.23.7; shown from 7.18, inferred), then `ethernet`
 * ports (default ether1, ether2 when no `links` are given), then `links`.
 */
function linkSeeds(seed: RouterSeed, version: ReturnType<typeof parseVersion>): LinkSeed[] {
  const out: LinkSeed[] = [];
  if (seed.loopback ?? atLeast(version, '7.18')) out.push({ name: 'lo', type: 'loopback' });
  const ports = seed.ethernet ?? (seed.links === undefined ? ['ether1', 'ether2'] : []);
  for (const name of ports) out.push({ name });
  out.push(...(seed.links ?? []));
  return out;
}
