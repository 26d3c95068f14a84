/**
 * `interface/list` and `interface/list/member`: named sets of interfaces that firewall rules match with
 * `in-interface-list` / `out-interface-list`. RouterOS has four built-in lists (`all`, `none`, `dynamic`, `static`:
 * `builtin` true, their members never listed, not changed nor removed); a list may also `include` and `exclude`
 * other lists. A member puts one interface in one list that is not built in.
 */
import { badRequest } from '../rest/errors.js';
import { asText } from '../rest/values.js';
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { bool, comment, reference, text } from './fields.js';
import type { FieldDef } from './fields.js';
import { RecordMenu } from './record-menu.js';
import type { RouterContext, View } from './types.js';

export interface ListEntry extends Entry {
  readonly builtin: boolean;
}

/** RouterOS's own lists, in the order and with the comments it prints them (inferred: no capture shows them). */
const BUILT_IN: readonly [string, string][] = [
  ['all', 'contains all interfaces'],
  ['none', 'contains no interfaces'],
  ['dynamic', 'contains dynamic interfaces'],
  ['static', 'contains static interfaces'],
];

/** The built-in lists' first id (inferred): user lists follow them. */
const FIRST_LIST_ID = 0x2000010;

export class InterfaceListMenu extends RecordMenu<ListEntry> {
  readonly named = false;
  readonly removable = true;
  #adding: boolean | undefined;

  constructor(router: RouterContext) {
    // `include` and `exclude`: comma-separated names of other lists.
    const lists = (): FieldDef => ({
      parse: (v, n) => {
        const names = asText(n, v).split(',').map((name) => name.trim()).filter((name) => name !== '');
        if (!names.every((name) => this.names().includes(name))) throw badRequest(`input does not match any value of ${n}`);
        return names.join(',');
      },
      def: '',
    });
    super(router, {
      fields: { name: text(), include: lists(), exclude: lists(), comment: comment() },
      derived: ['builtin', 'dynamic'],
      readOnly: ['builtin', 'dynamic'],
      required: ['name'],
      firstId: FIRST_LIST_ID,
    });
    for (const [name, note] of BUILT_IN) {
      this.#adding = true;
      this.add(new Map([['name', name], ['comment', note]]));
    }
    this.#adding = false;
  }

  /** Every list's name, built-in ones first. */
  names(): string[] {
    return this.entries().map((entry) => entry.values['name'] ?? '');
  }

  /** The lists a member may be put in: those not built in. */
  memberLists(): string[] {
    return this.entries().filter((entry) => !entry.builtin).map((entry) => entry.values['name'] ?? '');
  }

  protected override check(values: Record<string, string>, existing: ListEntry | undefined): void {
    if (existing?.builtin === true) throw badRequest('failure: can not change builtin list');
    const name = values['name'] ?? '';
    if (this.entries().some((entry) => entry !== existing && entry.values['name'] === name)) throw badRequest('failure: list with such name already exists');
    const self = (key: string) => (values[key] ?? '').split(',').includes(name);
    if (self('include') || self('exclude')) throw badRequest('failure: list can not include or exclude itself');
  }

  protected create(id: number, values: Record<string, string>): ListEntry {
    return { id, values, builtin: this.#adding === true };
  }

  protected override derived(entry: ListEntry, _view: View, row: Row): void {
    row['builtin'] = entry.builtin ? 'true' : 'false';
    row['dynamic'] = 'false';
  }

  override remove(id: number): void {
    if (this.table.get(id)?.builtin === true) throw badRequest('failure: can not remove builtin list');
    super.remove(id);
  }

  /** A list renamed: its members and the lists that include or exclude it follow. */
  protected override update(entry: ListEntry, values: Record<string, string>, changed: ReadonlySet<string>): void {
    const from = entry.values['name'];
    super.update(entry, values, changed);
    const to = values['name'];
    if (from === undefined || to === undefined || from === to) return;
    for (const other of this.entries()) {
      for (const key of ['include', 'exclude']) {
        const names = (other.values[key] ?? '').split(',');
        if (names.includes(from)) other.values = { ...other.values, [key]: names.map((name) => (name === from ? to : name)).join(',') };
      }
    }
    this.onRename?.(from, to);
  }

  /** Set by the router: members follow a list's rename. */
  onRename: ((from: string, to: string) => void) | undefined;
}

export class InterfaceListMemberMenu extends RecordMenu<Entry> {
  readonly named = false;
  readonly removable = true;

  constructor(router: RouterContext, lists: InterfaceListMenu) {
    super(router, {
      fields: {
        list: reference(() => lists.memberLists()),
        interface: reference(() => router.interfaceNames()),
        comment: comment(),
        disabled: bool('false'),
      },
      derived: ['dynamic'],
      readOnly: ['dynamic'],
      required: ['list', 'interface'],
    });
    lists.onRename = (from, to) => this.renameIn(['list'], from, to);
  }

  protected override check(values: Record<string, string>, existing: Entry | undefined): void {
    const same = (entry: Entry) => entry !== existing && entry.values['list'] === values['list'] && entry.values['interface'] === values['interface'];
    if (this.entries().some(same)) throw badRequest('failure: interface already in list');
  }

  protected create(id: number, values: Record<string, string>): Entry {
    return { id, values };
  }

  protected override derived(_entry: Entry, _view: View, row: Row): void {
    row['dynamic'] = 'false';
  }

  renameInterface(from: string, to: string): void {
    this.renameIn(['interface'], from, to);
  }
}
