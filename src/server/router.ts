/**
 * Routes of the exporter's HTTP server. Every route answers quickly from prepared state. The route is the
 * normalised path (target.ts) and its methods come from routes.ts; a throw anywhere in a route answers 500
 * and is logged once, never reaching the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Endpoints, RequestHandler } from './endpoints.js';
import { VERSION } from '../version.js';
import { isAuthenticated } from './auth.js';
import { serveMetrics } from './metrics-route.js';
import { serveHealth } from './health-route.js';
import { probeWaits, serveProbe } from './probe-route.js';
import { serveSd } from './sd-route.js';
import { landingPage } from './landing.js';
import { answerFailure, sendJson, sendText } from './respond.js';
import { BODY_WAIT_MS, MAX_IGNORED_BODY_BYTES, requestArrival } from './request-arrival.js';
import { ruleOf } from './routes.js';
import { targetOf } from './target.js';
import { crossSite } from './cross-site.js';
import { redactSecrets } from '../util/redact.js';

export type { RequestHandler } from './endpoints.js';

type Route = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => Promise<void> | void;

export const LIFECYCLE_DISABLED =
  'Lifecycle API is not enabled: start the exporter with --web.enable-lifecycle, or protect it with basic_auth_users in the web config.\n';

/**
 * Reload requests waiting for the reload they asked for, at most: a waiting request writes nothing, so Node's brake on
 * a connection whose answers pile up never engaged, and a client pipelining reloads on one connection grew the
 * exporter for as long as a reload took (found by review). Past this, 503 at once with Retry-After: waiters share
 * the reload queued behind a running one (app.ts), so the ones let in already cover a change made before them.
 */
export const MAX_RELOADS_WAITING = 16;

export function createRouter(app: Endpoints, logger: Logger): RequestHandler {
  let reloadsWaiting = 0;
  const waits = probeWaits();
  const routes: Record<string, Route> = {
    '/metrics': (req, res, query) => serveMetrics(app, req, res, query),
    '/probe': (req, res, query) => serveProbe(app, req, res, query, waits),
    '/sd': (req, res) => serveSd(app, req, res),
    '/health': (req, res, query) => serveHealth(app, req, res, query),
    '/-/healthy': (_req, res) => sendText(res, 200, 'Healthy.\n'),
    '/-/ready': (_req, res) =>
      app.ready() ? sendText(res, 200, 'Ready.\n') : sendText(res, 503, 'Not ready: not every router has been tried yet.\n'),
    '/-/reload': async (req, res) => {
      // Like Prometheus' --web.enable-lifecycle; users in the web config mean only they get this far.
      if (!app.lifecycleEnabled() && !isAuthenticated(req)) {
        sendText(res, 403, LIFECYCLE_DISABLED);
        return;
      }
      // A browser's form or fetch from another site carries its Origin (and Sec-Fetch-Site), and the Basic
      // credentials it has cached: a page anywhere could reload the exporter (found by review). Tools that reload
      // (curl, a config manager) send neither.
      if (crossSite(req)) {
        sendText(res, 403, 'Forbidden: a reload asked for by a page of another site is refused.\n');
        return;
      }
      const arrival = await requestArrival(req, res);
      // Cut: the connection is gone, or Node answers its 400 for the broken body. Either way nothing is reloaded.
      if (arrival === 'cut') return;
      if (arrival === 'too-large') {
        res.setHeader('connection', 'close');
        sendText(res, 413, `Content too large: a reload takes no body (at most ${MAX_IGNORED_BODY_BYTES} bytes are read and ignored).\n`);
        return;
      }
      if (arrival === 'slow') {
        res.setHeader('connection', 'close');
        sendText(res, 408, `Request timeout: the body did not arrive within ${BODY_WAIT_MS / 1000} s; nothing was reloaded.\n`);
        return;
      }
      if (reloadsWaiting >= MAX_RELOADS_WAITING) {
        res.setHeader('retry-after', '1');
        sendText(res, 503, `Service unavailable: ${MAX_RELOADS_WAITING} reload requests are waiting already; retry once they are answered.\n`);
        return;
      }
      reloadsWaiting++;
      let result: Awaited<ReturnType<typeof app.reload>>;
      try {
        result = await app.reload();
      } finally {
        reloadsWaiting--;
      }
      if (result.ok) sendText(res, 200, 'Configuration reloaded.\n');
      // Redacted as the log line of the same event is: a value in the wrong place may be the running password.
      else {
        sendJson(res, 400, {
          status: 'error',
          ...(result.source === undefined ? {} : { source: redactSecrets(result.source) }),
          problems: result.problems.map((problem) => ({ ...problem, path: redactSecrets(problem.path), message: redactSecrets(problem.message) })),
        });
      }
    },
    '/': (_req, res) => sendText(res, 200, landingPage(VERSION, app.routerNames()), 'text/html; charset=utf-8'),
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    const target = targetOf(req);
    if (!target.ok) {
      sendText(res, 400, `Bad request: ${target.reason}.\n`);
      return;
    }
    const rule = ruleOf(target.path);
    const route = routes[target.path];
    if (rule === undefined || route === undefined) {
      sendText(res, 404, 'Not found. See / for the endpoints.\n');
      return;
    }
    if (!rule.methods.includes(req.method ?? '')) {
      res.setHeader('allow', rule.methods.join(', '));
      sendText(res, 405, `Method not allowed: ${target.path} answers ${rule.methods.join(', ')}.\n`);
      return;
    }
    return route(req, res, target.query);
  };

  return (req, res) => {
    const failed = (error: unknown): void => answerFailure(res, logger, error, 'request failed');
    try {
      Promise.resolve(dispatch(req, res)).catch(failed);
    } catch (error) {
      failed(error);
    }
  };
}
