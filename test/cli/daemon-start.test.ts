/**
 * A daemon whose collection fails to start is not left half-started: its schedules stopped, its listener closed,
 * the start's error handed to the caller (which exits), whichever way stopping goes. Before, the process kept
 * listening, unready, and never exited.
 */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon } from '../../src/cli/daemon.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { unusedPort } from '../helpers/ports.js';

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

const realStart = Scheduler.prototype.start;
const realStop = Scheduler.prototype.stop;

/**
 * The scheduler starts for real and then throws, as a schedule failing after others had started would; its stops
 * are counted, and with `stopFails` a stop rejects after stopping.
 */
function failingStart(stopFails = false): { stops: () => number } {
  let stops = 0;
  vi.spyOn(Scheduler.prototype, 'start').mockImplementation(function (this: Scheduler, runNow?: boolean) {
    realStart.call(this, runNow);
    throw new Error('a schedule could not be started');
  });
  vi.spyOn(Scheduler.prototype, 'stop').mockImplementation(async function (this: Scheduler) {
    stops++;
    await realStop.call(this);
    if (stopFails) throw new Error('stopping failed');
  });
  return { stops: () => stops };
}

afterEach(() => {
  vi.restoreAllMocks();
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
    const scheduler = failingStart();
    const port = await unusedPort();
    await expect(startDaemon(configOn(port), captureLogs().logger, undefined)).rejects.toThrow('a schedule could not be started');
    expect(scheduler.stops()).toBe(1);
    expect(await listening(port)).toBe(false);
  });

  it('reports the start’s error and closes its listener when stopping fails too', async () => {
    failingStart(true);
    const port = await unusedPort();
    const logs = captureLogs();
    await expect(startDaemon(configOn(port), logs.logger, undefined)).rejects.toThrow('a schedule could not be started');
    expect(await listening(port)).toBe(false);
    expect(logs.lines().some((line) => line.msg === 'stopping after a failed start failed too')).toBe(true);
  });
});
