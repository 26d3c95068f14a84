/**
 * Ordered records with RouterOS ids. Ids are never reused (like real routers, a removed `*5`
 * stays gone), and order matters for firewall rules, so rows live in an array plus an index.
 */

export interface Entry {
  readonly id: number;
  values: Record<string, string>;
}

export function formatId(id: number): string {
  return `*${id.toString(16).toUpperCase()}`;
}

/** `*1A` / `*1a` → 26; anything else → undefined. */
export function parseId(ref: string): number | undefined {
  return /^\*[0-9a-fA-F]{1,8}$/.test(ref) ? parseInt(ref.slice(1), 16) : undefined;
}

export class Table<E extends Entry> {
  #rows: E[] = [];
  readonly #byId = new Map<number, E>();
  #nextId: number;

  constructor(firstId = 1) {
    this.#nextId = firstId;
  }

  nextId(): number {
    return this.#nextId;
  }

  /** Appends (or inserts before `beforeId`) the entry built for the next id. */
  insert(make: (id: number) => E, beforeId?: number): E {
    const entry = make(this.#nextId++);
    this.#byId.set(entry.id, entry);
    const at = beforeId === undefined ? -1 : this.#rows.findIndex((e) => e.id === beforeId);
    if (at < 0) this.#rows.push(entry);
    else this.#rows.splice(at, 0, entry);
    return entry;
  }

  get(id: number): E | undefined {
    return this.#byId.get(id);
  }

  remove(id: number): boolean {
    if (!this.#byId.delete(id)) return false;
    this.#rows = this.#rows.filter((e) => e.id !== id);
    return true;
  }

  /** Moves `id` to just before `beforeId` (to the end when beforeId is undefined). */
  move(id: number, beforeId: number | undefined): void {
    const entry = this.#byId.get(id);
    if (entry === undefined || id === beforeId) return;
    this.#rows = this.#rows.filter((e) => e.id !== id);
    const at = beforeId === undefined ? -1 : this.#rows.findIndex((e) => e.id === beforeId);
    if (at < 0) this.#rows.push(entry);
    else this.#rows.splice(at, 0, entry);
  }

  all(): readonly E[] {
    return this.#rows;
  }
}
