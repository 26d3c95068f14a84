/**
 * What stands in front of the routes: the web config's response headers, HTTP Basic authentication, a cap on
 * scrapes answered at once and a deadline on every response, so neither a flood of scrapers nor clients that
 * never read can hold memory or sockets without bound.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BasicAuth } from './auth.js';
import { sendText } from './respond.js';
import type { WebConfigSource } from './web-source.js';

export interface ServerLimits {
  /** To receive a request's headers (slowloris). */
  headersTimeoutMs: number;
  /** To receive a whole request. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this; above the usual 60 s scrape interval, so scrapers reuse theirs. */
  keepAliveTimeoutMs: number;
  /** To finish a TLS handshake. */
  handshakeTimeoutMs: number;
  /** Open connections at once; further ones are closed as they arrive. */
  maxConnections: number;
  /** Largest request head accepted (431 beyond). */
  maxHeaderBytes: number;
  /** /metrics and /health answered at once; more get 503 with Retry-After. */
  maxConcurrentScrapes: number;
  /** A response not fully sent by then (a client that stopped reading) loses its connection. */
  responseTimeoutMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  handshakeTimeoutMs: 10_000,
  maxConnections: 512,
  maxHeaderBytes: 16 * 1024,
  maxConcurrentScrapes: 16,
  responseTimeoutMs: 30_000,
};

const SCRAPES = new Set(['/metrics', '/health']);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface GuardDeps {
  web: WebConfigSource | undefined;
  logger: Logger;
  limits: ServerLimits;
}

/** Wraps the routes' handler: headers, then authentication, then the scrape cap. `close` ends the bcrypt worker. */
export function guard(handle: Handler, deps: GuardDeps): { handle: Handler; close(): Promise<void> } {
  const auth = new BasicAuth(deps.logger);
  let scrapes = 0;
  const pass = (req: IncomingMessage, res: ServerResponse): void => {
    if (SCRAPES.has((req.url ?? '').split('?')[0] ?? '')) {
      if (scrapes >= deps.limits.maxConcurrentScrapes) {
        res.setHeader('retry-after', '1');
        sendText(res, 503, 'Too many scrapes at once; retry shortly.\n');
        return;
      }
      scrapes++;
      res.once('close', () => scrapes--);
    }
    handle(req, res);
  };
  const guarded: Handler = (req, res) => {
    const deadline = setTimeout(() => res.destroy(), deps.limits.responseTimeoutMs);
    deadline.unref();
    res.once('close', () => clearTimeout(deadline));
    const config = deps.web?.current();
    for (const [name, value] of Object.entries(config?.headers ?? {})) res.setHeader(name, value);
    if (config === undefined || config.users.size === 0) {
      pass(req, res);
      return;
    }
    auth.admit(config.users, req, res).then(
      (ok) => {
        // The client may have gone while bcrypt ran.
        if (ok && !res.destroyed) pass(req, res);
      },
      (error: unknown) => {
        deps.logger.error({ err: error }, 'authentication check failed');
        res.destroy();
      },
    );
  };
  return { handle: guarded, close: () => auth.close() };
}
