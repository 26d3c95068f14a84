/**
 * The common machinery of list menus: parameter checking (unknown / read-only / version-gated),
 * defaults, required fields, id and name lookup, rendering of stored values. Menus add their
 * cross-field checks and simulated (read-only) values through the protected hooks.
 */
import { badRequest, notAcceptable, unknownParameter } from '../rest/errors.js';
import type { Params } from '../rest/values.js';
import { formatId, parseId, Table } from '../state/table.js';
import type { Entry } from '../state/table.js';
import type { Row } from '../types.js';
import { inWindow } from '../util/version.js';
import type { FieldDef } from './fields.js';
import type { ListMenu, RouterContext, View } from './types.js';

export interface RecordMenuSpec {
  fields: Record<string, FieldDef>;
  /** Printed but never written by clients. */
  readOnly: readonly string[];
  /** Must be given on add (`missing =name=` otherwise). */
  required: readonly string[];
  firstId?: number;
}

export abstract class RecordMenu<E extends Entry> implements ListMenu {
  readonly kind = 'list';
  abstract readonly named: boolean;
  abstract readonly removable: boolean;
  protected readonly table: Table<E>;
  protected readonly fields: ReadonlyMap<string, FieldDef>;
  readonly #readOnly: ReadonlySet<string>;
  readonly #required: readonly string[];
  /** Field names in a fixed order, hidden/sensitive flags resolved once: rendering is the hot path. */
  readonly #renderPlan: readonly (readonly [string, FieldDef])[];

  protected constructor(
    protected readonly router: RouterContext,
    spec: RecordMenuSpec,
  ) {
    const known = Object.entries(spec.fields).filter(([, f]) => inWindow(router.version, f.since, f.until));
    this.fields = new Map(known);
    this.#renderPlan = known;
    this.#readOnly = new Set(spec.readOnly);
    this.#required = spec.required;
    this.table = new Table<E>(spec.firstId);
  }

  /** Builds the entry for validated values (menus attach simulation state here). */
  protected abstract create(id: number, values: Record<string, string>): E;

  /** Cross-field checks before values are stored; `existing` is undefined on add. */
  protected check(_values: Record<string, string>, _existing: E | undefined): void {}

  /** Applies validated new values (menus react to renames, disable, key changes…). */
  protected update(entry: E, values: Record<string, string>, _changed: ReadonlySet<string>): void {
    entry.values = values;
  }

  /** Values computed at read time: counters, handshakes, running flags. */
  protected derived(_entry: E, _view: View, _row: Row): void {}

  /** Parameters that steer the add itself rather than being stored (firewall `place-before`). */
  protected addOnly(_name: string): boolean {
    return false;
  }

  protected parse(params: Params, adding: boolean): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of params) {
      if (name === '.id' || (adding && this.addOnly(name))) continue;
      if (this.#readOnly.has(name)) throw badRequest(`cannot set ${name} (read-only property)`);
      const def = this.fields.get(name);
      if (def === undefined) throw unknownParameter(name);
      out[name] = def.parse(value, name);
    }
    return out;
  }

  defaults(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, def] of this.fields) if (def.def !== undefined) out[name] = def.def;
    return out;
  }

  add(params: Params, beforeId?: number): number {
    const given = this.parse(params, true);
    for (const name of this.#required) {
      if (given[name] === undefined || given[name] === '') throw badRequest(`missing =${name}=`);
    }
    const values = { ...this.defaults(), ...given };
    this.check(values, undefined);
    return this.table.insert((id) => this.create(id, values), beforeId).id;
  }

  set(id: number, params: Params): void {
    const entry = this.table.get(id);
    if (entry === undefined) throw badRequest('no such item');
    const given = this.parse(params, false);
    const values = { ...entry.values, ...given };
    this.check(values, entry);
    this.update(entry, values, new Set(Object.keys(given)));
  }

  remove(id: number): void {
    if (!this.removable) throw notAcceptable('remove');
    if (!this.table.remove(id)) throw badRequest('no such item');
  }

  find(ref: string): number | undefined {
    const id = parseId(ref);
    if (id !== undefined) return this.table.get(id) === undefined ? undefined : id;
    if (!this.named) return undefined;
    return this.table.all().find((e) => e.values['name'] === ref)?.id;
  }

  row(id: number, view: View): Row | undefined {
    const entry = this.table.get(id);
    return entry === undefined ? undefined : this.render(entry, view);
  }

  rows(view: View): Row[] {
    return this.table.all().map((e) => this.render(e, view));
  }

  entries(): readonly E[] {
    return this.table.all();
  }

  protected render(entry: E, view: View): Row {
    const row: Row = { '.id': formatId(entry.id) };
    const values = entry.values;
    for (const [name, def] of this.#renderPlan) {
      const value = values[name];
      if (value === undefined || value === def.hideIf || (def.sensitive === true && !view.sensitive)) continue;
      row[name] = value;
    }
    this.derived(entry, view, row);
    return row;
  }
}
