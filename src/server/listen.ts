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
  const handler = guarded.handle;
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
  // Without a listener Node drops a CONNECT request without a word; answer it like any other wrong method, with
  // the web config's headers as every answer has them (validated there: no control characters).
  server.on('connect', (_req, socket: Duplex) => {
    socket.on('error', () => undefined);
    const extra = Object.entries(web?.current()?.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
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
