/**
 * `interface/wireguard`: a key pair is generated when no private key is given, `public-key` is
 * derived, `running` follows `disabled`. `remove` deletes the interface (`/interface wireguard
 * remove`); what becomes of its peers is the router's (RouterContext.interfaceRemoved).
 */
import { badRequest } from '../rest/errors.js';
import { formatId } from '../state/table.js';
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { generatePrivateKey, publicKeyOf } from '../util/keys.js';
import { base64Key, bool, comment, int, text } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

export interface WgInterfaceEntry extends Entry {
  /** Derived on first read: 400 scale-scenario interfaces need not pay for X25519 at start. */
  publicKey: string | undefined;
}

export class WireguardMenu extends RecordMenu<WgInterfaceEntry> {
  readonly named = true;
  readonly removable = true;

  constructor(
    router: RouterContext,
    private readonly otherNames: () => string[],
    firstId: number,
  ) {
    super(router, {
      fields: {
        name: text(),
        'listen-port': int(1, 65535, 13231),
        mtu: int(0, 65536, 1420),
        'private-key': base64Key({ sensitive: true }),
        comment: comment(),
        disabled: bool('false'),
      },
      derived: ['public-key', 'running'],
      readOnly: ['public-key', 'running'],
      required: [],
      firstId,
    });
  }

  names(): string[] {
    return this.entries().map((e) => e.values['name'] ?? '');
  }

  byName(name: string): WgInterfaceEntry | undefined {
    return this.entries().find((e) => e.values['name'] === name);
  }

  /** RouterOS names an unnamed interface wireguard1, wireguard2, … */
  #freeName(): string {
    const taken = new Set([...this.names(), ...this.otherNames()]);
    let i = 1;
    while (taken.has(`wireguard${i}`)) i++;
    return `wireguard${i}`;
  }

  protected override check(values: Record<string, string>, existing: WgInterfaceEntry | undefined): void {
    if (values['name'] === undefined || values['name'] === '') values['name'] = this.#freeName();
    const name = values['name'];
    const clash =
      this.otherNames().includes(name) || this.entries().some((e) => e !== existing && e.values['name'] === name);
    if (clash) throw badRequest('failure: already have interface with such name');
    if (values['private-key'] === undefined || values['private-key'] === '') {
      values['private-key'] = generatePrivateKey(this.router.rng);
    }
  }

  protected create(id: number, values: Record<string, string>): WgInterfaceEntry {
    return { id, values, publicKey: undefined };
  }

  protected override update(entry: WgInterfaceEntry, values: Record<string, string>, changed: ReadonlySet<string>): void {
    const before = entry.values['name'] ?? '';
    entry.values = values;
    if (changed.has('private-key')) entry.publicKey = undefined;
    const after = values['name'] ?? '';
    if (after !== before) this.router.renameInterface(before, after);
    if (changed.has('disabled')) this.router.wgInterfaceSwitched(after);
  }

  override remove(id: number): void {
    const name = this.table.get(id)?.values['name'];
    super.remove(id);
    if (name !== undefined) this.router.interfaceRemoved(name, formatId(id));
  }

  protected override derived(entry: WgInterfaceEntry, _view: View, row: Row): void {
    entry.publicKey ??= publicKeyOf(entry.values['private-key'] ?? '');
    row['public-key'] = entry.publicKey;
    row['running'] = entry.values['disabled'] === 'true' ? 'false' : 'true';
  }
}
