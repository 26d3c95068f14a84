/** `ip/address`: an address without a prefix length is stored as /32; `network` is derived. */
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { formatPrefix, ipv4Network, parsePrefix } from '../util/ip.js';
import { bool, comment, prefixOf, reference } from './fields.js';
import type { FieldDef } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

export class AddressMenu extends RecordMenu<Entry> {
  readonly named = false;
  readonly removable = true;

  constructor(router: RouterContext) {
    const address: FieldDef = { parse: (v, n) => formatPrefix(prefixOf(n, v, 4)) };
    super(router, {
      fields: {
        address,
        interface: reference(() => router.interfaceNames()),
        comment: comment(),
        disabled: bool('false'),
      },
      derived: ['network', 'actual-interface', 'dynamic', 'invalid'],
      readOnly: ['network', 'actual-interface', 'dynamic', 'invalid'],
      required: ['address', 'interface'],
    });
  }

  protected create(id: number, values: Record<string, string>): Entry {
    return { id, values };
  }

  protected override derived(entry: Entry, _view: View, row: Row): void {
    const p = parsePrefix(entry.values['address'] ?? '');
    row['network'] = p === undefined ? '' : ipv4Network(p);
    row['actual-interface'] = entry.values['interface'] ?? '';
    row['dynamic'] = 'false';
    // An address whose interface was removed names it by its old id (`*7`) and is invalid.
    row['invalid'] = (entry.values['interface'] ?? '').startsWith('*') ? 'true' : 'false';
  }

  renameInterface(from: string, to: string): void {
    this.renameIn(['interface'], from, to);
  }
}
