/**
 * Connection admission: at most `maxConnectionsPerClient` open connections per remote address (further ones
 * are closed as they arrive), and, once three quarters of `maxConnections` are open, idle keep-alive
 * connections are closed to make room (at most once a second), so idle sockets cannot starve new scrapes.
 * Node's own `maxConnections` stays the hard cap behind both.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const REAP_EVERY_MS = 1000;

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerClient: number;
}

export function admitConnections(server: Server, limits: ConnectionLimits): void {
  const byClient = new Map<string, number>();
  let open = 0;
  let reapedAt = Number.NEGATIVE_INFINITY;
  const reapAbove = Math.floor((limits.maxConnections * 3) / 4);
  // Before Node's own listener (HTTP parser or TLS socket) is set up for it.
  server.prependListener('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const mine = byClient.get(client) ?? 0;
    if (mine >= limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    byClient.set(client, mine + 1);
    open++;
    socket.once('close', () => {
      open--;
      const left = (byClient.get(client) ?? 1) - 1;
      if (left === 0) byClient.delete(client);
      else byClient.set(client, left);
    });
    const now = performance.now();
    if (open > reapAbove && now - reapedAt >= REAP_EVERY_MS) {
      reapedAt = now;
      server.closeIdleConnections();
    }
  });
}
