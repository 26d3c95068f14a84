/**
 * A daemon whose collection fails to start is not left half-started: its listener closed, nothing scheduled, the
 * error handed to the caller (which exits). Before, the process kept listening, unready, and never exited.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

vi.mock('../../src/app.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/app.js')>();
  return { ...original, createApp: vi.fn(original.createApp) };
});

const { startDaemon } = await import('../../src/cli/daemon.js');

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

afterEach(() => {
  vi.mocked(createApp).mockReset();
});

describe('startDaemon', () => {
  it('closes its listener and stops the app when the app fails to start, and rejects with the error', async () => {
    const original = (await vi.importActual<typeof import('../../src/app.js')>('../../src/app.js')).createApp;
    let stopped = 0;
    vi.mocked(createApp).mockImplementation((config, deps) => {
      const app = original(config, deps);
      return {
        ...app,
        start: () => {
          throw new Error('a schedule could not be started');
        },
        stop: async () => {
          stopped++;
          await app.stop();
        },
      };
    });
    // A free port, so that whether it still listens afterwards can be asked.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const config = testConfig({
      listen: `127.0.0.1:${port}`,
      defaults: { username: 'admin', password: '', schedules: { system: '0 0 1 1 *', wireguard: '0 0 1 1 *' } },
      routers: [{ name: 'r1', url: 'https://192.0.2.1' }],
    });
    await expect(startDaemon(config, captureLogs().logger, undefined)).rejects.toThrow('a schedule could not be started');
    expect(stopped).toBe(1);
    expect(await listening(port)).toBe(false);
  });
});
