/** `ip/route`: static routes; the read-only flags mirror what a 7.x router prints for them. */
import { badRequest } from '../rest/errors.js';
import { asText } from '../rest/values.js';
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { formatPrefix, isIp, networkPrefix } from '../util/ip.js';
import { bool, comment, int, prefixOf, text } from './fields.js';
import type { FieldDef } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

export class RouteMenu extends RecordMenu<Entry> {
  readonly named = false;
  readonly removable = true;

  constructor(router: RouterContext) {
    const dst: FieldDef = { parse: (v, n) => formatPrefix(networkPrefix(prefixOf(n, v))), def: '0.0.0.0/0' };
    const gateway: FieldDef = {
      parse: (v, n) => {
        const g = asText(n, v).trim();
        const ok = g.split(',').every((part) => isIp(part.split('%')[0] ?? '') || router.interfaceNames().includes(part));
        if (g !== '' && !ok) throw badRequest(`input does not match any value of ${n}`);
        return g;
      },
      def: '',
    };
    super(router, {
      fields: {
        'dst-address': dst,
        gateway,
        distance: int(1, 255, 1),
        'routing-table': text({ def: 'main' }),
        scope: int(0, 255, 30),
        'target-scope': int(0, 255, 10),
        'pref-src': text({ hideIf: '' }),
        'suppress-hw-offload': bool('false'),
        comment: comment(),
        disabled: bool('false'),
      },
      derived: ['active', 'dynamic', 'static', 'inactive', 'ecmp', 'hw-offloaded', 'immediate-gw'],
      readOnly: ['active', 'dynamic', 'static', 'inactive', 'ecmp', 'hw-offloaded', 'immediate-gw'],
      required: [],
    });
  }

  protected create(id: number, values: Record<string, string>): Entry {
    return { id, values };
  }

  /**
   * Active when enabled and a next hop is reachable: an interface, `addr%interface`, or an address inside a
   * network of the router's own addresses, which `immediate-gw` then names as `addr%interface`. Otherwise inactive,
   * with no `active` key and an empty `immediate-gw`, as the captured 7.x route table shows an unusable route
   * (`"gateway":"8.8.4.4","immediate-gw":"","inactive":"true"`; reachable ones `192.168.100.254%WAN1`).
   */
  protected override derived(entry: Entry, _view: View, row: Row): void {
    const disabled = entry.values['disabled'] === 'true';
    const hops = disabled ? [] : this.#nextHops(entry.values['gateway'] ?? '');
    if (hops.length > 0) row['active'] = 'true';
    row['inactive'] = hops.length > 0 ? 'false' : 'true';
    row['dynamic'] = 'false';
    row['static'] = 'true';
    // More than one next hop is ECMP; an inactive route prints no `ecmp` at all (the captured 7.x table).
    if (hops.length > 0) row['ecmp'] = hops.length > 1 ? 'true' : 'false';
    row['hw-offloaded'] = 'false';
    row['immediate-gw'] = hops.join(',');
  }

  #nextHops(gateway: string): string[] {
    const names = this.router.interfaceNames();
    const hops: string[] = [];
    for (const part of gateway.split(',')) {
      if (part === '') continue;
      const [address = '', via] = part.split('%');
      if (names.includes(part)) hops.push(part);
      else if (via !== undefined) {
        if (names.includes(via)) hops.push(part);
      } else {
        const iface = this.router.connectedInterfaceOf(address);
        if (iface !== undefined) hops.push(`${address}%${iface}`);
      }
    }
    return hops;
  }

  renameInterface(from: string, to: string): void {
    this.renameIn(['gateway'], from, to);
  }
}
