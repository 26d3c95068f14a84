/**
 * Where an emulated router listens when it is not told a port. A router keeps its port across stop() and start(),
 * and a stopped router must refuse connections, not hand them to someone else; a port from the kernel's ephemeral
 * range goes back, once closed, to the pool every `listen(0)` and every outgoing connection's source port draws
 * from. Another server could take it meanwhile (the router could not come back), and a client connecting to it
 * could even meet itself (TCP simultaneous open when its source port is the port itself), so a router meant to be
 * down answered with the client's own TLS hello. A port drawn below that range is taken only by someone asking
 * for it by number.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';

/** Below this, ports are named by number: the demo's 9731, Prometheus's 9090, well-known services. */
export const LOWEST_DRAWN_PORT = 10_000;
const TRIES = 64;

/** The first port of the kernel's ephemeral range (Linux's default where it cannot be read). */
export function ephemeralRangeStart(): number {
  try {
    const first = Number.parseInt(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0] ?? '', 10);
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** A port drawn at random below the ephemeral range, or undefined when the range leaves too little room below it. */
export function drawPort(): number | undefined {
  const end = ephemeralRangeStart();
  if (end - LOWEST_DRAWN_PORT < 1_000) return undefined;
  return LOWEST_DRAWN_PORT + randomInt(end - LOWEST_DRAWN_PORT);
}

function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Listens on the port, or on a drawn one when it is 0 (another on a port someone holds; the OS's pick when no
 * room is left below the ephemeral range or every draw was taken).
 */
export async function listenKeepable(server: Server, port: number, host: string): Promise<void> {
  if (port !== 0) return listenOn(server, port, host);
  for (let tries = 0; tries < TRIES; tries++) {
    const drawn = drawPort();
    if (drawn === undefined) break;
    try {
      return await listenOn(server, drawn, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  return listenOn(server, 0, host);
}
