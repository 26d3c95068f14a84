/**
 * The non-WireGuard interfaces of a router (ether, bridge, vlan, lo, dynamic PPPoE/L2TP sessions):
 * their stored settings, their lazy traffic simulation, and their `/interface` rows in the shapes
 * of the captures (dumbmonit 7.23.7 CHR, Telegraf 7.16 hAP ac²). WireGuard rows come from the
 * wireguard menu; InterfaceMenu merges both.
 */
import { LinkSim } from '../sim/link-sim.js';
import type { Entry } from '../state/table.js';
import { Table } from '../state/table.js';
import type { LinkSeed, LinkType, Row } from '../types.js';
import { formatRouterDate } from '../util/date.js';
import { hash32 } from '../util/rng.js';
import { atLeast } from '../util/version.js';
import type { RouterContext, View } from './types.js';

export interface LinkEntry extends Entry {
  readonly type: LinkType;
  readonly defaultName: string | undefined;
  readonly mac: string;
  readonly slave: boolean;
  readonly rate: string;
  readonly sim: LinkSim;
}

const DEFAULT_MTU: Record<LinkType, string> = { ether: '1500', bridge: 'auto', vlan: '1500', loopback: '65536', 'pppoe-in': '1480', 'l2tp-in': '1450' };
/** When each kind comes up after boot: lo first, ports, then bridges and vlans (the capture's order). */
const UP_DELAY_MS: Record<LinkType, number> = { loopback: 0, ether: 2_000, bridge: 24_000, vlan: 25_000, 'pppoe-in': 0, 'l2tp-in': 0 };

function macOf(name: string): string {
  const h = hash32('mac', name);
  const bytes = [0x48, 0xa9, 0x8a, (h >>> 16) & 0xff, (h >>> 8) & 0xff, h & 0xff];
  return bytes.map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(':');
}

export function isDynamic(type: LinkType): boolean {
  return type === 'pppoe-in' || type === 'l2tp-in';
}

export class Links {
  readonly table = new Table<LinkEntry>();
  /** Hardware boards: ethernet ports have l2mtu / max-l2mtu and fast-path rx counters (hAP capture). */
  readonly #hardware: boolean;

  constructor(
    private readonly router: RouterContext,
    seeds: readonly LinkSeed[],
    start: number,
    hardware: boolean,
  ) {
    this.#hardware = hardware;
    const macs = new Map<string, string>();
    for (const seed of seeds) {
      const type = seed.type ?? 'ether';
      const mac = seed.macAddress ?? this.#mac(seed, type, macs, seeds);
      macs.set(seed.name, mac);
      const sessionStart = start - (seed.sessionAgeSeconds ?? 3600) * 1000;
      const values: Record<string, string> = {
        name: seed.name,
        mtu: String(seed.mtu ?? DEFAULT_MTU[type]),
        disabled: seed.disabled === true ? 'true' : 'false',
      };
      if (seed.comment !== undefined) values['comment'] = seed.comment;
      const downs: [number, number][] = (seed.linkDowns ?? []).map(([at, secs]) => [start + at * 1000, start + (at + secs) * 1000]);
      if (seed.noLink === true) downs.push([-Infinity, Infinity]);
      const rng = hash32('rate', seed.name);
      const idle = type === 'loopback' ? 50 : 200 + (rng % 4000);
      const sim = new LinkSim(
        {
          rxRate: seed.rxRate ?? idle,
          txRate: seed.txRate ?? (type === 'loopback' ? (seed.rxRate ?? idle) : Math.floor(idle * 0.7)),
          rxPacketSize: 900,
          txPacketSize: type === 'loopback' ? 900 : 600,
          errorsPerMillion: seed.errorsPerMillion ?? 0,
          upDelayMs: isDynamic(type) ? Math.max(0, sessionStart - router.bootAt()) : UP_DELAY_MS[type],
          downs,
        },
        router.bootAt(),
      );
      const entry = this.table.insert((id) => ({
        id,
        values,
        type,
        defaultName: type === 'ether' ? seed.name : undefined,
        mac,
        slave: seed.bridge !== undefined,
        rate: seed.rate ?? '1Gbps',
        sim,
      }));
      if (seed.disabled === true) entry.sim.disable(router.bootAt());
    }
  }

  #mac(seed: LinkSeed, type: LinkType, known: Map<string, string>, seeds: readonly LinkSeed[]): string {
    if (type === 'loopback' || isDynamic(type)) return '00:00:00:00:00:00';
    if (type === 'vlan' && seed.parent !== undefined) return known.get(seed.parent) ?? macOf(seed.parent);
    if (type === 'bridge') {
      const port = seeds.find((s) => s.bridge === seed.name);
      if (port !== undefined) return port.macAddress ?? macOf(port.name);
    }
    return macOf(seed.name);
  }

  names(): string[] {
    return this.table.all().map((e) => e.values['name'] ?? '');
  }

  byName(name: string): LinkEntry | undefined {
    return this.table.all().find((e) => e.values['name'] === name);
  }

  reboot(t: number): void {
    for (const e of this.table.all()) e.sim.reboot(t);
  }

  /** One `/interface` row. Keys absent in the captures stay absent (`dynamic` only on bridges and sessions). */
  render(e: LinkEntry, view: View): Row {
    const v = this.router.version;
    const disabled = e.values['disabled'] === 'true';
    const up = !disabled && e.sim.up(view.now);
    const c = e.sim.counters(view.now);
    const mtu = e.values['mtu'] ?? '1500';
    const row: Row = { '.id': `*${e.id.toString(16).toUpperCase()}` };
    if (!disabled) row['actual-mtu'] = mtu === 'auto' ? '1500' : mtu;
    if (e.values['comment'] !== undefined) row['comment'] = e.values['comment'];
    if (e.defaultName !== undefined) row['default-name'] = e.defaultName;
    row['disabled'] = disabled ? 'true' : 'false';
    if (e.type === 'bridge') row['dynamic'] = 'false';
    if (isDynamic(e.type)) row['dynamic'] = 'true';
    const modern = atLeast(v, '7.21');
    if (modern) row['fp-rps-drop'] = '0';
    const fast = this.#hardware && e.type === 'ether';
    row['fp-rx-byte'] = fast ? String(c.rxByte) : '0';
    row['fp-rx-packet'] = fast ? String(c.rxPacket) : '0';
    row['fp-tx-byte'] = '0';
    row['fp-tx-packet'] = '0';
    if (e.type === 'bridge') row['l2mtu'] = '65535';
    if (fast) row['l2mtu'] = '1598';
    const lastDown = e.sim.lastDownAt(view.now);
    if (lastDown !== undefined) row['last-link-down-time'] = formatRouterDate(lastDown, v);
    const lastUp = disabled ? undefined : e.sim.lastUpAt(view.now);
    if (lastUp !== undefined) row['last-link-up-time'] = formatRouterDate(lastUp, v);
    row['link-downs'] = String(e.sim.linkDowns(view.now));
    // A disabled vlan has no address yet (captured: dumbmonit 7.23.7's disabled vlan20-guest); other kinds keep theirs.
    if (!isDynamic(e.type)) row['mac-address'] = disabled && e.type === 'vlan' ? '00:00:00:00:00:00' : e.mac;
    if (fast) row['max-l2mtu'] = '9214';
    row['mtu'] = mtu;
    row['name'] = e.values['name'] ?? '';
    row['running'] = up ? 'true' : 'false';
    row['rx-byte'] = String(c.rxByte);
    row['rx-drop'] = String(c.rxDrop);
    row['rx-error'] = String(c.rxError);
    row['rx-packet'] = String(c.rxPacket);
    if (e.slave) row['slave'] = 'true';
    row['tx-byte'] = String(c.txByte);
    row['tx-drop'] = '0';
    row['tx-error'] = '0';
    row['tx-packet'] = String(c.txPacket);
    row['tx-queue-drop'] = String(c.txQueueDrop);
    row['type'] = e.type;
    if (modern) row['vrf'] = 'main';
    return row;
  }
}
