/** GET /metrics: prepared snapshots only; a scrape never waits on a router. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exposition } from '../metrics/exposition.js';
import { acceptsGzip, CONTENT_TYPES, negotiateFormat } from '../metrics/negotiate.js';
import { sendParts } from './respond.js';

export async function serveMetrics(exposition: Pick<Exposition, 'render'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const format = negotiateFormat(req.headers.accept);
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  const body = await exposition.render(format, gzip, req.method === 'HEAD');
  const headers: Record<string, string | number> = {
    'content-type': CONTENT_TYPES[format],
    'content-length': body.length,
    'cache-control': 'no-store',
    vary: 'Accept, Accept-Encoding',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  if (req.method === 'HEAD') {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  await sendParts(res, 200, headers, body.parts);
}
