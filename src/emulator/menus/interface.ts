/**
 * `interface` (every interface, as `/interface print` lists them) and `interface/ethernet`.
 * The generic menu merges the non-WireGuard links with the WireGuard interfaces of
 * `interface/wireguard` (one source of truth: name, disabled, mtu, comment live there); a
 * WireGuard row's counters are the sums of its peers' rx/tx. The console has neither `add` nor
 * `remove` in `/interface` (406, as the manual's "delete an interface" example); WireGuard
 * interfaces are removed in their own menu.
 */
import { badRequest, notAcceptable, unknownParameter } from '../rest/errors.js';
import { asBool, asInt, asText } from '../rest/values.js';
import type { Params } from '../rest/values.js';
import { formatId, parseId } from '../state/table.js';
import type { Row } from '../types.js';
import { formatRouterDate } from '../util/date.js';
import { atLeast } from '../util/version.js';
import type { LinkEntry, Links } from './links.js';
import type { ListMenu, RouterContext, View } from './types.js';
import type { WireguardMenu } from './wireguard.js';

/** rx/tx byte sums per WireGuard interface name, computed once per read. */
export type WgTraffic = (now: number) => Map<string, { rx: bigint; tx: bigint }>;

/** WireGuard packets are counted from bytes with this average size (inferred; no capture shows a wg row). */
const WG_PACKET = 500;

const SETTABLE = new Set(['name', 'comment', 'disabled', 'mtu', 'numbers', '.id']);

export class InterfaceMenu implements ListMenu {
  readonly kind = 'list';
  readonly named = true;
  readonly removable = false;

  constructor(
    private readonly router: RouterContext,
    private readonly links: Links,
    private readonly wireguard: WireguardMenu,
    private readonly wgTraffic: WgTraffic,
  ) {}

  rows(view: View): Row[] {
    const out = this.links.table.all().map((e) => this.links.render(e, view));
    const entries = this.wireguard.entries();
    if (entries.length === 0) return out;
    const traffic = this.wgTraffic(view.now);
    for (const e of entries) out.push(this.#wgRow(e.id, view, traffic));
    return out;
  }

  find(ref: string): number | undefined {
    const id = parseId(ref);
    if (id !== undefined) return this.links.table.get(id) !== undefined || this.wireguard.find(ref) !== undefined ? id : undefined;
    return this.links.byName(ref)?.id ?? this.wireguard.byName(ref)?.id;
  }

  row(id: number, view: View): Row | undefined {
    const link = this.links.table.get(id);
    if (link !== undefined) return this.links.render(link, view);
    if (this.wireguard.find(formatId(id)) === undefined) return undefined;
    return this.#wgRow(id, view, this.wgTraffic(view.now));
  }

  add(): number {
    throw notAcceptable('add');
  }

  /** `name`, `comment`, `disabled`, `mtu` (what `/interface set` takes for every kind). */
  set(id: number, params: Params): void {
    for (const key of params.keys()) if (!SETTABLE.has(key)) throw unknownParameter(key);
    const link = this.links.table.get(id);
    if (link === undefined) {
      if (this.wireguard.find(formatId(id)) === undefined) throw badRequest('no such item');
      this.wireguard.set(id, new Map([...params].filter(([k]) => k !== '.id' && k !== 'numbers')));
      return;
    }
    this.#setLink(link, params);
  }

  remove(): void {
    throw notAcceptable('remove');
  }

  #setLink(link: LinkEntry, params: Params): void {
    const values = { ...link.values };
    for (const [key, raw] of params) {
      if (key === '.id' || key === 'numbers') continue;
      if (key === 'disabled') values[key] = asBool(key, raw);
      else if (key === 'mtu') values[key] = raw === 'auto' && link.type === 'bridge' ? 'auto' : String(asInt(key, raw, 0, 65536));
      else if (key === 'comment') values[key] = asText(key, raw);
      else values[key] = asText(key, raw);
    }
    const before = link.values['name'] ?? '';
    const after = values['name'] ?? '';
    if (after !== before && this.router.interfaceNames().includes(after)) throw badRequest('failure: already have interface with such name');
    if (after === '') throw badRequest('invalid value for argument name');
    if (values['comment'] === '') delete values['comment'];
    const now = this.router.now();
    if (values['disabled'] === 'true') link.sim.disable(now);
    else link.sim.enable(now);
    link.values = values;
    if (after !== before) this.router.renameInterface(before, after);
  }

  /** A WireGuard interface as `/interface` shows it (shape of the link rows; no MAC: layer 3). */
  #wgRow(id: number, view: View, traffic: ReturnType<WgTraffic>): Row {
    const w = this.wireguard.row(id, view) ?? {};
    const v = this.router.version;
    const name = w['name'] ?? '';
    const disabled = w['disabled'] === 'true';
    const t = traffic.get(name) ?? { rx: 0n, tx: 0n };
    const row: Row = { '.id': formatId(id) };
    if (!disabled) row['actual-mtu'] = w['mtu'] ?? '1420';
    if (w['comment'] !== undefined) row['comment'] = w['comment'];
    row['disabled'] = disabled ? 'true' : 'false';
    const modern = atLeast(v, '7.21');
    if (modern) row['fp-rps-drop'] = '0';
    for (const k of ['fp-rx-byte', 'fp-rx-packet', 'fp-tx-byte', 'fp-tx-packet']) row[k] = '0';
    // Inferred: a WireGuard interface comes up a few seconds after boot and never flaps.
    if (!disabled) row['last-link-up-time'] = formatRouterDate(this.router.bootAt() + 3_000, v);
    row['link-downs'] = '0';
    row['mtu'] = w['mtu'] ?? '1420';
    row['name'] = name;
    row['running'] = w['running'] ?? 'false';
    row['rx-byte'] = String(t.rx);
    row['rx-drop'] = '0';
    row['rx-error'] = '0';
    row['rx-packet'] = String(t.rx / BigInt(WG_PACKET));
    row['tx-byte'] = String(t.tx);
    row['tx-drop'] = '0';
    row['tx-error'] = '0';
    row['tx-packet'] = String(t.tx / BigInt(WG_PACKET));
    row['tx-queue-drop'] = '0';
    row['type'] = 'wg';
    if (modern) row['vrf'] = 'main';
    return row;
  }
}

/** Speed names: `1G-baseT-full` from 7.12 (MikLink 7.20.5's advertise list), `1Gbps` before (inferred). */
const MODERN_SPEED: Record<string, string> = {
  '10Mbps': '10M-baseT-full',
  '100Mbps': '100M-baseT-full',
  '1Gbps': '1G-baseT-full',
  '2.5Gbps': '2.5G-baseT',
  '10Gbps': '10G-baseSR-LR',
};

/** `interface/ethernet`: the ether links with their port settings; `speed` is the configured one. */
export class EthernetMenu implements ListMenu {
  readonly kind = 'list';
  readonly named = true;
  readonly removable = false;

  constructor(
    private readonly router: RouterContext,
    private readonly links: Links,
    private readonly generic: InterfaceMenu,
  ) {}

  #ports(): LinkEntry[] {
    return this.links.table.all().filter((e) => e.type === 'ether');
  }

  rows(view: View): Row[] {
    return this.#ports().map((e) => this.#render(e, view));
  }

  find(ref: string): number | undefined {
    const id = parseId(ref);
    const port = this.#ports().find((e) => (id === undefined ? e.values['name'] === ref : e.id === id));
    return port?.id;
  }

  row(id: number, view: View): Row | undefined {
    const e = this.#ports().find((p) => p.id === id);
    return e === undefined ? undefined : this.#render(e, view);
  }

  add(): number {
    throw notAcceptable('add');
  }

  set(id: number, params: Params): void {
    this.generic.set(id, params);
  }

  remove(): void {
    throw notAcceptable('remove');
  }

  speed(e: LinkEntry): string {
    return atLeast(this.router.version, '7.12') ? (MODERN_SPEED[e.rate] ?? e.rate) : e.rate;
  }

  /** What `monitor once` reports for a port: link status and the negotiated `rate`. */
  monitor(e: LinkEntry, now: number): Row {
    const up = e.values['disabled'] !== 'true' && e.sim.up(now);
    const row: Row = { name: e.values['name'] ?? '', status: up ? 'link-ok' : 'no-link' };
    if (up) {
      row['auto-negotiation'] = 'done';
      row['full-duplex'] = 'true';
      row['rate'] = e.rate;
    }
    return row;
  }

  #render(e: LinkEntry, view: View): Row {
    const row: Row = {
      '.id': formatId(e.id),
      arp: 'enabled',
      'auto-negotiation': 'true',
      'default-name': e.defaultName ?? '',
      disabled: e.values['disabled'] ?? 'false',
      'mac-address': e.mac,
      mtu: e.values['mtu'] ?? '1500',
      name: e.values['name'] ?? '',
      'orig-mac-address': e.mac,
      running: e.values['disabled'] !== 'true' && e.sim.up(view.now) ? 'true' : 'false',
      'rx-flow-control': 'off',
      speed: this.speed(e),
      'tx-flow-control': 'off',
    };
    if (e.values['comment'] !== undefined) row['comment'] = e.values['comment'];
    if (e.slave) row['slave'] = 'true';
    return row;
  }

  ports(): LinkEntry[] {
    return this.#ports();
  }
}
