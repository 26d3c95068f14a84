/**
 * In-process micro-benchmark of the exporter's own hot path, without sockets: RouterOS replies (from the
 * emulator's scale scenario) → JSON parse (in slices from 512 KB, as the client parses) → mapWireguard →
 * SnapshotStore.record (renders, deflates what changed) → /metrics plain (inflates) and gzip.
 * For before/after figures of changes in src/metrics and src/collectors:
 *   node --expose-gc --import tsx bench/micro.ts [--routers 100] [--peers 1000] [--cycles 4] [--no-gzip]
 * (without --expose-gc the memory columns include garbage not yet collected).
 */
import { parseArgs } from 'node:util';
import { mapSystem, SYSTEM_PROPLIST } from '../src/collectors/system.js';
import { INTERFACE_PROPLIST, mapWireguard, PEER_PROPLIST } from '../src/collectors/wireguard.js';
import { resolveConfig } from '../src/config/index.js';
import { startEmulator } from '../src/emulator/index.js';
import type { Row } from '../src/emulator/index.js';
import { Exposition } from '../src/metrics/exposition.js';
import { SelfMetrics } from '../src/metrics/self.js';
import { SnapshotStore } from '../src/metrics/store.js';
import { routerLabel } from '../src/metrics/family.js';
import { parseJsonBodyInSlices } from '../src/routeros/body.js';
import { asRecordList, asSingleRecord } from '../src/routeros/records.js';

const { values } = parseArgs({ options: { routers: { type: 'string' }, peers: { type: 'string' }, cycles: { type: 'string' }, 'no-gzip': { type: 'boolean' } } });
const withGzip = values['no-gzip'] !== true;
const routers = Number(values.routers ?? 100);
const peers = Number(values.peers ?? 1000);
const cycles = Number(values.cycles ?? 4);
const gc = (globalThis as { gc?: () => void }).gc;

const emulator = await startEmulator({ scenario: 'scale', scale: { routers, interfaces: 4, peers } });
await emulator.ready;
const health = resolveConfig(
  { defaults: { username: 'u', password: 'p' }, routers: [{ name: 'r', url: 'https://192.0.2.1' }] },
  { source: '<micro>', baseDir: process.cwd(), env: {} },
).routers[0]?.health;
if (health === undefined) throw new Error('no health config');

/** A reply body as the router sends it for `.proplist`, in the parts of 64 KiB it is read in. */
function reply(rows: readonly Row[], proplist: readonly string[]): Buffer[] {
  const body = Buffer.from(JSON.stringify(rows.map((row) => Object.fromEntries(proplist.filter((k) => k in row).map((k) => [k, row[k]])))));
  return Array.from({ length: Math.max(1, Math.ceil(body.length / 65_536)) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));
}

const store = new SnapshotStore();
store.plan(new Map(emulator.routers.map((r) => [r.name, [{ collector: 'system', job: 'system' }, { collector: 'wireguard', job: 'wireguard' }]] as const)));
const exposition = new Exposition(store, new SelfMetrics({ version: 'micro' }));
const MB = 1024 * 1024;

console.log(`${routers} routers × ${peers} peers, ${cycles} cycles`);
console.log('cycle     parse       map    record     plain    gzip-1    gzip-2    heapMB  buffersMB  rssMB   (ms per cycle)');
for (let cycle = 0; cycle < cycles; cycle++) {
  const replies = emulator.routers.map((r) => ({
    name: r.name,
    system: reply(r.rows('system/resource'), SYSTEM_PROPLIST),
    interfaces: reply(r.rows('interface/wireguard'), INTERFACE_PROPLIST),
    peers: reply(r.rows('interface/wireguard/peers'), PEER_PROPLIST),
  }));
  gc?.();
  let parse = 0;
  let map = 0;
  let record = 0;
  const now = Date.now();
  for (const r of replies) {
    const label = routerLabel(r.name);
    let t = performance.now();
    // As the client parses them: replies of 512 KB and more in slices, read in parts of 64 KiB.
    const system = asSingleRecord(await parseJsonBodyInSlices(r.system, 'GET'), 'GET');
    const interfaces = asRecordList(await parseJsonBodyInSlices(r.interfaces, 'GET'), 'GET');
    const list = asRecordList(await parseJsonBodyInSlices(r.peers, 'GET'), 'GET');
    parse += performance.now() - t;
    t = performance.now();
    const sys = mapSystem(system, label);
    const wg = mapWireguard(interfaces, list, label, health, now);
    map += performance.now() - t;
    t = performance.now();
    const base = { router: r.name, ok: true, finishedAt: now, durationSeconds: 0.1 } as const;
    store.record({ ...base, collector: 'system', job: 'system', samples: sys.samples, data: sys.data });
    store.record({ ...base, collector: 'wireguard', job: 'wireguard', samples: wg.samples, data: wg.data });
    record += performance.now() - t;
  }
  let t = performance.now();
  const plain = await exposition.render('text', false);
  const plainMs = performance.now() - t;
  // `record` deflates the families that changed; the plain render inflates them (first plain scrape after a
  // cycle); both gzip renders only lay deflated chunks end to end.
  t = performance.now();
  if (withGzip) await exposition.render('text', true);
  const gzipNew = performance.now() - t;
  t = performance.now();
  if (withGzip) await exposition.render('text', true);
  const gzipSame = performance.now() - t;
  gc?.();
  const memory = process.memoryUsage();
  const column = (value: number, width = 9): string => value.toFixed(width > 8 ? 1 : 0).padStart(width);
  console.log(
    `${String(cycle).padStart(5)} ${column(parse)} ${column(map)} ${column(record)} ${column(plainMs)} ${column(gzipNew)} ${column(gzipSame)} ` +
      `${column(memory.heapUsed / MB, 8)} ${column(memory.arrayBuffers / MB, 10)} ${column(memory.rss / MB, 6)}` +
      `   (${(plain.length / MB).toFixed(1)} MB in ${plain.parts.length} parts)`,
  );
}
await emulator.close();
