/** The daemon gives V8's young generation back while quiet, says so in its debug log, and stops on shutdown. */
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../src/cli/daemon.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

const MB = 1024 * 1024;

describe('the daemon’s young-generation trim', () => {
  it('asks once the process is quiet, logs what was given back at debug level, and stops watching on shutdown', async () => {
    const logs = captureLogs();
    let young = 32 * MB;
    const requests: number[] = [];
    let watching = false;
    // A router that is never reached: only the daemon's own life matters here.
    const config = testConfig({
      listen: '127.0.0.1:0',
      defaults: { username: 'admin', password: '', schedules: { system: '0 0 1 1 *', wireguard: '0 0 1 1 *' } },
      routers: [{ name: 'r1', url: 'https://127.0.0.1:9' }],
    });
    const daemon = await startDaemon(config, logs.logger, undefined, undefined, {
      firstAfterMs: 20,
      collect: () => {
        requests.push(Date.now());
        young = 1 * MB;
      },
      youngBytes: () => young,
      watchCollections: () => {
        watching = true;
        return () => (watching = false);
      },
    });
    try {
      expect(watching).toBe(true);
      await expect
        .poll(() => logs.lines().find((entry) => entry.msg === 'young generation given back while quiet'), { timeout: 5_000, interval: 20 })
        .toMatchObject({ level: 20, before_bytes: 32 * MB, after_bytes: 1 * MB, attempt: 1 });
      expect(requests).toHaveLength(1);
    } finally {
      await daemon.shutdown('test');
    }
    expect(watching).toBe(false);
  });
});
