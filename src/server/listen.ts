/**
 * Starts the HTTP server for an app on a `host:port` address: HTTPS and Basic authentication when the web
 * config asks for them, with limits against slow or greedy clients (guard.ts, connections.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions as HttpServerOptions, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import pino, { type Logger } from 'pino';
import { checkListen, type ListenAddress } from '../config/net.js';
import type { RequestHandler } from './endpoints.js';
import { admitConnections } from './connections.js';
import { DEFAULT_LIMITS, guard, type ServerLimits } from './guard.js';
import { expectsContinue } from './request-arrival.js';
import { TlsRefusals } from './tls-refusals.js';
import { tlsServerOptions } from './web-config.js';
import type { WebConfigSource } from './web-source.js';

export type { ListenAddress } from '../config/net.js';

/**
 * `0.0.0.0:9731`, `[::]:9731`, `:9731` (all interfaces), `localhost:0`. The config's own verdict
 * (checkListen), so check-config accepts exactly what the server can listen on.
 */
export function parseListen(text: string): ListenAddress {
  const check = checkListen(text);
  if ('problem' in check) throw new Error(`invalid listen address: ${check.problem}`);
  return check.address;
}

export interface ServerOptions {
  /** TLS, users and headers; absent → plain HTTP for everyone. */
  web?: WebConfigSource;
  logger?: Logger;
  limits?: Partial<ServerLimits>;
}

export function startServer(app: { readonly handle: RequestHandler }, listen: string, options: ServerOptions = {}): Promise<Server> {
  const { host, port } = parseListen(listen);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const web = options.web;
  const logger = options.logger ?? pino({ level: 'silent' });
  const guarded = guard(app.handle, { web, limits, logger });
  const answering = new AnswersInProgress();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    answering.started(req, res);
    guarded.handle(req, res);
  };
  const common: HttpServerOptions = {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often the header and request timeouts are enforced (Node's default, 30 s, would let them overrun).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 2),
  };
  const tls = web?.current()?.tls;
  let server: Server;
  if (web === undefined || tls === undefined) {
    server = createServer(common, handler);
  } else {
    const https = createHttpsServer({ ...common, ...tlsServerOptions(tls), handshakeTimeout: limits.handshakeTimeoutMs }, handler);
    // The TLS layer's own socket would end at the client's FIN whatever HTTP says (below), so it is left half open
    // too, but only once the handshake is done: a client that leaves during it is let go at once, not held until
    // the handshake timeout.
    https.prependListener('secureConnection', (socket: Duplex) => {
      socket.allowHalfOpen = true;
    });
    web.onChange((config) => {
      if (config?.tls !== undefined) https.setSecureContext(tlsServerOptions(config.tls));
    });
    // Before Node's own listener builds the TLS socket from the current context, so a rotated certificate is
    // served from the very next connection.
    https.prependListener('connection', () => web.current());
    const refusals = new TlsRefusals(logger);
    // A client certificate that does not verify ends the connection after OpenSSL's handshake, without an error of
    // its own: Node then reports "socket hang up" (ECONNRESET), and the reason is the socket's authorizationError
    // (found by review). By then the socket has no address left to give.
    https.on('tlsClientError', (error, socket) => {
      const refused: unknown = socket.authorizationError;
      const reason = typeof refused === 'string' ? refused : (refused as { code?: unknown } | null)?.code;
      refusals.note(typeof reason === 'string' ? { code: reason } : error, socket.remoteAddress);
    });
    https.once('close', () => refusals.close());
    server = https;
  }
  // A client may half-close its side once its request is sent (`nc -N`, scripts that shut their socket's write
  // side): that neither ends the request nor says the answer is unwanted (RFC 9112 §9.6). Node's default ends the
  // connection at that FIN, so every answer not written in the same task as the request was lost: all of them
  // behind Basic authentication (its check runs on a worker), /health judged in slices, gzip on the thread pool.
  // With this, the answer in progress is the connection's last, and it ends once that is written. The price: a
  // client that closed altogether sends the same FIN, so its answer is made to the end (within the scrape slots
  // and response limits) and the connection ends at its first write; a reset still stops it at once.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.maxHeadersCount = 100;
  server.maxConnections = limits.maxConnections;
  admitConnections(server, limits);
  const extraHeaders = (): string =>
    Object.entries(web?.current()?.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  // Without a listener Node drops a CONNECT request without a word; answer it like any other wrong method, with
  // the web config's headers as every answer has them (validated there: no control characters).
  server.on('connect', (_req, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST\r\n${extraHeaders()}Content-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  // A request Node cannot parse (a bad header, one after `Connection: close`, a head too large): Node's own answer,
  // a bare 400 written at once, went out ahead of the answers still being made to the requests pipelined before it
  // on the connection, which were lost (a reload made, and its client told 400; found by a hostile tester), and
  // without the configured headers. Those answers are now written first (for at most PIPELINED_WAIT_MS), then the
  // refusal, with the headers, and the connection ends.
  const refused = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Once per connection, and nothing more read from it: left reading while an earlier answer went out, every chunk
    // failed the parse again, each with a listener, a timer and its bytes kept (one connection took 1.8 GB in 7 s;
    // found by review). Only the code is kept.
    if (refused.has(socket)) return;
    refused.add(socket);
    socket.pause();
    socket.on('error', () => undefined);
    const code = error.code;
    const refuse = (): void => {
      if (!socket.writable || code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      const status = code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      // Written and let go at once, as Node does (a small write leaves at once; a TLS connection whose handshake never
      // came has nothing to wait for): nothing more is read from a connection whose requests cannot be told apart.
      socket.write(`HTTP/1.1 ${status}\r\n${extraHeaders()}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      socket.destroy();
    };
    answering.whenDone(socket, refuse);
  });
  // `Expect: 100-continue`: Node would send 100 Continue, inviting the body, before the guard has checked the
  // credentials. The request goes to the guard at once instead; every route but POST /-/reload answers without
  // reading a body (RFC 9110 §10.1.1 lets a server answer without the 100), and that one sends the 100 itself
  // once the guard has let it through (request-arrival.ts).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    expectsContinue(req);
    handler(req, res);
  });
  // Any other expectation: 417, through the guard's answer path so it carries the configured headers.
  server.on('checkExpectation', guarded.expectationFailed);
  server.once('close', () => void guarded.close());
  return new Promise((resolve, reject) => {
    // Said as the listen address's failure: a host name that does not resolve read `getaddrinfo ENOTFOUND x`, which
    // did not say what x was (found by review). The code stays for whoever tells failures apart by it.
    const failed = (error: NodeJS.ErrnoException): void => {
      reject(Object.assign(new Error(`cannot listen on ${listen} (listen, --listen): ${error.message}`), { code: error.code }));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server);
    });
  });
}

/** How long a refused connection's answers to the requests pipelined before the refusal may take to be written. */
const PIPELINED_WAIT_MS = 10_000;

/** What AnswersInProgress keeps of a connection. */
interface Answering {
  /** Answers begun and not yet closed. */
  open: number;
  /** The connection's latest request: while its body is still coming, a parse error is its own. */
  latest: IncomingMessage;
  /** The refusal waiting for the open answers, if any. */
  waiting: (() => void) | undefined;
}

/** The answers each connection is still making, so a refusal on it waits for them (clientError above). */
class AnswersInProgress {
  readonly #connections = new WeakMap<Duplex, Answering>();

  started(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const answering = this.#connections.get(socket) ?? { open: 0, latest: req, waiting: undefined };
    this.#connections.set(socket, answering);
    answering.latest = req;
    answering.open++;
    res.once('close', () => {
      answering.open--;
      if (answering.open > 0) return;
      const then = answering.waiting;
      answering.waiting = undefined;
      then?.();
    });
  }

  /**
   * Calls `then` once the connection has no answer in progress, or after PIPELINED_WAIT_MS, whichever comes first;
   * at once when the error is in the body of the latest request (a body cut short): that request is the one refused.
   */
  whenDone(socket: Duplex, then: () => void): void {
    const answering = this.#connections.get(socket);
    if (answering === undefined || answering.open === 0 || !answering.latest.complete) {
      then();
      return;
    }
    let done = false;
    const once = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      then();
    };
    const timer = setTimeout(once, PIPELINED_WAIT_MS);
    timer.unref();
    answering.waiting = once;
  }
}

/** The URL a person can open for a listening server. */
export function serverUrl(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') return String(address);
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const scheme = server instanceof HttpsServer ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Closes the server: idle keep-alive sockets now, busy ones when their response ends, all by the deadline. */
export async function closeServer(server: Server, deadlineMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
  timer.unref();
  await closed;
  clearTimeout(timer);
}
