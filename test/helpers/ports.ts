/**
 * A loopback port the OS just handed out and nothing listens on now: for a child process to listen on, or
 * for a router URL whose connections are refused. Shared by the tests, the bench and the soak script.
 */
import { createServer } from 'node:net';

export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
