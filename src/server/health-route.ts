/** GET /health: placeholder until the health verdicts land; answers per the contract's shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { sendJson } from './respond.js';

export function serveHealth(app: App, _req: IncomingMessage, res: ServerResponse, url: URL): void {
  const only = url.searchParams.get('router');
  const routers = app.store.routerNames().filter((name) => only === null || name === only);
  sendJson(res, 200, { status: 'ok', routers: routers.map((name) => ({ name })) });
}
