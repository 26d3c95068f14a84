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
  /** Every key `derived()` may set; rows are assembled in sorted key order from these and the fields. */
  derived: readonly string[];
  /** Printed but never written by clients. */
  readOnly: readonly string[];
  /** Must be given on add (`missing =name=` otherwise). */
  required: readonly string[];
  firstId?: number;
}

interface Slot {
  readonly key: string;
  /** The field definition when clients may write the key. */
  readonly def: FieldDef | undefined;
  /** Computed at read time by `derived()`. */
  readonly derived: boolean;
}

export abstract class RecordMenu<E extends Entry> implements ListMenu {
  readonly kind = 'list';
  abstract readonly named: boolean;
  abstract readonly removable: boolean;
  protected readonly table: Table<E>;
  protected readonly fields: ReadonlyMap<string, FieldDef>;
  readonly #readOnly: ReadonlySet<string>;
  readonly #required: readonly string[];
  /** Every key a row can have, sorted, each with where its value comes from. */
  readonly #plan: readonly Slot[];
  readonly #derivedKeys: readonly string[];
  /**
   * Rendering is the hot path (1,000-peer lists), so each entry keeps "templates": its static
   * values already filtered and in sorted key order, with slots for the derived keys present.
   * A row is a clone of the template with the derived values written in: cheap, and already in
   * the order JSON.stringify must keep (RouterOS sorts keys). Keyed by the values object, so a
   * write (which replaces entry.values) invalidates them.
   */
  readonly #templates = new WeakMap<E, { values: Record<string, string>; byMask: Map<number, Row> }>();

  protected constructor(
    protected readonly router: RouterContext,
    spec: RecordMenuSpec,
  ) {
    const known = Object.entries(spec.fields).filter(([, f]) => inWindow(router.version, f.since, f.until));
    this.fields = new Map(known);
    const derived = new Set(spec.derived);
    const keys = [...new Set(['.id', ...this.fields.keys(), ...derived])].sort();
    this.#plan = keys.map((key) => ({ key, def: this.fields.get(key), derived: derived.has(key) }));
    this.#derivedKeys = [...derived];
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

  #defaults: Readonly<Record<string, string>> | undefined;

  defaults(): Readonly<Record<string, string>> {
    if (this.#defaults === undefined) {
      const out: Record<string, string> = {};
      for (const [name, def] of this.fields) if (def.def !== undefined) out[name] = def.def;
      this.#defaults = out;
    }
    return this.#defaults;
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

  /** Renames a referenced interface in `keys` of every entry (values are replaced, never mutated). */
  protected renameIn(keys: readonly string[], from: string, to: string): void {
    for (const e of this.table.all()) {
      for (const key of keys) if (e.values[key] === from) e.values = { ...e.values, [key]: to };
    }
  }

  entries(): readonly E[] {
    return this.table.all();
  }

  protected render(entry: E, view: View): Row {
    const computed: Row = {};
    this.derived(entry, view, computed);
    const keys = this.#derivedKeys;
    let mask = view.sensitive ? 1 : 0;
    for (let i = 0; i < keys.length; i++) if (computed[keys[i] as string] !== undefined) mask |= 2 << i;
    const row: Row = { ...this.#template(entry, mask) };
    for (const key of keys) {
      const value = computed[key];
      if (value !== undefined) row[key] = value;
    }
    return row;
  }

  #template(entry: E, mask: number): Row {
    let cache = this.#templates.get(entry);
    if (cache === undefined || cache.values !== entry.values) {
      cache = { values: entry.values, byMask: new Map() };
      this.#templates.set(entry, cache);
    }
    let template = cache.byMask.get(mask);
    if (template !== undefined) return template;
    const sensitive = (mask & 1) === 1;
    template = {};
    for (const { key, def, derived } of this.#plan) {
      if (key === '.id') {
        template[key] = formatId(entry.id);
        continue;
      }
      if (derived && (mask & (2 << this.#derivedKeys.indexOf(key))) !== 0) {
        template[key] = ''; // filled in per read
        continue;
      }
      const value = entry.values[key];
      if (value === undefined) continue;
      if (def !== undefined && value === def.hideIf) continue;
      // Masked for a user without the sensitive policy, as a captured ≥ 7.21 reply shows (`"private-key":"*****"`).
      template[key] = def?.sensitive === true && !sensitive ? '*****' : value;
    }
    cache.byMask.set(mask, template);
    return template;
  }
}
