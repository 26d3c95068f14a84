/**
 * Whether a request arrived whole. Every route but POST /-/reload answers from the request's head alone; a reload
 * changes what the exporter does, so it acts only on a request that arrived to its end: one whose body was cut
 * (the client closed or reset mid-body, or its framing broke) reloads nothing, where before the reload ran on the
 * head and Node's 400 for the broken body came after the 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A reload takes no body; one larger than this is refused (413) rather than read to its end. */
export const MAX_IGNORED_BODY_BYTES = 64 * 1024;

/** 'whole': the request ended; 'cut': it never will (the connection closed or failed first); 'too-large': see above. */
export type Arrival = 'whole' | 'cut' | 'too-large';

/**
 * Reads and drops the request's body, if any, and tells how the request ended. The request's time is bounded by
 * the server's request timeout (guard.ts), as every request's is. A client that sent `Expect: 100-continue` is
 * invited to send its body now: it got this far, so the guard let it through (listen.ts answers without 100
 * for every route that does not read the body).
 */
export function requestArrival(req: IncomingMessage, res: ServerResponse, limit = MAX_IGNORED_BODY_BYTES): Promise<Arrival> {
  if (req.complete) return Promise.resolve('whole');
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    let bytes = 0;
    const settle = (arrival: Arrival): void => {
      req.off('data', counted);
      req.off('end', ended);
      req.off('close', ended);
      resolve(arrival);
    };
    const counted = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > limit) {
        req.pause();
        settle('too-large');
      }
    };
    // 'close' without 'end': the connection went first. Either way only a complete message counts.
    const ended = (): void => settle(req.complete ? 'whole' : 'cut');
    // An aborted request may emit 'error' (ECONNRESET); 'close' follows and settles it.
    req.on('error', () => undefined);
    req.on('data', counted);
    req.once('end', ended);
    req.once('close', ended);
    if (/^\s*100-continue\s*$/i.test(req.headers.expect ?? '')) res.writeContinue();
  });
}
