/**
 * POST `/<menu>/<command>` for record menus: print (with `.proplist` and `.query`), add, set,
 * remove, enable, disable and (firewall) move — the console verbs behind the REST methods.
 */
import { FirewallFilterMenu } from '../menus/firewall.js';
import type { Menu, View } from '../menus/types.js';
import type { Row } from '../types.js';
import { formatId } from '../state/table.js';
import { badRequest, noSuchCommand, unknownParameter } from './errors.js';
import type { JsonReply } from './json-out.js';
import { compileQuery, matchesAll, parseProplist, projector } from './query.js';
import type { Condition } from './query.js';
import { asText } from './values.js';
import type { Params } from './values.js';

export const READ_COMMANDS = new Set(['print']);
const PRINT_PARAMS = new Set(['.proplist', '.query', 'detail', 'without-paging', 'terse']);

export function menuCommandWords(menu: Menu): Set<string> {
  if (menu.kind === 'singleton') return new Set(menu.set === undefined ? ['print'] : ['print', 'set']);
  const words = new Set(['print', 'add', 'set', 'enable', 'disable']);
  if (menu.removable) words.add('remove');
  if (menu instanceof FirewallFilterMenu) words.add('move');
  return words;
}

export function print(menu: Menu, params: Params, view: View, extra: readonly Condition[] = []): Row[] {
  for (const name of params.keys()) if (!PRINT_PARAMS.has(name)) throw unknownParameter(name);
  const proplist = parseProplist(params.get('.proplist'));
  const conditions = [...extra];
  if (params.has('.query')) conditions.push(compileQuery(params.get('.query')));
  const rows = menu.kind === 'singleton' ? [menu.row(view)] : menu.rows(view);
  const shape = projector(proplist);
  const out: Row[] = [];
  for (const row of rows) if (matchesAll(row, conditions)) out.push(shape(row));
  return out;
}

/** `.id` or `numbers` (a comma list of ids or names) → ids; unknown ones are `no such item`. */
function targets(menu: Menu, params: Params): number[] {
  if (menu.kind !== 'list') return [];
  const raw = params.get('.id') ?? params.get('numbers');
  if (raw === undefined) throw badRequest('missing =numbers=');
  return asText('numbers', raw)
    .split(',')
    .map((ref) => {
      const id = menu.find(ref.trim());
      if (id === undefined) throw badRequest('no such item');
      return id;
    });
}

function without(params: Params, ...names: string[]): Params {
  return new Map([...params].filter(([k]) => !names.includes(k)));
}

export function runMenuCommand(menu: Menu, word: string, params: Params, view: View): JsonReply {
  if (!menuCommandWords(menu).has(word)) throw noSuchCommand(word);
  if (word === 'print') return print(menu, params, view);
  if (menu.kind === 'singleton') {
    menu.set?.(params);
    return [];
  }
  switch (word) {
    case 'add':
      // The API's `!done` carries the new id: REST turns that into a bare object.
      return { ret: formatId(menu.add(params)) };
    case 'set':
      for (const id of targets(menu, params)) menu.set(id, without(params, '.id', 'numbers'));
      return [];
    case 'remove':
      for (const id of targets(menu, params)) menu.remove(id);
      return [];
    case 'enable':
    case 'disable':
      for (const id of targets(menu, params)) menu.set(id, new Map([['disabled', word === 'disable']]));
      return [];
    default: {
      // move: numbers before destination
      const dest = params.get('destination');
      const destId = dest === undefined ? undefined : menu.find(asText('destination', dest));
      if (dest !== undefined && destId === undefined) throw badRequest('no such item');
      if (menu instanceof FirewallFilterMenu) for (const id of targets(menu, params)) menu.move(id, destId);
      return [];
    }
  }
}
