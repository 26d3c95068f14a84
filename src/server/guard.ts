/**
 * What stands in front of the routes: the request target's check, the web config's response headers, HTTP
 * Basic authentication, a cap on scrapes answered at once (in total and per client), a deadline on every
 * response and a shorter one on write progress, so neither a flood of scrapers nor clients that never read can
 * hold memory or sockets without bound. Nothing a request carries can throw past it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BasicAuth } from './auth.js';
import { answerFailure, sendText, sendTooManyScrapes } from './respond.js';
import { ruleOf } from './routes.js';
import { ScrapeSlots } from './slots.js';
import { watchStall } from './stall.js';
import { targetOf } from './target.js';
import type { WebConfigSource } from './web-source.js';

export interface ServerLimits {
  /** To receive a request's headers (slowloris); also how long a new connection may stay silent. */
  headersTimeoutMs: number;
  /** To receive a whole request. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this; above the usual 60 s scrape interval, so scrapers reuse theirs. */
  keepAliveTimeoutMs: number;
  /** To finish a TLS handshake. */
  handshakeTimeoutMs: number;
  /** Open connections at once; further ones are closed as they arrive. */
  maxConnections: number;
  /** Open connections from one remote address; further ones from it are closed as they arrive. */
  maxConnectionsPerClient: number;
  /** Largest request head accepted (431 beyond). */
  maxHeaderBytes: number;
  /** /metrics and /health answered at once; more get 503 with Retry-After. */
  maxConcurrentScrapes: number;
  /** Of those, at most this many for one remote address. */
  maxScrapesPerClient: number;
  /** A response not fully sent by then (a client that stopped reading) loses its connection. */
  responseTimeoutMs: number;
  /** A response whose bytes make no progress to the client for this long loses its connection. */
  writeStallMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  handshakeTimeoutMs: 5_000,
  maxConnections: 512,
  maxConnectionsPerClient: 64,
  maxHeaderBytes: 16 * 1024,
  maxConcurrentScrapes: 16,
  maxScrapesPerClient: 8,
  responseTimeoutMs: 30_000,
  writeStallMs: 10_000,
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Scrapes pipelined on one connection that may wait for their turn; more are answered 503 at once. */
export const MAX_QUEUED_SCRAPES_PER_CONNECTION = 8;
/** Scrapes waiting for their turn, by connection. */
const queuedOn = new WeakMap<object, number>();

export interface GuardDeps {
  web: WebConfigSource | undefined;
  logger: Logger;
  limits: ServerLimits;
}

/**
 * Wraps the routes' handler: target check, headers, then authentication, then the scrape cap. `close` ends the
 * bcrypt worker.
 */
export function guard(handle: Handler, deps: GuardDeps): { handle: Handler; expectationFailed: Handler; close(): Promise<void> } {
  const auth = new BasicAuth(deps.logger);
  const slots = new ScrapeSlots(deps.limits.maxConcurrentScrapes, deps.limits.maxScrapesPerClient);
  const fail = (res: ServerResponse, error: unknown, message: string): void => answerFailure(res, deps.logger, error, message);

  const pass = (req: IncomingMessage, res: ServerResponse): void => {
    const target = targetOf(req);
    if (target.ok && ruleOf(target.path)?.scrape === true) {
      // A pipelined scrape waits for its turn on the connection before it takes a slot and renders: taken at
      // arrival, queued answers held slots they could not use (behind a first probe's wait, two connections held
      // all 16 for its 25 s), rendered bodies sat in memory, and a ninth pipelined scrape got 503 while only one
      // was answered at a time (found by review). Node hands the response its socket when its turn comes.
      if (res.socket === null) {
        // Queued answers write nothing, so Node's brake on a connection whose answers pile up unsent never engaged:
        // one connection had 410,000 scrapes taken in within 8 s, 1.2 GB (found by review). Past a few queued, a
        // scrape is answered 503 at once; that answer waits in the queue as bytes, and the brake holds.
        const connection = req.socket;
        const queued = queuedOn.get(connection) ?? 0;
        if (queued >= MAX_QUEUED_SCRAPES_PER_CONNECTION) {
          sendTooManyScrapes(res);
          return;
        }
        // Counted until its turn; a connection that closes first takes its count with it (a weak key, no listener).
        queuedOn.set(connection, queued + 1);
        res.once('socket', () => {
          const left = (queuedOn.get(connection) ?? 1) - 1;
          if (left <= 0) queuedOn.delete(connection);
          else queuedOn.set(connection, left);
          pass(req, res);
        });
        return;
      }
      const lease = slots.lease(req, req.socket.remoteAddress ?? '');
      if (lease === undefined) {
        sendTooManyScrapes(res);
        return;
      }
      // Free once the body is handed to the kernel, or the connection ends: what stays pinned after that is
      // the kernel's socket buffer, not a rendered exposition.
      const end = (): void => lease.end();
      res.once('finish', end);
      res.once('close', end);
    }
    try {
      handle(req, res);
    } catch (error) {
      fail(res, error, 'request failed');
    }
  };

  const guarded: Handler = (req, res) => {
    try {
      const deadline = setTimeout(() => res.destroy(), deps.limits.responseTimeoutMs);
      deadline.unref();
      res.once('close', () => clearTimeout(deadline));
      watchStall(res, deps.limits.writeStallMs);
      const config = deps.web?.current();
      for (const [name, value] of Object.entries(config?.headers ?? {})) res.setHeader(name, value);
      const target = targetOf(req);
      if (!target.ok) {
        sendText(res, 400, `Bad request: ${target.reason}.\n`);
        return;
      }
      if (config === undefined || config.users.size === 0) {
        pass(req, res);
        return;
      }
      auth.admit(config.users, req, res).then(
        (ok) => {
          // The client may have gone while bcrypt ran.
          if (ok && !res.destroyed) pass(req, res);
        },
        (error: unknown) => fail(res, error, 'authentication check failed'),
      );
    } catch (error) {
      fail(res, error, 'request failed');
    }
  };
  /** A request with an `Expect` the server does not meet (anything but 100-continue): 417, before anything else. */
  const expectationFailed: Handler = (_req, res) => {
    try {
      for (const [name, value] of Object.entries(deps.web?.current()?.headers ?? {})) res.setHeader(name, value);
      res.setHeader('connection', 'close');
      sendText(res, 417, 'Expectation failed: this server meets no expectation but 100-continue.\n');
    } catch (error) {
      fail(res, error, 'request failed');
    }
  };
  return { handle: guarded, expectationFailed, close: () => auth.close() };
}
