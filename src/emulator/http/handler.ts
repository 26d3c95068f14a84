/**
 * One router's request pipeline: WebFig and HTML 404 outside /rest; under /rest faults, Basic auth,
 * the JSON body, dispatch, and the command cap (a request still running at the cap is cut with
 * 400 Session closed and the connection closes, spec §8).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sleep } from '../commands/types.js';
import { dispatch } from '../rest/dispatch.js';
import type { Reply } from '../rest/dispatch.js';
import { errorBody, RestError } from '../rest/errors.js';
import { parseRequestJson } from '../rest/json-in.js';
import { toJson } from '../rest/json-out.js';
import type { TreeNode } from '../rest/tree.js';
import type { RouterState } from '../state/router-state.js';
import type { User } from '../state/users.js';
import type { Faults, RouterStats } from '../types.js';
import { activeFaults, errorFaultDetail, replaceReply, rewriteBody, toBytes } from './faults.js';
import type { ActiveFaults } from './faults.js';
import { send } from './send.js';
import type { Outgoing } from './outgoing.js';
import { NOT_FOUND_PAGE, webfigPage } from './webfig.js';

/** A router's state and menu tree (built on first use in the scale scenario). */
export interface RouterWorld {
  readonly state: RouterState;
  readonly tree: TreeNode;
}

/** Where a router is in the post-boot race (see RebootOptions). */
export type BootPhase = 'up' | 'unauthorized' | 'wrong-body';

/** What a just-booted router was seen to send instead of the asked-for menu: the /user list. */
const WRONG_BODY: Outgoing = {
  status: 200,
  contentType: 'application/json',
  body: Buffer.from('[{".id":"*1","address":"","disabled":"false","expired":"false","group":"full","name":"admin"}]'),
};

export interface HandlerDeps {
  world(): RouterWorld;
  bootPhase(): BootPhase;
  readonly stats: RouterStats;
  readonly capMs: number;
  faults(): readonly Faults[];
  /** Registers an in-flight request so close() can end it; returns the unregister function. */
  track(controller: AbortController): () => void;
  /** The /emulator control endpoint, when enabled. */
  control?: (method: string, path: string, body: string) => Promise<Outgoing>;
}

/** Connections that served a request: a later request on one of them came over a kept-alive connection. */
const servedSockets = new WeakSet<object>();

/** Abort reasons: the command cap fired, or the client / emulator went away. */
const CAP = new Error('command cap');
const GONE = new Error('connection gone');

const METHODS = new Set(['GET', 'PUT', 'PATCH', 'DELETE', 'POST']);
const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = 'application/json';

export function jsonError(status: number, detail?: string, headers?: Record<string, string>): Outgoing {
  return { status, contentType: JSON_TYPE, body: Buffer.from(toJson(errorBody(status, detail))), ...(headers ? { headers } : {}) };
}

const html = (status: number, page: string): Outgoing => ({ status, contentType: 'text/html', body: Buffer.from(page) });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new RestError(413, 'request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The query string with percent-decoding only: a literal '+' stays '+' (form decoding would make
 * it a space and break base64 keys in conditions such as `?public-key=…+…=`).
 */
export function queryOf(search: string): URLSearchParams {
  const pairs: [string, string][] = [];
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    try {
      pairs.push(eq < 0 ? [decodeURIComponent(part), ''] : [decodeURIComponent(part.slice(0, eq)), decodeURIComponent(part.slice(eq + 1))]);
    } catch {
      throw new RestError(400, 'invalid URL encoding');
    }
  }
  return new URLSearchParams(pairs);
}

/**
 * The request target's path and query, without `new URL()` (which throws on targets such as `//`, and a throw
 * here would end the emulator). Origin-form and absolute-form; anything else is undefined (400).
 */
export function targetOf(raw: string | undefined): { path: string; search: string } | undefined {
  let target = raw ?? '';
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (absolute !== null) target = `/${target.slice(absolute[0].length).replace(/^\//, '')}`;
  if (!target.startsWith('/')) return undefined;
  const question = target.indexOf('?');
  return question < 0 ? { path: target, search: '' } : { path: target.slice(0, question), search: target.slice(question) };
}

function segmentsOf(pathname: string): string[] {
  try {
    return pathname.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
  } catch {
    throw new RestError(400, 'invalid URL encoding');
  }
}

function unauthorized(): Outgoing {
  return jsonError(401, undefined, { 'WWW-Authenticate': 'Basic realm="RouterOS"' });
}

function replyOut(reply: Reply, faults: ActiveFaults): Outgoing {
  if (reply.kind === 'empty') return { status: reply.status, body: Buffer.alloc(0) };
  const ok = reply.status < 300;
  const body = ok ? rewriteBody(reply.body, faults) : reply.body;
  let bytes = toBytes(toJson(body));
  if (ok && faults.brokenJson) bytes = bytes.subarray(0, Math.max(1, Math.floor(bytes.length * 0.6)));
  if (ok && faults.html) return html(200, webfigPage('RouterOS'));
  return { status: reply.status, contentType: JSON_TYPE, body: bytes };
}

async function serveRest(deps: HandlerDeps, req: IncomingMessage, url: { path: string; search: string }, faults: ActiveFaults, signal: AbortSignal): Promise<Outgoing | undefined> {
  const text = await readBody(req);
  if (faults.latencyMs > 0) await sleep(faults.latencyMs, signal);
  if (faults.status !== undefined) {
    const { code, detail } = faults.status;
    return code === 401 ? unauthorized() : jsonError(code, detail);
  }
  const faultDetail = errorFaultDetail(faults, req.headers.authorization);
  if (faultDetail !== undefined) return jsonError(500, faultDetail);
  if (!METHODS.has(req.method ?? '')) return jsonError(501);
  const phase = deps.bootPhase();
  if (phase === 'unauthorized') return unauthorized();
  if (phase === 'wrong-body') return WRONG_BODY;
  const { state, tree } = deps.world();
  const user: User | undefined = state.users.authenticate(req.headers.authorization);
  if (user === undefined || !user.policies.has('rest-api')) return unauthorized();
  const body = text.trim() === '' ? undefined : parseRequestJson(text);
  const reply = await dispatch(tree, state, {
    method: req.method ?? 'GET',
    segments: segmentsOf(url.path).slice(1),
    search: queryOf(url.search),
    body,
    user,
    signal,
  });
  return replaceReply(replyOut(reply, faults), faults);
}

export function createHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    deps.stats.requests++;
    // Whatever a request carries, a throw answers 500 (or cuts a started reply) and never reaches the process.
    const failed = (error: unknown): void => {
      console.error('routeros-emulator: internal error', error instanceof Error ? error.message : String(error));
      if (res.headersSent || res.destroyed) res.destroy();
      else void send(res, jsonError(500, 'internal emulator error'), undefined, new AbortController().signal).catch(() => res.destroy());
    };
    try {
      handle(deps, req, res).catch(failed);
    } catch (error) {
      failed(error);
    }
  };
}

async function handle(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = targetOf(req.url);
  if (url === undefined) {
    await send(res, jsonError(400, 'bad request target'), undefined, new AbortController().signal);
    return;
  }
  const path = url.path;
  // Whether this connection answered a request before (closeKept).
  const kept = servedSockets.has(req.socket);
  servedSockets.add(req.socket);
  const controller = new AbortController();
  const untrack = deps.track(controller);
  res.on('close', () => {
    controller.abort(GONE);
    untrack();
  });
  let cap: NodeJS.Timeout | undefined;
  let faults: ActiveFaults | undefined;
  let out: Outgoing | undefined;
  try {
    if (path === '/' || path === '') out = html(200, webfigPage(deps.world().state.identity.name));
    else if (deps.control !== undefined && path.startsWith('/emulator/')) {
      const user = deps.world().state.users.authenticate(req.headers.authorization);
      out = user === undefined ? unauthorized() : await deps.control(req.method ?? 'GET', path, await readBody(req));
    } else if (path !== '/rest' && !path.startsWith('/rest/')) out = html(404, NOT_FOUND_PAGE);
    else {
      faults = activeFaults(deps.faults(), `/${segmentsOf(path).slice(1).join('/')}`);
      if (faults.hang) return; // never answered; close() or the client ends it
      if (faults.closeKept && kept) {
        req.socket.destroy();
        return;
      }
      cap = setTimeout(() => controller.abort(CAP), deps.capMs);
      out = await serveRest(deps, req, url, faults, controller.signal);
    }
  } catch (error) {
    if (controller.signal.reason === CAP) out = jsonError(400, 'Session closed', { Connection: 'close' });
    else if (error instanceof RestError) out = jsonError(error.status, error.detail);
    else if (controller.signal.aborted) out = undefined;
    else {
      console.error('routeros-emulator: internal error', error);
      out = jsonError(500, 'internal emulator error');
    }
  } finally {
    clearTimeout(cap);
  }
  const capped = controller.signal.reason === CAP;
  if (out === undefined || res.headersSent || (controller.signal.aborted && !capped)) return;
  // Transport faults, like body faults, only mangle successful replies.
  const transportFaults = !capped && out.status < 300 ? faults : undefined;
  try {
    await send(res, out, transportFaults, controller.signal);
  } catch {
    // The client went away while we were writing: nothing left to tell it.
  }
}
