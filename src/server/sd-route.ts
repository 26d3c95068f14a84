/** GET /sd: the http_sd_configs groups (sd-groups.ts), gzip when accepted (a large fleet's list is long). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoints } from './endpoints.js';
import { sendJsonNegotiated } from './respond.js';

export async function serveSd(app: Pick<Endpoints, 'sdGroups'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Prometheus wants an array (an empty one when there is nothing to probe), Content-Type application/json.
  await sendJsonNegotiated(res, 200, app.sdGroups(), req.headers['accept-encoding']);
}
