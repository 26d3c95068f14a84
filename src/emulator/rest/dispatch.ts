/**
 * REST request → console action (spec §1, §4): walks the menu tree, maps methods to print / add /
 * set / remove, runs commands, and enforces user policies. Returns a Reply or throws RestError.
 */
import type { Menu, View } from '../menus/types.js';
import type { RouterState } from '../state/router-state.js';
import type { User } from '../state/users.js';
import { notAcceptable, noSuchCommand, notFound, badRequest, notEnoughPermissions, RestError } from './errors.js';
import type { JsonReply } from './json-out.js';
import { menuCommandWords, print, READ_COMMANDS, runMenuCommand } from './menu-commands.js';
import { conditionsFromSearch, parseProplist, project } from './query.js';
import type { TreeNode } from './tree.js';
import type { Params } from './values.js';

export interface RestRequest {
  readonly method: string;
  /** Decoded path segments after `/rest`. */
  readonly segments: readonly string[];
  readonly search: URLSearchParams;
  /** Parsed JSON body (undefined when empty). */
  readonly body: unknown;
  readonly user: User;
  readonly signal: AbortSignal;
}

export type Reply = { kind: 'json'; status: number; body: JsonReply } | { kind: 'empty'; status: number };

const json = (body: JsonReply, status = 200): Reply => ({ kind: 'json', status, body });

function need(user: User, policy: string): void {
  if (!user.policies.has(policy)) throw notEnoughPermissions();
}

/** Request bodies must be one JSON object (one record per PUT, spec §8). */
function bodyParams(body: unknown): Params {
  if (body === undefined || body === null) return new Map();
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('JSON parse error: expected an object');
  return new Map(Object.entries(body));
}

export async function dispatch(root: TreeNode, state: RouterState, req: RestRequest): Promise<Reply> {
  const { user } = req;
  // Without `api` REST refuses everything (real-formats §9, observed on 7.23).
  if (!user.policies.has('api')) throw new RestError(500, 'std failure: not allowed (9)');
  let node = root;
  let depth = 0;
  for (; depth < req.segments.length; depth++) {
    const child = node.children.get(req.segments[depth] ?? '');
    if (child === undefined) break;
    if (child.absent === true) throw noSuchCommand(req.segments[depth] ?? '');
    node = child;
  }
  const rest = req.segments.slice(depth);
  const last = req.segments[req.segments.length - 1] ?? '';
  const view: View = { sensitive: user.policies.has('sensitive'), now: state.now() };
  if (node.command !== undefined) {
    if (rest.length > 0) throw noSuchCommand(rest[0] ?? '');
    if (req.method !== 'POST') throw noSuchCommand(last);
    need(user, node.command.policy);
    return json(await node.command.run({ state, params: bodyParams(req.body), user, signal: req.signal }));
  }
  const menu = node.menu;
  const word = rest[0];
  if (menu === undefined) throw noSuchCommand(word ?? last);
  if (rest.length > 1) {
    // Name the first word the console would stumble on: after a record reference, the next one.
    const isRecord = menu.kind === 'list' && menu.find(word ?? '') !== undefined;
    throw noSuchCommand((isRecord ? rest[1] : word) ?? last);
  }
  if (word === undefined) return onMenu(menu, req, view, last);
  if (req.method === 'POST') {
    need(user, READ_COMMANDS.has(word) ? 'read' : 'write');
    return json(runMenuCommand(menu, word, bodyParams(req.body), view));
  }
  return onRecord(menu, word, req, view);
}

/** Methods on the menu itself: GET = print, PUT = add, PATCH on a singleton = set. */
function onMenu(menu: Menu, req: RestRequest, view: View, last: string): Reply {
  switch (req.method) {
    case 'GET': {
      need(req.user, 'read');
      if (menu.kind === 'singleton') return json(project(menu.row(view), parseProplist(req.search.get('.proplist') ?? undefined)));
      const params = new Map<string, unknown>();
      const proplist = req.search.get('.proplist');
      if (proplist !== null) params.set('.proplist', proplist);
      return json(print(menu, params, view, conditionsFromSearch(req.search)));
    }
    case 'PUT': {
      if (menu.kind !== 'list') throw notAcceptable('add');
      if (Array.isArray(req.body)) throw badRequest('only one record can be added per request');
      need(req.user, 'write');
      const id = menu.add(bodyParams(req.body));
      return json(menu.row(id, view) ?? {}, 201);
    }
    case 'PATCH':
      if (menu.kind === 'list') throw badRequest('missing =.id=');
      if (menu.set === undefined) throw notAcceptable('set');
      need(req.user, 'write');
      menu.set(bodyParams(req.body));
      return json(menu.row(view));
    case 'DELETE':
      if (menu.kind !== 'list' || !menu.removable) throw notAcceptable('remove');
      throw badRequest('missing =.id=');
    default:
      throw noSuchCommand(last);
  }
}

/** Methods on `/<menu>/<id or name>`. */
function onRecord(menu: Menu, ref: string, req: RestRequest, view: View): Reply {
  if (menu.kind !== 'list' || req.method === 'PUT') throw noSuchCommand(ref);
  // A command word on GET is not a record: real routers answer 400 (real-formats §8).
  if (menuCommandWords(menu).has(ref) && req.method === 'GET') throw noSuchCommand(ref);
  if (req.method === 'DELETE' && !menu.removable) throw notAcceptable('remove');
  const id = menu.find(ref);
  if (id === undefined) {
    if (ref.startsWith('*') || menu.named) throw notFound();
    throw noSuchCommand(ref);
  }
  switch (req.method) {
    case 'GET': {
      need(req.user, 'read');
      const row = menu.row(id, view);
      if (row === undefined) throw notFound();
      return json(project(row, parseProplist(req.search.get('.proplist') ?? undefined)));
    }
    case 'PATCH': {
      need(req.user, 'write');
      menu.set(id, bodyParams(req.body));
      return json(menu.row(id, view) ?? {});
    }
    case 'DELETE':
      need(req.user, 'write');
      menu.remove(id);
      // An empty success: 204 is the HTTP status for "done, no body" (docs/emulator.md).
      return { kind: 'empty', status: 204 };
    default:
      throw noSuchCommand(ref);
  }
}
