/**
 * A daemon that starts and never collects (one router at a documentation address whose schedules fire once a
 * year), for tests of what starting the daemon sets up in the process.
 */
import { startDaemon } from '../../src/cli/daemon.js';
import { testConfig } from './config.js';
import { captureLogs } from './log-capture.js';

export async function withIdleDaemon(check: () => void): Promise<void> {
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'admin', password: '', schedules: { system: '0 0 1 1 *', wireguard: '0 0 1 1 *' } },
    routers: [{ name: 'r1', url: 'https://192.0.2.1' }],
  });
  const daemon = await startDaemon(config, captureLogs().logger, undefined);
  try {
    check();
  } finally {
    await daemon.shutdown('test');
  }
}
