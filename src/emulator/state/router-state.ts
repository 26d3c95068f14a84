/**
 * Everything one emulated router knows: version, users, menus, ping and btest behaviour, boot
 * time. It is the RouterContext the menus share, and owns reboot (a state change, not a restart
 * of the HTTPS server).
 */
import { AddressMenu } from '../menus/address.js';
import { FirewallFilterMenu } from '../menus/firewall.js';
import { IdentityMenu } from '../menus/identity.js';
import { PeersMenu } from '../menus/peers.js';
import { ResourceMenu } from '../menus/resource.js';
import { RouteMenu } from '../menus/route.js';
import type { RouterContext } from '../menus/types.js';
import { WireguardMenu } from '../menus/wireguard.js';
import type { BandwidthServer, PingBehaviour, RouterSeed, UserSeed } from '../types.js';
import { hash32, Rng } from '../util/rng.js';
import { parseVersion } from '../util/version.js';
import type { RosVersion } from '../util/version.js';
import { Users } from './users.js';

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
  readonly ethernet: readonly string[];
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
  /** Probes per ping target and runs per btest server, so patterns continue across requests. */
  readonly runCounters = new Map<string, number>();
  #bootAt: number;

  constructor(seed: RouterSeed, options: RouterStateOptions) {
    this.name = seed.name;
    this.version = parseVersion(seed.version ?? '7.19.4');
    this.rng = new Rng(hash32(options.seed, seed.name));
    this.now = options.now;
    this.users = new Users(seed.users ?? options.users);
    this.ethernet = seed.ethernet ?? ['ether1', 'ether2'];
    this.missingMenus = new Set((seed.missingMenus ?? []).map((m) => m.replace(/^\/+|\/+$/g, '')));
    this.ping = new Map(Object.entries(seed.ping ?? {}));
    this.bandwidthServers = new Map(Object.entries(seed.bandwidthServers ?? {}));
    const uptime = seed.uptimeSeconds ?? 200_000 + (hash32(seed.name, 'uptime') % 400_000);
    this.#bootAt = options.start - uptime * 1000;
    this.identity = new IdentityMenu(seed.identity ?? seed.name);
    this.resource = new ResourceMenu(this, seed.name, seed.channel ?? 'stable', seed.board ?? {});
    // Interface ids share one namespace on RouterOS: the ethernet ones come first.
    this.wireguard = new WireguardMenu(this, () => [...this.ethernet], this.ethernet.length + 1);
    this.peers = new PeersMenu(this);
    this.addresses = new AddressMenu(this);
    this.routes = new RouteMenu(this);
    this.filter = new FirewallFilterMenu(this);
  }

  bootAt(): number {
    return this.#bootAt;
  }

  interfaceNames(): string[] {
    return [...this.ethernet, ...this.wireguard.names()];
  }

  wgInterfaceNames(): string[] {
    return this.wireguard.names();
  }

  renameInterface(from: string, to: string): void {
    this.peers.renameInterface(from, to);
    this.addresses.renameInterface(from, to);
    this.routes.renameInterface(from, to);
    this.filter.renameInterface(from, to);
  }

  /** Uptime restarts, counters fall to 0, handshakes reset. */
  reboot(): void {
    const t = this.now();
    this.#bootAt = t;
    for (const peer of this.peers.entries()) peer.sim.reboot(t);
  }
}
