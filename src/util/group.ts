import { finish, type Steps } from './slices.js';

/** Items by key, each group in the items' order; items whose key is undefined are left out. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Map<string, T[]> {
  return finish(groupBySteps(items, keyOf));
}

/** Items grouped between two places where groupBySteps may give the event loop back. */
const ITEMS_PER_STEP = 4096;

/** groupBy as steps (util/slices.ts), a pause possible every 4,096 items: a router may list a million records. */
export function* groupBySteps<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Steps<Map<string, T[]>> {
  const groups = new Map<string, T[]>();
  for (let index = 0; index < items.length; index++) {
    if (index % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
    const item = items[index] as T;
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}
