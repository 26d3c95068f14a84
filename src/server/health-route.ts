/**
 * GET /health: the health verdicts as JSON (shape in docs/health.md), evaluated at request time from the latest
 * snapshots, so handshake ages keep growing between collections. 200 only when the status is `ok`, else 503, so
 * a plain HTTP check can alert on it. `?router=NAME` (repeatable) narrows it; an unknown name is a 404.
 * Gzip-compressed when the client accepts it: tens of thousands of peers make tens of MB of JSON. Judged and
 * written in slices (util/slices.ts), so a large report does not hold scrapes and collections up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoints } from './endpoints.js';
import type { RouterConfig } from '../config/types.js';
import { evaluateRoutersSteps } from '../health/report.js';
import type { Steps } from '../util/slices.js';
import { jsonBodySteps, sendJsonAnswer, sendJsonNegotiated, whileConnected, type JsonAnswer } from './respond.js';

export async function serveHealth(app: Pick<Endpoints, 'store' | 'routers' | 'now' | 'elapsed' | 'paused'>, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
  const configured = app.routers();
  const wanted = query.getAll('router');
  const unknown = wanted.filter((name) => !configured.some((router) => router.name === name));
  const encoding = req.headers['accept-encoding'];
  if (unknown.length > 0) {
    await sendJsonNegotiated(
      res,
      404,
      {
        error: `no router named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
        routers: configured.map((router) => router.name),
      },
      encoding,
    );
    return;
  }
  const routers = wanted.length === 0 ? configured : configured.filter((router) => wanted.includes(router.name));
  // Judged and written as one run of slices: a hub of 75,000 peers took 1.3 s in one task, scrapes and collections
  // waiting behind it.
  const answer = await whileConnected(res, healthAnswerSteps(routers, app.store, app.now(), app.elapsed(), app.paused?.bind(app)));
  if (answer !== undefined) await sendJsonAnswer(res, answer, encoding);
}

function* healthAnswerSteps(routers: readonly RouterConfig[], store: Endpoints['store'], now: number, elapsedNow: number, paused: ((since: number) => number) | undefined): Steps<JsonAnswer> {
  const { report } = yield* evaluateRoutersSteps(routers, store, now, elapsedNow, paused);
  return { status: report.status === 'ok' ? 200 : 503, body: yield* jsonBodySteps(report) };
}
