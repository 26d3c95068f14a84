/**
 * A "router" that accepts TCP and answers nothing, not even the TLS handshake: an overloaded www-ssl, or a firewall
 * that passes SYNs and drops the rest. It reads what comes (so it sees a close) and never writes.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';

export interface SilentRouter {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** Connections it holds now. */
  connections(): Promise<number>;
  close(): void;
}

export async function startSilentRouter(): Promise<SilentRouter> {
  const server: Server = createServer((socket) => {
    socket.resume();
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => new Promise((resolve) => server.getConnections((_error, count) => resolve(count))),
    close: () => server.close(),
  };
}
