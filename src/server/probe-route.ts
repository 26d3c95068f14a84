/**
 * GET /probe?target=NAME: one router's series, for Prometheus-owned per-router targets (blackbox_exporter and
 * snmp_exporter style), served from the prepared snapshots exactly as /metrics is (negotiation, gzip, HEAD; the
 * guard applies authentication and the scrape cap to it). A configured router never makes a probe wait: its
 * collection runs on its own schedule, so a router that stops answering shows as routeros_up 0 in its own
 * target's body, not as a failed or slow scrape.
 *
 * With `profile=NAME` the target is a HOST[:PORT] from an inventory, handed to the discovered-target registry
 * (Endpoints.discover), which may wait for its first collection, bounded by the scrape's own timeout; the wait
 * holds no scrape slot, so first probes of routers that do not answer never turn other scrapes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DiscoverResult } from '../discovery/discover-result.js';
import type { Endpoints } from './endpoints.js';
import { crossSite } from './cross-site.js';
import { DEFAULT_LIMITS } from './guard.js';
import { sendExposition } from './metrics-route.js';
import { parseProbeQuery, probeWaitMs } from './probe-query.js';
import { retryAfterHeader, sendText, sendTooManyScrapes } from './respond.js';
import { scrapeLeaseOf, ScrapeSlots } from './slots.js';

/** A registry's reason, as it goes into a body: one line, bounded. */
function bounded(reason: string): string {
  // eslint-disable-next-line no-control-regex
  return reason.replace(/[\x00-\x1f\x7f]+/g, ' ').slice(0, 200);
}

export const NO_SUCH_ROUTER = 'No such router: target names a router of the configuration (listed by /sd); one from an inventory needs profile=NAME.\n';

export const SHUTTING_DOWN = 'Shutting down: the exporter takes no new target in.\n';

export const NOT_PLANNED_YET = 'Not ready: the target is accepted but has nothing to serve yet; retry shortly.\n';

/**
 * First probes that may wait for a first collection at once: per client address, and in all. One waiting probe holds
 * its request, its response, a timer and a closure (~6 KB), and a wait writes nothing, so Node's own brake on
 * pipelined requests (it stops reading a connection whose answers queue up unsent) never engaged: 150,000 probes
 * pipelined on three connections waited together, 0.9 GB, and a 256 MiB heap ran out (found by review). A probe past
 * these is answered at once with what exists (its answer then queues, and the brake holds), as at its wait's end.
 *
 * Per client, half the connections one address may open (guard.ts, 64): Prometheus scrapes each target over a
 * connection of its own, so with 256 a first scrape of an inventory held every connection its address may open in
 * waits of up to the scrape's timeout, and the exporter closed the next scrapes' connections as they came (100 first
 * probes at once: 36 reset; found by review). Past 32, a first probe answers at once and its connection is free again.
 */
export const MAX_WAITING_PROBES = 1024;
export const MAX_WAITING_PROBES_PER_CLIENT = DEFAULT_LIMITS.maxConnectionsPerClient / 2;

/** The waits of one server's first probes (ScrapeSlots counts them: per client and in all). */
export function probeWaits(): ScrapeSlots {
  return new ScrapeSlots(MAX_WAITING_PROBES, MAX_WAITING_PROBES_PER_CLIENT);
}

export async function serveProbe(
  app: Pick<Endpoints, 'renderRouter' | 'discover'>,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  waits: ScrapeSlots = probeWaits(),
): Promise<void> {
  const parsed = parseProbeQuery(query);
  if (!parsed.ok) {
    sendText(res, 400, `Bad request: ${parsed.reason}.\n`);
    return;
  }
  let router = parsed.target;
  if (parsed.profile !== undefined) {
    if (app.discover === undefined) {
      sendText(res, 404, 'No such profile: the configuration has no profiles.\n');
      return;
    }
    const waiting = waits.take(req.socket.remoteAddress ?? '');
    // The wait holds no rendered body: the scrape slot goes back for it (slots.ts) and is taken again after.
    const lease = waiting === undefined ? undefined : scrapeLeaseOf(req);
    lease?.suspend();
    // A client that leaves ends its wait: the wait is one of its few (above), not the scrape timeout's to hold. It
    // leaves with a reset (the response closes) or with its FIN, which the server reads as a half-close (listen.ts)
    // and answers anyway: a client that only half-closed gets what exists now instead of after the wait.
    const gone = new AbortController();
    const leave = (): void => gone.abort();
    const socket = req.socket;
    res.once('close', leave);
    socket.once('end', leave);
    // A FIN read before this request got here (behind a Basic check on its worker, or behind pipelined requests) has
    // had its one 'end' already: the client is as gone (found by review).
    if (socket.readableEnded || res.destroyed) gone.abort();
    let result: DiscoverResult;
    try {
      // A page of another site, through the operator's browser, would have the exporter log in to a target it names:
      // it is served what is polled already, and nothing new (the registry refuses it, 403).
      result = await app.discover(parsed.target, parsed.profile, waiting === undefined ? 0 : probeWaitMs(req.headers), { gone: gone.signal, fromPage: crossSite(req) });
    } finally {
      res.off('close', leave);
      socket.off('end', leave);
      waiting?.();
    }
    if (res.destroyed) return;
    if (lease !== undefined && !lease.resume()) {
      sendTooManyScrapes(res);
      return;
    }
    switch (result.kind) {
      case 'unknown_profile':
        sendText(res, 404, 'No such profile.\n');
        return;
      case 'refused':
        sendText(res, 403, `Refused: ${bounded(result.reason)}.\n`);
        return;
      case 'full':
        // When the profile's next target is due to be forgotten (it said 60 while that was hours away; found by review).
        res.setHeader('retry-after', retryAfterHeader(result.retryAfterSeconds ?? 60));
        sendText(res, 429, `Too many targets: ${bounded(result.reason)}.\n`);
        return;
      case 'closed':
        sendText(res, 503, SHUTTING_DOWN);
        return;
      case 'ready':
      case 'timeout':
        router = result.router;
        break;
    }
  }
  const served = await sendExposition(req, res, (format, gzip, head) => app.renderRouter(router, format, gzip, head));
  if (served) return;
  if (parsed.profile !== undefined) {
    // Every other answer of the registry returned above: a profile target here is one it accepted. Accepted, but the scheduler has not taken it in yet (loads are paced under a burst of first probes, see
    // discovery/registry.ts) or it was forgotten meanwhile: nothing to serve now, and the next scrape will know.
    res.setHeader('retry-after', '1');
    sendText(res, 503, NOT_PLANNED_YET);
    return;
  }
  sendText(res, 404, NO_SUCH_ROUTER);
}
