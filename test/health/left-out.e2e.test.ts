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
/** The routers' timeout: a reload to another makes the job a new runner (scheduler.ts). */
let timeout = '3s';
const logs = captureLogs();

beforeAll(async () => {
  emulator = await startEmulator({ routers: [{ name: 'hq' }] });
  const config = (timeout: string) => testConfig({
    listen: '127.0.0.1:0',
    defaults: {
      username: 'admin',
      password: '',
      timeout,
      tls: { ca_file: writeCa(emulator) },
      collectors: { system: false, wireguard: false, ping: false, health: false, firmware: false, bandwidth_test: false, interface: true },
    },
    routers: [{ name: 'hq', url: emulator.router('hq').url }],
  });
  app = createApp(config(timeout), { logger: logs.logger, jitter: false, loadConfig: () => Promise.resolve(config(timeout)) });
});

afterAll(async () => {
  await app.stop();
  await emulator.close();
});

const leftOutLines = () => logs.lines().filter((line) => line['left_out'] !== undefined || line['answered_again'] !== undefined);
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

    // Every ethernet port down, then up again, the monitor still failing: a run with no port to ask about made no
    // such read and says nothing of it. Before, it counted as "answers again", and the next as a new warning: two
    // lines a run on a flapping port (found by review).
    const ethernet = emulator.router('hq').rows('interface').filter((row) => row['type'] === 'ether' && row['running'] === 'true');
    expect(ethernet.length).toBeGreaterThan(0);
    for (const port of ethernet) expect(emulator.router('hq').setLink(String(port['name']), false)).toBe(true);
    await app.collectOnce();
    expect(linkSpeeds()).toBe(0);
    for (const port of ethernet) emulator.router('hq').setLink(String(port['name']), true);
    await app.collectOnce();
    expect(leftOutLines()).toHaveLength(1);

    // A reload that makes the job anew keeps what it knew: the part left out before is told when it answers.
    timeout = '4s';
    expect(await app.reload()).toEqual({ ok: true });
    await app.collectOnce();
    expect(leftOutLines()).toHaveLength(1);

    emulator.router('hq').clearFaults();
    await app.collectOnce();
    await app.collectOnce();
    const lines = leftOutLines();
    expect(lines).toHaveLength(2);
    expect(lines[1]?.['level']).toBe(30);
    expect(lines[1]?.['answered_again']).toEqual(['the ethernet link rates (interface/ethernet/monitor)']);
    expect(linkSpeeds()).toBeGreaterThan(0);
  });
});
