/**
 * `interface`: every interface, as `/interface print` lists them. The menu merges the non-WireGuard links with the WireGuard interfaces of
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
      else values[key] = asText(key, raw); // name, comment
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
