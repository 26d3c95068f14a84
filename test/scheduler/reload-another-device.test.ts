/**
 * A reload that points a router's name at another URL may point it at another device: what its jobs learnt of the
 * old one (the start believed, the parts of a run left out) is not carried to the new one, while a reload that keeps
 * the URL (a new timeout) keeps it. Found by review: the old device's start, believed over the new one's, kept a
 * device up longer than the old one from ever having its start believed; and a part the new device left out for
 * the same cause as the old one was never told.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { WireguardData } from '../../src/collectors/wireguard.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

const HOUR = 3_600;
const DAY = 86_400;

/** One device: a tunnel with a keepalive peer (so its start is read) and an uptime, or a refused uptime read. */
class Device implements Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> {
  constructor(readonly uptimeSeconds: number | 'refused') {}

  list(menu: string): Promise<RouterRecord[]> {
    if (menu === 'interface/wireguard') return Promise.resolve([{ '.id': '*1', name: 'wg0', 'public-key': 'b'.repeat(43) + '=', 'listen-port': '13231', running: 'true', disabled: 'false' }]);
    return Promise.resolve([
      { '.id': '*2', interface: 'wg0', 'public-key': 'a'.repeat(43) + '=', 'persistent-keepalive': '25s', rx: '0', tx: '1480', disabled: 'false' },
    ]);
  }

  getSingleton(): Promise<RouterRecord> {
    if (this.uptimeSeconds === 'refused') return Promise.reject(new RouterOsError('ROS_ERR_PERMISSION', 'GET /rest/system/resource: not enough permissions (9)'));
    return Promise.resolve({ uptime: `${Math.floor(this.uptimeSeconds / DAY)}d${Math.floor((this.uptimeSeconds % DAY) / HOUR)}h` });
  }

  run(): Promise<unknown> {
    return Promise.reject(new Error('no commands here'));
  }
}

function configAt(url: string, timeout = '2s') {
  return testConfig({
    defaults: { username: 'u', password: 'p', timeout, collectors: { system: false, interface: false, wireguard: true, health: false, firmware: false } },
    routers: [{ name: 'branch', url }],
  });
}

function setup(devices: Record<string, Device>) {
  const logs = captureLogs();
  const store = new SnapshotStore();
  const scheduler = new Scheduler({
    store,
    logger: logs.logger,
    clientFor: (router) => devices[router.url] as unknown as JobContext['client'],
    jitter: false,
  });
  const collect = async (): Promise<WireguardData> => {
    expect(await scheduler.runAllOnce()).toEqual(['ok']);
    const snapshot = store.snapshots('branch').find((one) => one.job === 'wireguard');
    return snapshot?.data as WireguardData;
  };
  const leftOutWarnings = () => logs.lines().filter((line) => line['left_out'] !== undefined);
  return { scheduler, collect, leftOutWarnings };
}

describe('a reload that points a router at another URL', () => {
  it("believes the new device's start, though the old one started later", async () => {
    const { scheduler, collect } = setup({ 'https://192.0.2.1': new Device(2 * HOUR), 'https://192.0.2.2': new Device(30 * DAY) });
    scheduler.load(configAt('https://192.0.2.1'));
    const old = await collect();
    expect(Date.now() / 1000 - (old.bootedAt ?? 0)).toBeCloseTo(2 * HOUR, -1);
    scheduler.load(configAt('https://192.0.2.2'));
    const moved = await collect();
    expect(moved.bootedAt).toBeDefined();
    expect(Date.now() / 1000 - (moved.bootedAt ?? 0)).toBeCloseTo(30 * DAY, -1);
    await scheduler.stop();
  });

  it('at the same URL, with other settings, keeps what it knew: the start as first believed', async () => {
    // The same device read again says it started 30 days ago; the start believed two hours ago stays (a start
    // before the read before is not a restart: wireguard-boot.ts), so the memory was carried.
    const device = new Device(2 * HOUR);
    const { scheduler, collect } = setup({ 'https://192.0.2.1': device });
    scheduler.load(configAt('https://192.0.2.1'));
    const first = await collect();
    scheduler.load(configAt('https://192.0.2.1', '3s'));
    Object.assign(device, { uptimeSeconds: 30 * DAY });
    const after = await collect();
    expect(after.bootedAt).toBeUndefined();
    expect(first.bootedAt).toBeDefined();
    await scheduler.stop();
  });

  it('tells a part the new device leaves out, for the same cause as the old one; not again at the same URL', async () => {
    const devices = { 'https://192.0.2.1': new Device('refused'), 'https://192.0.2.2': new Device('refused') };
    const { scheduler, collect, leftOutWarnings } = setup(devices);
    scheduler.load(configAt('https://192.0.2.1'));
    await collect();
    expect(leftOutWarnings()).toHaveLength(1);
    scheduler.load(configAt('https://192.0.2.1', '3s'));
    await collect();
    expect(leftOutWarnings()).toHaveLength(1);
    scheduler.load(configAt('https://192.0.2.2'));
    await collect();
    expect(leftOutWarnings()).toHaveLength(2);
    await scheduler.stop();
  });
});
