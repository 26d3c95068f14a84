/**
 * A loopback port nothing listens on now: for a child process to listen on, or for a router URL whose connections
 * are refused. Shared by the tests, the bench and the soak script. Drawn below the kernel's ephemeral range as the
 * emulator's routers are (src/emulator/ports.ts says why): a CI run met a URL meant to be refused answering TLS,
 * "r1 (tls)" and not "r1 (connect)", its port taken back into the pool `listen(0)` and source ports draw from.
 */
import { createServer } from 'node:net';
import { drawPort } from '../../src/emulator/ports.js';

export { ephemeralRangeStart } from '../../src/emulator/ports.js';

const TRIES = 64;

/** Listens on the port (0: any the OS hands out) and lets it go at once: the port, or undefined when it was held. */
function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

export async function unusedPort(): Promise<number> {
  for (let tries = 0; tries < TRIES; tries++) {
    const drawn = drawPort();
    if (drawn === undefined) break;
    const port = await bindable(drawn);
    if (port !== undefined) return port;
  }
  const any = await bindable(0);
  if (any === undefined) throw new Error('no port could be bound on 127.0.0.1');
  return any;
}
