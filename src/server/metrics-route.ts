/**
 * GET /metrics: prepared snapshots only; a scrape never waits on a router. `?scope=exporter` narrows it to the
 * exporter's own series (build info, reloads, process, Node.js), for the exporter's own job beside per-router
 * /probe targets, which would otherwise collect every router's series twice.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RenderedBody } from '../metrics/exposition.js';
import { acceptsGzip, contentTypeFor, negotiateFormat, type ExpositionFormat } from '../metrics/negotiate.js';
import type { Endpoints } from './endpoints.js';
import { sendParts, sendText, writeHead } from './respond.js';

export type Render = (format: ExpositionFormat, gzip: boolean, headOnly: boolean) => Promise<RenderedBody> | undefined;

/**
 * Negotiates the format and encoding, renders and sends: the one way /metrics and /probe answer, so both have
 * the same content types, gzip and HEAD. False (nothing sent) when `render` has nothing to serve.
 */
export async function sendExposition(req: IncomingMessage, res: ServerResponse, render: Render): Promise<boolean> {
  const format = negotiateFormat(req.headers.accept);
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  const rendering = render(format, gzip, req.method === 'HEAD');
  if (rendering === undefined) return false;
  const body = await rendering;
  const headers: Record<string, string | number> = {
    'content-type': contentTypeFor(req.headers.accept, format),
    'content-length': body.length,
    'cache-control': 'no-store',
    vary: 'Accept, Accept-Encoding',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  if (req.method === 'HEAD') {
    writeHead(res, 200, headers);
    res.end();
    return true;
  }
  await sendParts(res, 200, headers, body.parts);
  return true;
}

export const SCOPES = ['all', 'exporter'] as const;

export async function serveMetrics(
  app: Pick<Endpoints, 'exposition' | 'renderSelf'>,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): Promise<void> {
  const scopes = query.getAll('scope');
  const scope = scopes[0] ?? 'all';
  if (scopes.length > 1 || !(SCOPES as readonly string[]).includes(scope)) {
    sendText(res, 400, `Bad request: "scope" is one of ${SCOPES.join(', ')}, given once.\n`);
    return;
  }
  await sendExposition(req, res, (format, gzip, head) => (scope === 'exporter' ? app.renderSelf(format, gzip, head) : app.exposition.render(format, gzip, head)));
}
