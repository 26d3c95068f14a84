/**
 * A read that only adds to a run (the ethernet link rates) fails: the run stands without that part, and the job says
 * so in one log line, with why, when it starts and one when it ends; not a line per run. Before, the rates were
 * left out with no word at all (found by review). Real emulator over HTTPS, the daemon's scheduler and client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { testConfig } from '../helpers/config.js';
import { writeCa } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';

const MONITOR = '/rest/interface/ethernet/monitor';
let emulator: Emulator;
let app: App;
const logs = captureLogs();

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'hq' }] });
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: {
      username: 'admin',
      password: '',
      timeout: '3s',
      tls: { ca_file: writeCa(emulator) },
      collectors: { system: false, wireguard: false, ping: false, health: false, firmware: false, bandwidth_test: false, interface: true },
    },
    routers: [{ name: 'hq', url: emulator.router('hq').url }],
  });
  app = createApp(config, { logger: logs.logger, jitter: false });
});

afterAll(async () => {
  await app.stop();
  await emulator.close();
});

const leftOutLines = () => logs.lines().filter((line) => line['left_out'] !== undefined || String(line['msg']).includes('nothing is left out'));
const linkSpeeds = () => app.exposition.routerText('text').split('\n').filter((line) => line.startsWith('routeros_interface_link_speed_bytes_per_second{')).length;
const interfaceSeries = () => app.exposition.routerText('text').split('\n').filter((line) => line.startsWith('routeros_interface_receive_bytes_total{')).length;

describe('a read that only adds to a run, failing', () => {
  it('is logged once with why while it fails, and once when it answers again; the run stands', async () => {
    await app.collectOnce();
    expect(app.store.snapshots('hq').find((snapshot) => snapshot.job === 'interface')?.ok).toBe(true);
    expect(leftOutLines()).toEqual([]);
    expect(linkSpeeds()).toBeGreaterThan(0);

    emulator.router('hq').setFaults({ status: { [MONITOR]: { code: 500, detail: 'not enough permissions (9)' } } });
    await app.collectOnce();
    await app.collectOnce();
    const failing = leftOutLines();
    expect(failing).toHaveLength(1);
    expect(failing[0]?.['level']).toBe(40);
    expect(failing[0]?.['job']).toBe('interface');
    expect(failing[0]?.['left_out']).toEqual([expect.stringMatching(/^the ethernet link rates \(interface\/ethernet\/monitor\): POST \/rest\/interface\/ethernet\/monitor: .*500/)]);
    // The run stands: the interface series are there, without the rates.
    expect(app.store.snapshots('hq').find((snapshot) => snapshot.job === 'interface')?.ok).toBe(true);
    expect(interfaceSeries()).toBeGreaterThan(0);
    expect(linkSpeeds()).toBe(0);

    emulator.router('hq').clearFaults();
    await app.collectOnce();
    await app.collectOnce();
    const lines = leftOutLines();
    expect(lines).toHaveLength(2);
    expect(lines[1]?.['level']).toBe(30);
    expect(lines[1]?.['msg']).toBe('the reads that only add to a run answer again: nothing is left out');
    expect(linkSpeeds()).toBeGreaterThan(0);
  });
});
