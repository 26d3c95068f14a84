/** `ip/firewall/filter`: ordered rules; `place-before` on add puts a rule ahead of another. */
import { badRequest } from '../rest/errors.js';
import { asText } from '../rest/values.js';
import type { Params } from '../rest/values.js';
import { parseId } from '../state/table.js';
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { bool, comment, matchAddress, oneOf, portList, text } from './fields.js';
import type { FieldDef } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

const ACTIONS = [
  'accept', 'drop', 'reject', 'jump', 'return', 'passthrough', 'log', 'fasttrack-connection', 'tarpit',
  'add-src-to-address-list', 'add-dst-to-address-list',
] as const;

const PROTOCOLS = ['', 'tcp', 'udp', 'icmp', 'icmpv6', 'gre', 'esp', 'ah', 'ipsec-esp', 'ipsec-ah', 'ospf', 'vrrp', 'sctp'];

const CONNECTION_STATES = new Set(['established', 'related', 'new', 'invalid', 'untracked']);

const protocol: FieldDef = text({
  hideIf: '',
  parse: (v, n) => {
    const p = asText(n, v).trim();
    const bare = p.startsWith('!') ? p.slice(1) : p;
    if (PROTOCOLS.includes(bare) || (/^\d{1,3}$/.test(bare) && Number(bare) <= 255)) return p;
    throw badRequest(`input does not match any value of ${n}`);
  },
});

const connectionState: FieldDef = text({
  hideIf: '',
  parse: (v, n) => {
    const states = asText(n, v).split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (!states.every((s) => CONNECTION_STATES.has(s.replace(/^!/, '')))) throw badRequest(`input does not match any value of ${n}`);
    return states.join(',');
  },
});

export class FirewallFilterMenu extends RecordMenu<Entry> {
  readonly named = false;
  readonly removable = true;

  constructor(router: RouterContext) {
    const iface = (): FieldDef => text({ hideIf: '' });
    super(router, {
      fields: {
        chain: text(),
        action: oneOf(ACTIONS, 'accept'),
        protocol,
        'src-address': matchAddress(),
        'dst-address': matchAddress(),
        'src-port': portList(),
        'dst-port': portList(),
        'in-interface': iface(),
        'out-interface': iface(),
        'in-interface-list': iface(),
        'out-interface-list': iface(),
        'connection-state': connectionState,
        'jump-target': text({ hideIf: '' }),
        log: bool('false'),
        'log-prefix': text({ def: '' }),
        comment: comment(),
        disabled: bool('false'),
      },
      derived: ['bytes', 'packets', 'dynamic', 'invalid'],
      readOnly: ['bytes', 'packets', 'dynamic', 'invalid'],
      required: ['chain'],
    });
  }

  protected create(id: number, values: Record<string, string>): Entry {
    return { id, values };
  }

  protected override addOnly(name: string): boolean {
    return name === 'place-before';
  }

  override add(params: Params): number {
    const before = params.get('place-before');
    let beforeId: number | undefined;
    if (before !== undefined) {
      beforeId = parseId(asText('place-before', before));
      if (beforeId === undefined || this.table.get(beforeId) === undefined) throw badRequest('no such item');
    }
    return super.add(params, beforeId);
  }

  /** POST …/move: `numbers` before `destination` (to the end when destination is absent). */
  move(id: number, destination: number | undefined): void {
    this.table.move(id, destination);
  }

  protected override derived(_entry: Entry, _view: View, row: Row): void {
    row['bytes'] = '0';
    row['packets'] = '0';
    row['dynamic'] = 'false';
    row['invalid'] = 'false';
  }

  renameInterface(from: string, to: string): void {
    this.renameIn(['in-interface', 'out-interface'], from, to);
  }
}
