/** Reading one key of a config layer into a slot, and choosing a router's slot over the defaults'. */
import type { RawMap } from './fields.js';
import { joinPath, type Problems } from './problems.js';

export interface Located<T> {
  value: T;
  /** Where the value was set, like `defaults.timeout`: problems found after merging point here. */
  path: string;
}

/** undefined: not set in this layer; null: set but invalid (already reported); else the value. */
export type Slot<T> = Located<T> | null | undefined;

export type Reader<T> = (value: unknown, path: string, problems: Problems) => T | undefined;

/** The key's value read with `read`: undefined when the key is absent, null when it is there but invalid (reported). */
export function readSlot<T>(map: RawMap, key: string, base: string, problems: Problems, read: Reader<T>): Slot<T> {
  if (!Object.hasOwn(map, key)) return undefined;
  const path = joinPath(base, key);
  const value = read(map[key], path, problems);
  return value === undefined ? null : { value, path };
}

/** The router's slot when it sets the key (even invalidly), else the defaults'. */
export function pick<T>(router: Slot<T>, defaults: Slot<T>): Slot<T> {
  return router === undefined ? defaults : router;
}
