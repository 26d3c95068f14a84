/**
 * `interface/ethernet`: the ether links with their port settings. `speed` is the configured speed;
 * the negotiated rate is only in `monitor` (commands/monitor.ts), as on RouterOS.
 */
import { notAcceptable } from '../rest/errors.js';
import type { Params } from '../rest/values.js';
import { formatId, parseId } from '../state/table.js';
import type { Row } from '../types.js';
import { atLeast } from '../util/version.js';
import type { InterfaceMenu } from './interface.js';
import type { LinkEntry, Links } from './links.js';
import type { ListMenu, RouterContext, View } from './types.js';

/** Speed names: `1G-baseT-full` from 7.12 (MikLink 7.20.5's advertise list), `1Gbps` before (inferred). */
const MODERN_SPEED: Record<string, string> = {
  '10Mbps': '10M-baseT-full',
  '100Mbps': '100M-baseT-full',
  '1Gbps': '1G-baseT-full',
  '2.5Gbps': '2.5G-baseT',
  '10Gbps': '10G-baseSR-LR',
};

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
