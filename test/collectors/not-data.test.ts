/**
 * A reply that is not the menu's data is a failure, never "up" or "no peers": a system/resource without version
 * or uptime (`{}`, `{"status":"ok"}` from something in between) leaves the router down; interface and peer lists
 * whose records hold none of the fields that make them one fail the collector; a record without them among good
 * ones is left out and counted, never a series with empty labels. Through the real scheduler, no socket.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { peerRecord, T0, WG_UP } from '../health/snapshots.js';

interface Replies {
  system: RouterRecord;
  interfaces: RouterRecord[];
  peers: RouterRecord[];
}

const GOOD: Replies = { system: { uptime: '5m', version: '7.19.4 (stable)' }, interfaces: [WG_UP], peers: [peerRecord('a', '5s')] };

async function collect(replies: Partial<Replies>): Promise<string> {
  const { system, interfaces, peers } = { ...GOOD, ...replies };
  const client = {
    list: (menu: string) => Promise.resolve(menu === 'interface/wireguard' ? interfaces : menu === 'interface/wireguard/peers' ? peers : []),
    getSingleton: () => Promise.resolve(system),
    run: () => Promise.resolve([]),
  };
  const store = new SnapshotStore();
  const scheduler = new Scheduler({
    store,
    logger: captureLogs().logger,
    clientFor: () => client as unknown as JobContext['client'],
    triggerFactory: new ManualTriggers().factory,
    jitter: false,
    now: () => T0,
  });
  scheduler.load(testConfig({ defaults: { username: 'u', password: 'p' }, routers: [{ name: 'hq', url: 'https://192.0.2.1' }] }));
  await scheduler.runAllOnce();
  await scheduler.stop();
  return new Exposition(store, new SelfMetrics({ version: 't' })).routerText('text');
}

const success = (collector: string, value: 0 | 1) => `routeros_collector_success{router="hq",collector="${collector}"} ${value}\n`;

/** Records that are not interfaces or peers: any fields but the ones that make them one. */
const notData = fc.array(
  fc.dictionary(
    fc.constantFrom('status', 'message', 'ret', '.id', 'comment', 'disabled', 'running', 'rx', 'interface', 'name'),
    fc.constantFrom('ok', '', 'true', '*1', '0'),
    { maxKeys: 4 },
  ),
  { minLength: 1, maxLength: 3 },
);

describe('replies that are not the menu data', () => {
  it('the good replies are up, with the peer', async () => {
    const text = await collect({});
    expect(text).toContain('routeros_up{router="hq"} 1\n');
    expect(text).toContain(success('wireguard', 1));
    expect(text).toContain('public_key="a-key-');
  });

  it.each([
    ['{}', {}],
    ['{"status":"ok"}', { status: 'ok' }],
    ['only fields the menu does not have', { ret: '*1', message: 'done' }],
  ])('a system/resource of %s leaves the router down, not up with an empty info series', async (_name, system) => {
    const text = await collect({ system });
    expect(text).toContain('routeros_up{router="hq"} 0\n');
    expect(text).not.toContain('routeros_system_info{');
  });

  it('a peer list of [{"status":"ok"}] fails the collector: no phantom peer with empty labels', async () => {
    const text = await collect({ peers: [{ status: 'ok' }] });
    expect(text).toContain(success('wireguard', 0));
    expect(text).not.toContain('public_key=""');
  });

  it('property: peer or interface lists of records without their key fields fail the collector, never a series with empty labels', async () => {
    await fc.assert(
      fc.asyncProperty(notData, fc.boolean(), async (records, asPeers) => {
        // A name makes an interface, interface and public-key a peer: no record here has a public-key, and the
        // interfaces lose their names.
        const stripped = asPeers ? records : records.map((record) => Object.fromEntries(Object.entries(record).filter(([key]) => key !== 'name')));
        const text = await collect(asPeers ? { peers: stripped } : { interfaces: stripped, peers: [] });
        expect(text).toContain(success('wireguard', 0));
        expect(text).not.toMatch(/interface="",|public_key=""/);
      }),
      { numRuns: 60 },
    );
  });

  it('a record without its key fields among good ones is left out and counted', async () => {
    const text = await collect({ peers: [peerRecord('a', '5s'), { interface: 'wg-branch', name: 'keyless' }] });
    expect(text).toContain(success('wireguard', 1));
    expect(text).toContain('routeros_collector_decode_errors_total{router="hq",collector="wireguard"} 1\n');
    expect(text).not.toContain('keyless');
  });
});
