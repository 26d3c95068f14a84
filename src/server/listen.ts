/** Starts the HTTP server for an app on a `host:port` address, with limits against slow or greedy clients. */
import { createServer, type Server } from 'node:http';
import type { App } from '../app.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `0.0.0.0:9731`, `[::]:9731`, `:9731` (all interfaces), `localhost:0`. */
export function parseListen(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65535) {
    throw new Error(`invalid listen address "${text}": expected host:port, e.g. 0.0.0.0:9731 or [::]:9731`);
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
}

export function startServer(app: App, listen: string): Promise<Server> {
  const { host, port } = parseListen(listen);
  const server = createServer(app.handle);
  // Slow clients cannot hold sockets forever; scrapes are answered from memory, so these are generous.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  server.maxHeadersCount = 100;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The URL a person can open for a listening server. */
export function serverUrl(server: Server): string {
  const address = server.address();
  if (address === null || typeof address === 'string') return String(address);
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
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
