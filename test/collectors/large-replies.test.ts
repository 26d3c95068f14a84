/**
 * A router may list tens of thousands of peers or interfaces (a 32 MiB reply of 80,000 peers held the event loop
 * for 2.4 s: every scrape and every other router's run waited). Mapping and storing such a reply gives the event
 * loop back between slices, and comes out exactly as it does in one go.
 */
import { describe, expect, it, vi } from 'vitest';
import { mapWireguard, mapWireguardSteps, wireguardCollector } from '../../src/collectors/wireguard.js';
import { mapInterfaces, mapInterfacesSteps } from '../../src/collectors/interface.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { plainOf, type Chunk } from '../../src/metrics/gzip.js';
import { DEFLATE_OFF_LOOP_FROM, SampleSet } from '../../src/metrics/samples.js';
import { routerLabel } from '../../src/metrics/family.js';
import { WIREGUARD_FAMILIES as F } from '../../src/collectors/wireguard.contract.js';
import { finishInSlices } from '../../src/util/slices.js';
import type { JobContext } from '../../src/collectors/types.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { testConfig, testRouter } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ManualTriggers } from '../helpers/manual-trigger.js';
import { peerRecord, T0, WG_UP } from '../health/snapshots.js';
import { ALLOWED_ADDRESSES_READ } from '../../src/collectors/wireguard-probe.js';

const LABEL = routerLabel('hq');
const DEFAULT_INTERFACE_FILTER = testRouter().interfaces;
const NOW = T0;

function plainText(chunks: readonly (Chunk | undefined)[]): string {
  return chunks.map((chunk) => (chunk === undefined ? '' : plainOf(chunk).toString('utf8'))).join('');
}

/** Peers of every kind a verdict can take, with twins and records without a key among them. */
function manyPeers(count: number, sent = 0): RouterRecord[] {
  const peers: RouterRecord[] = [];
  for (let i = 0; i < count; i++) {
    const handshake = i % 7 === 0 ? undefined : i % 5 === 0 ? '3h' : `${i % 90}s`;
    peers.push(peerRecord(`p${i}`, handshake, { rx: String(i * 10), tx: String(i * 3 + (i % 2 === 0 ? sent : 0)), ...(i % 11 === 0 ? { 'persistent-keepalive': '25s' } : {}) }));
  }
  // A twin (same interface and key) and a record without a key.
  peers.push(peerRecord('p1', '5s'));
  peers.push({ interface: 'wg-branch', name: 'keyless' });
  return peers;
}

describe('large replies, mapped in slices', () => {
  it('maps a router of thousands of peers exactly as in one go, pausing about every 256 peers', async () => {
    const peers = manyPeers(3_000);
    const later = manyPeers(3_000, 1_000);
    const health = testRouter().health;
    const memoryOnce = new Map<string, number>();
    const memorySliced = new Map<string, number>();
    // Two runs each: the second compares traffic with the first (the counter memory).
    let once = mapWireguard([WG_UP], peers, LABEL, health, NOW, memoryOnce);
    once = mapWireguard([WG_UP], later, LABEL, health, NOW + 30_000, memoryOnce);
    let pauses = 0;
    const options = { budgetMs: 0, onPause: () => pauses++ };
    let sliced = await finishInSlices(mapWireguardSteps([WG_UP], peers, LABEL, health, NOW, memorySliced), options);
    sliced = await finishInSlices(mapWireguardSteps([WG_UP], later, LABEL, health, NOW + 30_000, memorySliced), options);
    expect(sliced.data).toEqual(once.data);
    expect(sliced.problems).toEqual(once.problems);
    expect(sliced.decodeErrors).toBe(once.decodeErrors);
    expect(plainText(sliced.samples.toChunks())).toBe(plainText(once.samples.toChunks()));
    expect([...once.data.peers].filter((peer) => peer.txMoved).length).toBeGreaterThan(0);
    expect(pauses).toBeGreaterThanOrEqual(2 * Math.floor(3_000 / 256));
  });

  it('maps thousands of wireguard interfaces in slices too, exactly as in one go', async () => {
    const interfaces: RouterRecord[] = Array.from({ length: 3_000 }, (_, i) => ({ ...WG_UP, name: `wg${i}`, 'listen-port': String(10_000 + i) }));
    const health = testRouter().health;
    let pauses = 0;
    const once = mapWireguard(interfaces, [], LABEL, health, NOW);
    const sliced = await finishInSlices(mapWireguardSteps(interfaces, [], LABEL, health, NOW), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced.data).toEqual(once.data);
    expect(plainText(sliced.samples.toChunks())).toBe(plainText(once.samples.toChunks()));
    // Every pass pauses: the names written out, the search for twins among them, the interfaces' own loop, and
    // the sets of disabled and stopped ones (900,000 interfaces took one task of 0.9 s in the last two).
    expect(pauses).toBeGreaterThanOrEqual(4 * Math.floor(3_000 / 256));
  });

  it(`labels a peer with the first ${ALLOWED_ADDRESSES_READ} entries of its allowed-address, and counts a longer list (2 million took ~2 s)`, () => {
    const addresses = Array.from({ length: ALLOWED_ADDRESSES_READ + 500 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.0/24`);
    const result = mapWireguard([WG_UP], [peerRecord('wide', '5s', { 'allowed-address': addresses.join(',') })], LABEL, testRouter().health, NOW);
    expect(result.decodeErrors).toBe(1);
    expect(result.problems[0]).toMatch(new RegExp(`allowed-address lists more than ${ALLOWED_ADDRESSES_READ} entries; its label holds the first ${ALLOWED_ADDRESSES_READ}$`));
    const info = plainText(result.samples.toChunks())
      .split('\n')
      .find((line) => line.startsWith('routeros_wireguard_peer_info{'));
    // The label keeps its first 1,024 characters and a digest of the entries read; none past them.
    expect(info).toContain('allowed_address="10.0.0.0/24,10.0.1.0/24,');
    const within = mapWireguard([WG_UP], [peerRecord('wide', '5s', { 'allowed-address': addresses.slice(0, ALLOWED_ADDRESSES_READ).join(',') })], LABEL, testRouter().health, NOW);
    expect(within.decodeErrors).toBe(0);
    expect(plainText(within.samples.toChunks()).split('\n').find((line) => line.startsWith('routeros_wireguard_peer_info{'))).toBe(info);
  });

  it('maps thousands of interfaces exactly as in one go, pausing between slices', async () => {
    const records: RouterRecord[] = Array.from({ length: 2_000 }, (_, i) => ({
      '.id': `*${i}`,
      name: i % 500 === 0 ? 'ether1' : `vlan${i}`,
      type: i % 3 === 0 ? 'ether' : 'vlan',
      running: String(i % 2 === 0),
      disabled: 'false',
      'rx-byte': String(i * 1000),
      'tx-byte': i % 13 === 0 ? 'lots' : String(i),
    }));
    let pauses = 0;
    const once = mapInterfaces(records, LABEL, DEFAULT_INTERFACE_FILTER);
    const sliced = await finishInSlices(mapInterfacesSteps(records, LABEL, DEFAULT_INTERFACE_FILTER), { budgetMs: 0, onPause: () => pauses++ });
    expect(sliced.data).toEqual(once.data);
    expect([...sliced.ethernetUp]).toEqual([...once.ethernetUp]);
    expect(sliced.problems).toEqual(once.problems);
    expect(plainText(sliced.samples.toChunks())).toBe(plainText(once.samples.toChunks()));
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(2_000 / 256));
  });

  it('chooses among thousands of twins writing each row out once: work bounded by the reply, not twins × row (found by review)', () => {
    // One long row, then twins alike in every name, id and count: only their whole text tells them apart. The row
    // kept so far was written out again against each twin: 7 s of CPU for a 1 MB reply of 3,000 twins.
    const long = { a: 'x'.repeat(64 * 1024), name: 'e', type: 'ether' };
    const records: RouterRecord[] = [long, ...Array.from({ length: 1_000 }, () => ({ name: 'e', type: 'ether' }))];
    const replyBytes = JSON.stringify(records).length;
    const stringify = JSON.stringify;
    let written = 0;
    const counting = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const text = stringify(...args);
      written += text?.length ?? 0;
      return text;
    });
    let result: ReturnType<typeof mapInterfaces>;
    try {
      result = mapInterfaces(records, LABEL, DEFAULT_INTERFACE_FILTER);
    } finally {
      counting.mockRestore();
    }
    expect(result.problems).toEqual(['interface 1000 rows repeat the name and type of another; each is exported from its row with the lowest .id']);
    expect(written).toBeLessThan(2 * replyBytes);
  });

  it('seals a set into the chunks toChunks makes: families of megabytes deflated off the event loop, unchanged ones taken over', async () => {
    const fill = (samples: SampleSet, peers: number, value: number): void => {
      for (let i = 0; i < peers; i++) {
        const labels = `router="hq",interface="wg0",public_key="${String(i).padStart(43, 'k')}=",name="peer ${i}"`;
        samples.add(F.wgPeerRx, labels as never, i * value);
        samples.add(F.wgPeerTx, labels as never, i);
      }
    };
    // ~120 bytes a line: 20,000 peers make families of ~2.4 MB, over DEFLATE_OFF_LOOP_FROM.
    const whole = new SampleSet();
    fill(whole, 20_000, 7);
    const sealed = new SampleSet();
    fill(sealed, 20_000, 7);
    const expected = whole.toChunks();
    expect(Math.max(...Array.from(expected, (chunk) => (chunk === undefined ? 0 : plainOf(chunk).length)))).toBeGreaterThan(DEFLATE_OFF_LOOP_FROM);
    let pauses = 0;
    await sealed.seal(undefined, { budgetMs: 0, onPause: () => pauses++ });
    const chunks = sealed.toChunks();
    expect(plainText(chunks)).toBe(plainText(expected));
    expect(Array.from(chunks, (chunk) => chunk?.crc)).toEqual(Array.from(expected, (chunk) => chunk?.crc));
    expect(pauses).toBeGreaterThan(0);
    // The next run: rx changed, tx did not; tx's deflated bytes are taken over, not deflated again.
    const next = new SampleSet();
    fill(next, 20_000, 8);
    await next.seal(chunks);
    const nextChunks = next.toChunks();
    expect(nextChunks[F.wgPeerTx.index]?.deflated).toBe(chunks[F.wgPeerTx.index]?.deflated);
    expect(nextChunks[F.wgPeerRx.index]?.deflated).not.toBe(chunks[F.wgPeerRx.index]?.deflated);
    expect(plainText(nextChunks)).toContain(`interface="wg0",public_key="${String(19_999).padStart(43, 'k')}=",name="peer 19999"} ${19_999 * 8}\n`);
  });

  it('a set being sealed refuses new lines and its chunks until the seal ends: its bytes are being deflated off the loop', async () => {
    const samples = new SampleSet();
    for (let i = 0; i < 20_000; i++) samples.add(F.wgPeerRx, `router="hq",interface="wg0",public_key="${String(i).padStart(43, 'k')}=",name="p"` as never, i);
    const sealing = samples.seal(undefined);
    expect(() => samples.add(F.wgPeerRx, 'router="hq",interface="wg0",public_key="x",name=""' as never, 1)).toThrow(/while it was being sealed/);
    expect(() => samples.toChunks()).toThrow(/while it was being sealed/);
    await sealing;
    expect(plainText(samples.toChunks())).toContain(`public_key="${String(19_999).padStart(43, 'k')}=",name="p"} 19999\n`);
  });

  it('lines added after a seal are not lost: the chunks are made again', async () => {
    const samples = new SampleSet();
    samples.add(F.wgPeerRx, 'router="hq",interface="wg0",public_key="a",name=""' as never, 1);
    await samples.seal(undefined);
    samples.add(F.wgPeerRx, 'router="hq",interface="wg0",public_key="b",name=""' as never, 2);
    const text = plainText(samples.toChunks());
    expect(text).toContain('public_key="a",name=""} 1\n');
    expect(text).toContain('public_key="b",name=""} 2\n');
  });

  /** Answers at once: a run over it is only promise continuations, unless the run itself gives the loop back. */
  const answering = (peers: RouterRecord[]): Pick<JobContext['client'], 'list' | 'getSingleton' | 'run'> => ({
    list: (menu: string) => Promise.resolve(menu === 'interface/wireguard' ? [WG_UP] : menu === 'interface/wireguard/peers' ? peers : []),
    getSingleton: () => Promise.resolve({ uptime: '5m', version: '7.19.4 (stable)' }),
    run: () => Promise.resolve([]),
  });

  it('a wireguard job mapping 20,000 peers lets a timer fire before it returns (in one go it could not)', async () => {
    const router = testRouter({ name: 'hq' });
    const [job] = wireguardCollector.jobs(router);
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 1);
    const result = await job?.run({ router, client: answering(manyPeers(20_000)), routerLabel: LABEL, now: () => NOW, signal: new AbortController().signal, memory: new Map() });
    order.push('mapped');
    expect(order).toEqual(['timer', 'mapped']);
    expect(result?.data.peers).toHaveLength(20_000);
  });

  it('a wireguard run of 20,000 peers lets a timer fire while it maps and stores them (in one go it could not)', async () => {
    const peers = manyPeers(20_000);
    const store = new SnapshotStore();
    const logs = captureLogs();
    const client = answering(peers);
    const scheduler = new Scheduler({
      store,
      logger: logs.logger,
      clientFor: () => client as unknown as JobContext['client'],
      triggerFactory: new ManualTriggers().factory,
      jitter: false,
      now: () => NOW,
    });
    scheduler.load(testConfig({ defaults: { username: 'u', password: 'p' }, routers: [{ name: 'hq', url: 'https://192.0.2.1', collectors: { system: false, interface: false, health: false, firmware: false } }] }));
    // The client answers at once: in one go, the whole run would be promise continuations, and no timer could fire
    // before it ends.
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 1);
    await scheduler.runAllOnce();
    order.push('run stored');
    expect(order).toEqual(['timer', 'run stored']);
    const snapshot = store.snapshots('hq').find((s) => s.job === 'wireguard');
    expect(snapshot?.ok).toBe(true);
    expect(plainText(snapshot?.chunks ?? [])).toContain('name="p19999"');
    await scheduler.stop();
  });
});
