/** Routes of the exporter's HTTP server. Every route answers quickly from prepared state. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { App } from '../app.js';
import { VERSION } from '../version.js';
import { serveMetrics } from './metrics-route.js';
import { serveHealth } from './health-route.js';
import { landingPage } from './landing.js';
import { sendJson, sendText } from './respond.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function createRouter(app: App, logger: Logger): RequestHandler {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void> = {
    '/metrics': (req, res) => serveMetrics(app.exposition, req, res),
    '/health': (req, res, url) => serveHealth(app, req, res, url),
    '/-/healthy': (_req, res) => sendText(res, 200, 'Healthy.\n'),
    '/-/ready': (_req, res) =>
      app.ready() ? sendText(res, 200, 'Ready.\n') : sendText(res, 503, 'Not ready: not every router has been tried yet.\n'),
    '/-/reload': async (req, res) => {
      if (req.method !== 'POST' && req.method !== 'PUT') {
        res.setHeader('allow', 'POST');
        sendText(res, 405, 'Only POST reloads the configuration.\n');
        return;
      }
      const result = await app.reload();
      if (result.ok) sendText(res, 200, 'Configuration reloaded.\n');
      else sendJson(res, 400, { status: 'error', problems: result.problems });
    },
    '/': (_req, res) => sendText(res, 200, landingPage(VERSION, app.store.routerNames()), 'text/html; charset=utf-8'),
  };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://exporter');
    const route = routes[url.pathname];
    if (route === undefined) {
      sendText(res, 404, 'Not found. See / for the endpoints.\n');
      return;
    }
    if (url.pathname !== '/-/reload' && req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendText(res, 405, 'Method not allowed.\n');
      return;
    }
    Promise.resolve(route(req, res, url)).catch((error: unknown) => {
      logger.error({ err: error, path: url.pathname }, 'request failed');
      if (!res.headersSent) sendText(res, 500, 'Internal error.\n');
      else res.destroy();
    });
  };
}
