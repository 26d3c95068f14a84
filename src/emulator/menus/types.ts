/** The interfaces between the REST dispatcher and the menus of one emulated router. */
import type { Params } from '../rest/values.js';
import type { Row } from '../types.js';
import type { RosVersion } from '../util/version.js';
import type { Rng } from '../util/rng.js';

/** What a reader may see, and the instant every simulated value is computed for. */
export interface View {
  readonly sensitive: boolean;
  readonly now: number;
}

export interface ListMenu {
  readonly kind: 'list';
  /** Records may be addressed by `name` in the path. */
  readonly named: boolean;
  /** The console has `remove` here (else DELETE → 406). */
  readonly removable: boolean;
  rows(view: View): Row[];
  /** `*ID` or (named menus) a name → id. */
  find(ref: string): number | undefined;
  row(id: number, view: View): Row | undefined;
  add(params: Params): number;
  set(id: number, params: Params): void;
  remove(id: number): void;
}

export interface SingletonMenu {
  readonly kind: 'singleton';
  row(view: View): Row;
  /** Absent where the console has no `set` (system/resource). */
  set?(params: Params): void;
}

export type Menu = ListMenu | SingletonMenu;

/** Router-wide facts and services the menus share. */
export interface RouterContext {
  readonly version: RosVersion;
  /** Seeded source of generated keys. */
  readonly rng: Rng;
  now(): number;
  /** Time (ms, on the emulator clock) of the last boot. */
  bootAt(): number;
  /** Every interface name: ethernet-like ones and WireGuard ones. */
  interfaceNames(): string[];
  wgInterfaceNames(): string[];
  /** The interface whose enabled IPv4 address's network holds `ip` (a route's next hop), if any. */
  connectedInterfaceOf(ip: string): string | undefined;
  /** Follows an interface rename into peers, addresses, routes and rules. */
  renameInterface(from: string, to: string): void;
  /** A removed interface: references keep its old id (`*7`), its peers stop (docs/emulator.md, inferred). */
  interfaceRemoved(name: string, id: string): void;
  /** A WireGuard interface disabled or enabled: its peers stop or go on (a down interface passes no packet). */
  wgInterfaceSwitched(name: string): void;
  /** Whether no WireGuard interface of this name passes packets: it is disabled, or gone (a removed one's `*7`). */
  wgInterfaceDown(name: string): boolean;
}
