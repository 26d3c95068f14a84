/**
 * Small chunks stored and merged in runs (gzip.ts storedChunks, merge.ts, exposition.ts): valid gzip whatever mix
 * of stored, deflated and merged chunks a scrape lays, runs used only while current, and at fleet shape (many
 * routers with a few peers) a gzip body within 1.3 × one deflate of the plain body once merged (issue 14).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { constants, deflateRawSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { deflateChunk, gzipParts, plainOf, storedChunks, storesExactly, STORED_BELOW_BYTES, type Chunk } from '../../src/metrics/gzip.js';
import { ChunkRuns } from '../../src/metrics/merge.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { SelfMetrics } from '../../src/metrics/self.js';
import { SnapshotStore } from '../../src/metrics/store.js';
import { routerLabel } from '../../src/metrics/family.js';
import { mapWireguard } from '../../src/collectors/wireguard.js';
import { testRouter } from '../helpers/config.js';
import type { RouterRecord } from '../../src/routeros/records.js';

const body = (chunks: readonly Chunk[]): Buffer => Buffer.concat(gzipParts(chunks).parts);
/** One stored chunk, the only one of its block. */
const storedChunk = (bytes: Uint8Array): Chunk => storedChunks([bytes])[0] as Chunk;

describe('stored chunks', () => {
  it('are valid deflate laid among deflated ones, and their plain form is a view without inflating', () => {
    const texts = ['a{x="1"} 1\n', '', 'é\u00fc"\\\n'.repeat(3), randomBytes(4000).toString('hex'), 'b 2\n'.repeat(3000)];
    const chunks = texts.map((text, index) => (index % 2 === 0 ? storedChunk(Buffer.from(text)) : deflateChunk(Buffer.from(text))));
    expect(gunzipSync(body(chunks)).toString('utf8')).toBe(texts.join(''));
    expect(plainOf(chunks[0] as Chunk).toString()).toBe(texts[0]);
    expect(plainOf(chunks[0] as Chunk).buffer).toBe((chunks[0] as Chunk).deflated.buffer);
  });

  it('hold at most one stored block', () => {
    expect(() => storedChunk(Buffer.alloc(65_536))).toThrow(RangeError);
    expect(gunzipSync(body([storedChunk(Buffer.alloc(65_535, 0x61))])).length).toBe(65_535);
  });
});

describe('ChunkRuns', () => {
  const small = (text: string): Chunk => storedChunk(Buffer.from(text));

  /** The lines of a body, sorted: a family's lines may come in any order, and runs are laid where their first chunk is. */
  const lines = (text: string): string[] => text.split('\n').sort();

  it('lays current runs merged, and a run whose chunk changed as its chunks, stored', () => {
    const chunks = [...Array.from({ length: 300 }, (_, i) => small(`m{router="r${i}"} ${i}\n`)), deflateChunk(Buffer.from('x 1\n'.repeat(5000))), small('tail 1\n')];
    const runs = new ChunkRuns();
    runs.merge(chunks);
    const merged: Chunk[] = [];
    runs.lay(chunks, merged);
    // The 301 small chunks changed together: one run (well under 64 KiB), laid where its first chunk is; the big one.
    expect(merged).toHaveLength(2);
    const plain = Buffer.concat(chunks.map(plainOf)).toString();
    expect(lines(gunzipSync(body(merged)).toString())).toEqual(lines(plain));
    // One chunk replaced: its run no longer matches, so the scrape lays the current chunks, in store order.
    const changed = [...chunks];
    changed[7] = small('m{router="r7"} 700\n');
    const laid: Chunk[] = [];
    runs.lay(changed, laid);
    expect(laid).toHaveLength(302);
    expect(gunzipSync(body(laid)).toString()).toBe(Buffer.concat(changed.map(plainOf)).toString());
    // Merging again: the changed chunk alone stays stored, the 300 left over from the broken run make a new run.
    runs.merge(changed);
    const again: Chunk[] = [];
    runs.lay(changed, again);
    expect(again).toHaveLength(3);
    expect(lines(gunzipSync(body(again)).toString())).toEqual(lines(Buffer.concat(changed.map(plainOf)).toString()));
  });

  it('makes runs of chunks that changed together, so routers landing later do not break them', () => {
    const chunks = Array.from({ length: 1000 }, (_, i) => small(`family_with_a_long_name{router="router-${i}"} ${i}\n`));
    const runs = new ChunkRuns();
    runs.merge(chunks);
    // Every other router lands (new bytes), then a merge: the landed ones make runs of their own.
    const landed = chunks.map((chunk, i) => (i % 2 === 0 ? small(`family_with_a_long_name{router="router-${i}"} ${i + 1}\n`) : chunk));
    runs.merge(landed);
    // The rest land: the runs made of the first half are still current, only the second half is laid stored.
    const all = landed.map((chunk, i) => (i % 2 === 1 ? small(`family_with_a_long_name{router="router-${i}"} ${i + 1}\n`) : chunk));
    const laid: Chunk[] = [];
    runs.lay(all, laid);
    expect(laid.length).toBeLessThan(520);
    expect(laid.filter((chunk) => chunk.length > 1000).length).toBeGreaterThan(0);
    expect(lines(gunzipSync(body(laid)).toString())).toEqual(lines(Buffer.concat(all.map(plainOf)).toString()));
  });

  it('closes a run at about 64 KiB and keeps unchanged runs across merges', () => {
    const chunks = Array.from({ length: 2000 }, (_, i) => small(`family_with_a_long_name{router="router-${i}"} ${i}\n`));
    const runs = new ChunkRuns();
    runs.merge(chunks);
    const first: Chunk[] = [];
    runs.lay(chunks, first);
    expect(first.length).toBeGreaterThan(1);
    expect(first.length).toBeLessThan(10);
    runs.merge(chunks);
    const second: Chunk[] = [];
    runs.lay(chunks, second);
    // Same merged chunks: nothing was deflated again.
    expect(second.every((chunk, i) => chunk === first[i])).toBe(true);
  });

  it("merged chunks read their bytes from the run's plain bytes, not from their blocks, and still lay as stored blocks", () => {
    // Two blocks, as two collector runs make them: a merge takes chunks from both.
    const a = storedChunks(['a{x="1"} 1\n', 'a{x="2"} 2\n', 'a{x="3"} 3\n'].map((text) => Buffer.from(text)));
    const b = storedChunks(['b{x="1"} 1\n', 'b{x="2"} 22\n'].map((text) => Buffer.from(text)));
    const chunks = [...a, ...b];
    const blocks = new Set(chunks.map((chunk) => chunk.deflated.buffer));
    expect(blocks.size).toBe(2);
    const texts = chunks.map((chunk) => plainOf(chunk).toString());
    new ChunkRuns().merge(chunks);
    const run = (chunks[0] as Chunk).run;
    const plain = run?.merged.plain;
    expect(plain?.toString()).toBe(texts.join(''));
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.run).toBe(run);
      // Its bytes are the run's: neither block is held for it any more.
      expect(plainOf(chunk).buffer).toBe(plain?.buffer);
      expect(blocks.has(chunk.deflated.buffer)).toBe(false);
      expect(plainOf(chunk).toString()).toBe(texts[index]);
      expect(storesExactly(chunk, Buffer.from(texts[index] as string))).toBe(true);
      expect(inflateRawSync(chunk.deflated, { finishFlush: constants.Z_SYNC_FLUSH }).toString()).toBe(texts[index]);
    }
    // A broken run lays its chunks one by one: valid gzip of the same bytes.
    expect(gunzipSync(body(chunks)).toString()).toBe(texts.join(''));
  });

  it('keep every chunk\'s bytes through random landings, merges and scrapes (generator)', () => {
    const family = fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 24 });
    const step = fc.oneof(
      fc.record({ kind: fc.constant('land' as const), replace: fc.array(fc.nat(), { maxLength: 12 }), texts: fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 12 }) }),
      fc.record({ kind: fc.constant('merge' as const) }),
      fc.record({ kind: fc.constant('scrape' as const) }),
    );
    fc.assert(
      fc.property(family, fc.array(step, { maxLength: 30 }), (initial, steps) => {
        let texts = initial.map((text) => `${text}\n`);
        let chunks = storedChunks(texts.map((text) => Buffer.from(text)));
        const runs = new ChunkRuns();
        const check = (): void => {
          const expected = texts.join('');
          expect(chunks.map((chunk) => plainOf(chunk).toString()).join('')).toBe(expected);
          expect(gunzipSync(body(chunks)).toString()).toBe(expected);
          const laid: Chunk[] = [];
          runs.lay(chunks, laid);
          expect(lines(gunzipSync(body(laid)).toString())).toEqual(lines(expected));
        };
        for (const action of steps) {
          if (action.kind === 'merge') runs.merge(chunks);
          else if (action.kind === 'scrape') check();
          else {
            // One collector run: the chunks it replaces come from one new block.
            const places = [...new Set(action.replace.map((index) => index % chunks.length))];
            const fresh = storedChunks(places.map((_, i) => Buffer.from(`${action.texts[i % action.texts.length] ?? ''}\n`)));
            texts = [...texts];
            chunks = [...chunks];
            places.forEach((place, i) => {
              texts[place] = plainOf(fresh[i] as Chunk).toString();
              chunks[place] = fresh[i] as Chunk;
            });
          }
        }
        runs.merge(chunks);
        check();
      }),
      { numRuns: 300 },
    );
  });
});

describe('exposition at fleet shape', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function fleetStore(routers: number): SnapshotStore {
    const store = new SnapshotStore();
    const health = testRouter().health;
    store.plan(new Map(Array.from({ length: routers }, (_, r) => [`router-${r}`, [{ collector: 'wireguard' as const, job: 'wireguard' }]])));
    for (let r = 0; r < routers; r++) {
      const peers: RouterRecord[] = Array.from({ length: 4 }, (_, p) => ({
        interface: 'wg0',
        'public-key': randomBytes(32).toString('base64'),
        'allowed-address': `10.${r % 250}.${p}.2/32`,
        rx: String(1000 * r + p),
        tx: String(2000 * r + p),
        'last-handshake': `${p + 1}m`,
      }));
      const wg = mapWireguard([{ name: 'wg0', 'public-key': 'S3rv3r', running: 'true', disabled: 'false', 'listen-port': '13231' }], peers, routerLabel(`router-${r}`), health, 1_800_000_000_000);
      store.record({ router: `router-${r}`, collector: 'wireguard', job: 'wireguard', ok: true, finishedAt: 1_800_000_000_000, durationSeconds: 0.1, samples: wg.samples, data: wg.data });
    }
    return store;
  }

  it('merges by itself once the store is quiet: gzip within 1.3 × one deflate of the plain body, same text', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] });
    const store = fleetStore(500);
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    // A run lands after the exposition exists: the merge is scheduled by it.
    store.record({ router: 'router-0', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'timeout', finishedAt: 1_800_000_030_000, durationSeconds: 5 });
    // The router series (the exporter's own process series after them change from scrape to scrape).
    const plain = Buffer.from(exposition.routerText('text'), 'utf8');
    const oneDeflate = deflateRawSync(plain, { level: 1 }).length;
    const gzipBody = async (): Promise<Buffer> => Buffer.concat((await exposition.render('text', true)).parts);
    const before = await gzipBody();
    expect(gunzipSync(before).subarray(0, plain.length).equals(plain)).toBe(true);
    await vi.runAllTimersAsync();
    const after = await gzipBody();
    expect(gunzipSync(after).subarray(0, plain.length).equals(plain)).toBe(true);
    const ratio = after.length / oneDeflate;
    console.log(`fleet-shape gzip: ${before.length} bytes stored, ${after.length} merged, one deflate ${oneDeflate} (${ratio.toFixed(2)} ×)`);
    expect(before.length).toBeGreaterThan(after.length * 2);
    expect(ratio).toBeLessThanOrEqual(1.3);
  });

  it('keeps a scrape layout until the store changes: repeated scrapes lay the same parts, a run landing is seen at once', async () => {
    const store = fleetStore(50);
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    exposition.mergeNow();
    const first = await exposition.render('text', false);
    const again = await exposition.render('text', false);
    // The same Buffers (the exporter's own series, rendered per scrape, are the one part made anew).
    expect(again.parts.slice(0, -1).every((part, i) => part === first.parts[i])).toBe(true);
    store.record({ router: 'router-3', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'timeout', finishedAt: 1_800_000_030_000, durationSeconds: 5 });
    const after = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    expect(after).toContain('routeros_collector_errors_total{router="router-3",collector="wireguard",reason="timeout"} 1\n');
    expect(after).not.toContain('routeros_wireguard_peer_info{router="router-3"');
    const gzip = gunzipSync(Buffer.concat((await exposition.render('text', true)).parts)).toString('utf8');
    expect(gzip).toContain('routeros_collector_errors_total{router="router-3",collector="wireguard",reason="timeout"} 1\n');
    // A backoff changes a chunk without a recorded run: still seen by the next scrape.
    store.setBackoff('router-3', 'wireguard', 40);
    const backoff = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    expect(backoff).toContain('routeros_collector_backoff_seconds{router="router-3",collector="wireguard"} 40\n');
  });

  it('a merge lays out the scrape from its own walk of the store, and not at all while another merge is due', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] });
    const store = fleetStore(100);
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    const walk = store.chunksByFamily.bind(store);
    let walks = 0;
    vi.spyOn(store, 'chunksByFamily').mockImplementation(() => {
      // The first merge's walk: a run lands while it merges (it gives the event loop back between families).
      if (walks++ === 0) setImmediate(() => store.record({ router: 'router-7', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'timeout', finishedAt: 1_800_000_030_000, durationSeconds: 5 }));
      return walk();
    });
    store.record({ router: 'router-3', collector: 'wireguard', job: 'wireguard', ok: false, reason: 'timeout', finishedAt: 1_800_000_030_000, durationSeconds: 5 });
    await vi.runAllTimersAsync();
    // Two merges (the run that landed during the first made a second due), each one walk; the first laid out
    // nothing the second's would not replace, and the second laid out from its own walk.
    expect(walks).toBe(2);
    const gzip = gunzipSync(Buffer.concat((await exposition.render('text', true)).parts)).toString('utf8');
    const plain = Buffer.concat((await exposition.render('text', false)).parts).toString('utf8');
    // Both scrapes used that layout.
    expect(walks).toBe(2);
    const text = exposition.routerText('text');
    const sorted = (lines: string): string[] => lines.split('\n').sort();
    for (const body of [gzip, plain]) {
      // The same lines; merged runs lay where their first chunk is, so not in the same order.
      expect(sorted(body.slice(0, text.length))).toEqual(sorted(text));
      expect(body).toContain('routeros_collector_errors_total{router="router-7",collector="wireguard",reason="timeout"} 1\n');
      expect(body).not.toContain('routeros_wireguard_peer_info{router="router-3"');
    }
  });

  it('plain scrapes copy small parts together rather than writing thousands of tiny ones', async () => {
    const store = fleetStore(200);
    const exposition = new Exposition(store, new SelfMetrics({ version: 'test' }));
    const { parts, length } = await exposition.render('text', false);
    expect(Buffer.concat(parts).length).toBe(length);
    expect(parts.length).toBeLessThan(200);
    expect(parts.filter((part) => part.length < STORED_BELOW_BYTES).length).toBeLessThan(60);
    // Merged, plain scrapes lay the runs' kept plain bytes: no copy, one part per run, the same text.
    const text = exposition.routerText('text');
    exposition.mergeNow();
    const merged = await exposition.render('text', false);
    expect(merged.parts.length).toBeLessThan(60);
    expect(Buffer.concat(merged.parts).toString('utf8').startsWith(text)).toBe(true);
  });
});
