/**
 * Whether a request arrived whole. Every route but POST /-/reload answers from the request's head alone; a reload
 * changes what the exporter does, so it acts only on a request that arrived to its end: one whose body was cut
 * (the client closed or reset mid-body, or its framing broke) reloads nothing, where before the reload ran on the
 * head and Node's 400 for the broken body came after the 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A reload takes no body; one larger than this is refused (413) rather than read to its end. */
export const MAX_IGNORED_BODY_BYTES = 64 * 1024;

/**
 * How long a body may take to arrive. Below the guard's response deadline (30 s, guard.ts), which would destroy
 * the connection without a word, so a client that dribbles its body hears 408 (found by review).
 */
export const BODY_WAIT_MS = 10_000;

/**
 * 'whole': the request ended; 'cut': it never will (the connection closed or failed first); 'too-large': see
 * above; 'slow': its body did not arrive within the wait.
 */
export type Arrival = 'whole' | 'cut' | 'too-large' | 'slow';

/** Requests that Node handed over as expecting `100 Continue` (listen.ts): HTTP/1.1, its own reading of Expect. */
const continueExpected = new WeakSet<IncomingMessage>();

/** Marks a request that Node's `checkContinue` event handed over: only such a request is sent `100 Continue`. */
export function expectsContinue(req: IncomingMessage): void {
  continueExpected.add(req);
}

export interface ArrivalOptions {
  /** How long the body may take (BODY_WAIT_MS unless a test sets it shorter). */
  waitMs?: number;
}

/**
 * Reads and drops the request's body, if any, and tells how the request ended. A request marked by
 * expectsContinue is invited to send its body now: it got this far, so the guard let it through (listen.ts
 * answers without 100 for every route that does not read the body). Never an HTTP/1.0 request (RFC 9110
 * §10.1.1: the expectation is ignored there), nor one whose Expect Node did not read as 100-continue.
 */
export function requestArrival(req: IncomingMessage, res: ServerResponse, options: ArrivalOptions = {}): Promise<Arrival> {
  if (req.complete) return Promise.resolve('whole');
  // Gone already: no event would come.
  if (req.destroyed) return Promise.resolve('cut');
  if (Number(req.headers['content-length'] ?? 0) > MAX_IGNORED_BODY_BYTES) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    let bytes = 0;
    const timer = setTimeout(() => {
      req.pause();
      settle('slow');
    }, options.waitMs ?? BODY_WAIT_MS);
    const settle = (arrival: Arrival): void => {
      clearTimeout(timer);
      req.off('data', counted);
      req.off('end', ended);
      req.off('close', ended);
      resolve(arrival);
    };
    const counted = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > MAX_IGNORED_BODY_BYTES) {
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
    if (continueExpected.has(req)) res.writeContinue();
  });
}
