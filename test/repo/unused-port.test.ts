/**
 * The port the tests name for a refused router or a child's listener comes from below the kernel's ephemeral range,
 * where no `listen(0)` and no outgoing connection can take it meanwhile (a CI run met a URL meant to be refused
 * answering TLS: "r1 (tls)", not "r1 (connect)").
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRangeStart, LOWEST_DRAWN_PORT } from '../../src/emulator/ports.js';
import { unusedPort } from '../helpers/ports.js';

function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('unusedPort', () => {
  it('draws ports below the ephemeral range, spread out, each refusing connections', async () => {
    const end = ephemeralRangeStart();
    expect(end).toBeGreaterThan(11_000);
    const ports = await Promise.all(Array.from({ length: 20 }, () => unusedPort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(LOWEST_DRAWN_PORT);
      expect(port).toBeLessThan(end);
    }
    expect(new Set(ports).size).toBeGreaterThan(15);
    expect(await refused(ports[0]!)).toBe('ECONNREFUSED');
  });
});
