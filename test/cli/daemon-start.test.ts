/**
 * A daemon whose collection fails to start is not left half-started: its schedules stopped, its listener closed,
 * the start's error handed to the caller (which exits), whichever way stopping goes. Before, the process kept
 * listening, unready, and never exited.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

vi.mock('../../src/app.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/app.js')>();
  return { ...original, createApp: vi.fn(original.createApp) };
});

const { startDaemon } = await import('../../src/cli/daemon.js');
const realCreateApp = (await vi.importActual<typeof import('../../src/app.js')>('../../src/app.js')).createApp;

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

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** An app whose start starts for real and then throws, as a schedule failing after others started would. */
function failingStart(stop: (app: App) => Promise<void>): { app: () => App | undefined } {
  let made: App | undefined;
  vi.mocked(createApp).mockImplementation((config, deps) => {
    const app = realCreateApp(config, deps);
    made = app;
    return {
      ...app,
      start: () => {
        app.start();
        throw new Error('a schedule could not be started');
      },
      stop: () => stop(app),
    };
  });
  return { app: () => made };
}

afterEach(() => {
  vi.mocked(createApp).mockReset();
});

describe('startDaemon', () => {
  const configOn = (port: number): ReturnType<typeof testConfig> =>
    testConfig({
      listen: `127.0.0.1:${port}`,
      // Runs start at once on start (a documentation address: they wait on a connect that never answers).
      defaults: { username: 'admin', password: '', schedules: { system: '* * * * *', wireguard: '* * * * *' } },
      routers: [{ name: 'r1', url: 'https://192.0.2.1' }],
    });

  it('stops the half-started app and closes its listener, and rejects with the start’s error', async () => {
    let stops = 0;
    const made = failingStart(async (app) => {
      stops++;
      await app.stop();
    });
    const port = await freePort();
    await expect(startDaemon(configOn(port), captureLogs().logger, undefined)).rejects.toThrow('a schedule could not be started');
    expect(stops).toBe(1);
    expect(await listening(port)).toBe(false);
    // Stopped for real: a second stop finds nothing running and settles at once.
    await made.app()?.stop();
  });

  it('reports the start’s error and closes its listener when stopping fails too', async () => {
    failingStart(async (app) => {
      await app.stop();
      throw new Error('stopping failed');
    });
    const port = await freePort();
    const logs = captureLogs();
    await expect(startDaemon(configOn(port), logs.logger, undefined)).rejects.toThrow('a schedule could not be started');
    expect(await listening(port)).toBe(false);
    expect(logs.lines().some((line) => line.msg === 'stopping after a failed start failed too')).toBe(true);
  });
});
