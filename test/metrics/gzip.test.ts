import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constants, crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { copyPlain, crc32Combine, deflateChunk, deflateKeepingPlain, fixedChunk, gzipParts, INFLATE_OFF_LOOP_BYTES, inflateLargeOffLoop, plainOf, storedChunks, storesExactly, type Chunk } from '../../src/metrics/gzip.js';
import { ownsItsMemory } from '../../src/util/kept-bytes.js';
import { FAMILIES, type Family } from '../../src/metrics/families.js';
import { SampleSet } from '../../src/metrics/samples.js';
import { WIREGUARD_FAMILIES as F } from '../../src/collectors/wireguard.contract.js';
import { routerLabel, seriesLabels } from '../../src/metrics/family.js';

describe('gzip from pre-deflated chunks', () => {
  it('combines CRC-32s exactly like a CRC over the concatenation', () => {
    for (const [a, b] of [
      [0, 0],
      [1, 1],
      [17, 1000],
      [4096, 65537],
    ] as const) {
      const left = randomBytes(a);
      const right = randomBytes(b);
      expect(crc32Combine(crc32(left), crc32(right), right.length)).toBe(crc32(Buffer.concat([left, right])));
    }
  });

  it('lays deflated chunks end to end into one valid gzip member', () => {
    const texts = ['# HELP a b\n', 'a{x="1"} 1\n'.repeat(5000), '', 'é\u00fc"\\\n'.repeat(3), randomBytes(3000).toString('hex')];
    const chunks = texts.map((text) => deflateChunk(Buffer.from(text, 'utf8')));
    const { parts, length } = gzipParts(chunks);
    const body = Buffer.concat(parts);
    expect(body.length).toBe(length);
    expect(gunzipSync(body).toString('utf8')).toBe(texts.join(''));
  });

  it('keeps deflated and inflated bytes in memory of their own, not in a block they would keep alive', () => {
    // Text from a few bytes to past zlib's 64 KiB work buffer, compressible or not: short outputs are views of
    // zlib's work buffer, and a copy with Buffer.from a view of Node's pool (kept-bytes.ts).
    const texts = fc.tuple(fc.nat(80_000), fc.double({ min: 0, max: 1, noNaN: true }), fc.string({ minLength: 1, maxLength: 40 })).map(([length, noise, line]) => {
      const random = randomBytes(Math.ceil((length * noise) / 2)).toString('hex');
      return (random + line.repeat(Math.ceil(length / line.length))).slice(0, length);
    });
    fc.assert(
      fc.property(texts, (text) => {
        const bytes = Buffer.from(text, 'utf8');
        const chunk = deflateChunk(bytes);
        expect(ownsItsMemory(chunk.deflated)).toBe(true);
        const plain = plainOf(chunk);
        expect(plain.equals(bytes)).toBe(true);
        expect(ownsItsMemory(plain)).toBe(true);
        expect(ownsItsMemory(deflateKeepingPlain(Buffer.from(bytes)).deflated)).toBe(true);
        const fixed = fixedChunk(text);
        expect(ownsItsMemory(fixed.deflated)).toBe(true);
        expect(ownsItsMemory(plainOf(fixed))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('an empty body is still valid gzip', () => {
    expect(gunzipSync(Buffer.concat(gzipParts([]).parts)).length).toBe(0);
  });

  it('deflates with a 16 KiB window: no match reaches further back (the engine stays under glibc mmap threshold)', () => {
    // A random block, 20 KiB of other random bytes, the block again: a 32 KiB window would copy it from 20 KiB back.
    const block = randomBytes(2000);
    const bytes = Buffer.concat([block, randomBytes(20 * 1024), block]);
    const chunk = deflateChunk(bytes);
    expect(inflateRawSync(chunk.deflated, { windowBits: 14, finishFlush: constants.Z_SYNC_FLUSH })).toEqual(bytes);
    // Random bytes do not compress: with the block copied, the output would be ~2,000 bytes shorter.
    expect(chunk.deflated.length).toBeGreaterThan(bytes.length);
  });
});

describe('exposition chunks kept deflated', () => {
  it('inflates back to the exact plain bytes, once per chunk', () => {
    const bytes = Buffer.from('a{x="é"} 1\n'.repeat(2000), 'utf8');
    const chunk = deflateChunk(bytes);
    expect(chunk.length).toBe(bytes.length);
    expect(chunk.deflated.length).toBeLessThan(bytes.length / 10);
    const plain = plainOf(chunk);
    expect(plain.equals(bytes)).toBe(true);
    expect(plainOf(chunk)).toBe(plain);
    expect(plainOf(deflateChunk(Buffer.alloc(0))).length).toBe(0);
  });

  it('a run whose family bytes did not change takes over the deflated bytes; a changed family is deflated anew', () => {
    // Large families (deflated alone): 200 peers' info lines are well over STORED_BELOW_BYTES.
    const run = (rx: number): SampleSet => {
      const samples = new SampleSet();
      for (let peer = 0; peer < 200; peer++) {
        const labels = seriesLabels(F.wgPeerRx, routerLabel('hq'), ['wg0', `key-${peer}-${'k'.repeat(40)}`, `branch-${peer}`]);
        samples.addExtended(F.wgPeerInfo, labels, ['', ''], 1);
        samples.add(F.wgPeerRx, labels, rx + peer);
      }
      return samples;
    };
    const first = run(10).toChunks();
    const second = run(20).toChunks(first);
    const [info1, info2] = [first[F.wgPeerInfo.index], second[F.wgPeerInfo.index]];
    const [rx1, rx2] = [first[F.wgPeerRx.index], second[F.wgPeerRx.index]];
    if (info1 === undefined || info2 === undefined || rx1 === undefined || rx2 === undefined) throw new Error('missing chunks');
    expect(info1.stored).toBe(false);
    expect(info2.deflated).toBe(info1.deflated);
    // A chunk of its own all the same, so a plain form inflated for the old run goes with the old run.
    expect(info2).not.toBe(info1);
    expect(rx2.deflated).not.toBe(rx1.deflated);
    expect(plainOf(rx2).toString('utf8').split('\n')[0]).toBe(
      `routeros_wireguard_peer_receive_bytes_total{router="hq",interface="wg0",public_key="key-0-${'k'.repeat(40)}",name="branch-0"} 20`,
    );
  });

  it('small families are stored, the new ones of a run in one exact allocation; an unchanged one keeps its chunk', () => {
    const run = (rx: number): SampleSet => {
      const samples = new SampleSet();
      const peer = seriesLabels(F.wgPeerRx, routerLabel('hq'), ['wg0', 'key', 'branch']);
      samples.addExtended(F.wgPeerInfo, peer, ['', ''], 1);
      samples.add(F.wgPeerRx, peer, rx);
      samples.add(F.wgPeerTx, peer, rx * 2);
      return samples;
    };
    const first = run(10).toChunks();
    const second = run(20).toChunks(first);
    const [info1, info2] = [first[F.wgPeerInfo.index], second[F.wgPeerInfo.index]];
    const [rx1, rx2, tx2] = [first[F.wgPeerRx.index], second[F.wgPeerRx.index], second[F.wgPeerTx.index]];
    if (info1 === undefined || info2 === undefined || rx1 === undefined || rx2 === undefined || tx2 === undefined) {
      throw new Error('missing chunks');
    }
    expect([info1.stored, rx2.stored, tx2.stored]).toEqual([true, true, true]);
    // Not slices of Node's shared pool slab: one buffer holding exactly this run's new stored chunks.
    const first3 = [first[F.wgPeerInfo.index], rx1, first[F.wgPeerTx.index]];
    expect(new Set(first3.map((chunk) => chunk?.deflated.buffer)).size).toBe(1);
    expect(info1.deflated.buffer.byteLength).toBe(first3.reduce((sum, chunk) => sum + (chunk?.deflated.length ?? 0), 0));
    // The unchanged family keeps its chunk (and so its bytes, which merge.ts recognises); the changed ones are new.
    expect(info2).toBe(info1);
    expect(rx2.deflated.buffer).toBe(tx2.deflated.buffer);
    expect(rx2.deflated.buffer.byteLength).toBe(rx2.deflated.length + tx2.deflated.length);
    expect(plainOf(rx2).toString('utf8')).toBe('routeros_wireguard_peer_receive_bytes_total{router="hq",interface="wg0",public_key="key",name="branch"} 20\n');
    expect(gunzipSync(Buffer.concat(gzipParts(second.filter((chunk) => chunk !== undefined)).parts)).toString('utf8')).toContain(
      'routeros_wireguard_peer_transmit_bytes_total{router="hq",interface="wg0",public_key="key",name="branch"} 40\n',
    );
  });

  it("a stored chunk holds no Buffer of its own: only its run's block does, its views are made when asked", () => {
    const parts = [Buffer.from('a 1\n'), Buffer.from('bb 22\n'), Buffer.alloc(0), Buffer.from('ccc 333\n')];
    const chunks = storedChunks(parts);
    for (const chunk of chunks) {
      expect(Object.values(chunk).filter((value) => value instanceof Uint8Array)).toEqual([]);
      expect(chunk.stored).toBe(true);
    }
    // Views and copies still read the right bytes out of the one block, and the block is valid deflate laid end to end.
    expect(chunks.map((chunk) => plainOf(chunk).toString())).toEqual(parts.map((part) => part.toString()));
    const copied = Buffer.alloc(18);
    let at = 0;
    for (const chunk of chunks) at += copyPlain(chunk, copied, at);
    expect(copied.toString()).toBe('a 1\nbb 22\nccc 333\n');
    expect(chunks.map((chunk, index) => storesExactly(chunk, parts[index] as Buffer))).toEqual([true, true, true, true]);
    expect(storesExactly(chunks[1], Buffer.from('bb 23\n'))).toBe(false);
    expect(storesExactly(chunks[1], Buffer.from('a 1\n'))).toBe(false);
    expect(gunzipSync(Buffer.concat(gzipParts(chunks).parts)).toString()).toBe('a 1\nbb 22\nccc 333\n');
  });
});

describe('a run’s chunks by family index', () => {
  it('end at the last family the run wrote, over random sets of families, and keep unchanged stored chunks across runs of other lengths', () => {
    const label = routerLabel('hq');
    const runOf = (written: readonly Family[], value: number): SampleSet => {
      const samples = new SampleSet();
      for (const family of written) {
        const labels = seriesLabels(family, label, family.labels.map(() => 'x') as never);
        samples.add(family, labels, family === written[0] ? value : 1);
      }
      return samples;
    };
    // A run: the families it writes (one boolean per family, in catalog order): any, just one, or none.
    const none: boolean[] = FAMILIES.map(() => false);
    const run = fc.oneof(
      fc.array(fc.boolean(), { minLength: FAMILIES.length, maxLength: FAMILIES.length }),
      fc.nat({ max: FAMILIES.length - 1 }).map((one) => none.map((_, index) => index === one)),
      fc.constant(none),
    );
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 12 }), (runs) => {
        let previous: (Chunk | undefined)[] | undefined;
        let previousWritten: readonly Family[] = [];
        runs.forEach((writes, trial) => {
          const written = FAMILIES.filter((_, index) => writes[index] === true);
          const chunks = runOf(written, trial).toChunks(previous);
          const last = written.at(-1);
          expect(chunks.length).toBe(last === undefined ? 0 : last.index + 1);
          for (let index = 0; index < chunks.length; index++) {
            const family = FAMILIES[index] as Family;
            expect(chunks[index] !== undefined).toBe(written.includes(family));
          }
          // A family written alike in both runs (not the first, whose value changes) keeps the stored chunk itself.
          for (const family of written.slice(1)) {
            if (previousWritten.includes(family) && previousWritten[0] !== family) expect(chunks[family.index]).toBe(previous?.[family.index]);
          }
          previous = chunks;
          previousWritten = written;
        });
      }),
      { numRuns: 40 },
    );
  });
});

describe('plain forms inflated off the event loop', () => {
  /** Text that deflates well and is not one repeated byte: sample lines. */
  const lines = (count: number): Buffer => Buffer.from(Array.from({ length: count }, (_, i) => `routeros_wireguard_peer_rx_bytes_total{router="hq",peer="p${i}"} ${i * 7919}\n`).join(''), 'utf8');

  it('inflates the large chunks a plain scrape needs into the cache plainOf reads, byte for byte, and leaves small ones', async () => {
    const large = deflateChunk(lines(20_000));
    const small = deflateChunk(lines(10));
    expect(large.length).toBeGreaterThanOrEqual(INFLATE_OFF_LOOP_BYTES);
    expect(small.length).toBeLessThan(INFLATE_OFF_LOOP_BYTES);
    await inflateLargeOffLoop([large, small]);
    const first = plainOf(large);
    // Cached: the same buffer, not inflated again.
    expect(plainOf(large)).toBe(first);
    expect(first.equals(lines(20_000))).toBe(true);
    expect(ownsItsMemory(first)).toBe(true);
    expect(plainOf(small).equals(lines(10))).toBe(true);
  });

  it('gives the event loop back while it inflates: a timer fires before ~100 MB are inflated (in one go it could not)', async () => {
    const chunks = Array.from({ length: 8 }, () => deflateChunk(lines(150_000)));
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 1);
    const inflating = inflateLargeOffLoop(chunks).then(() => order.push('inflated'));
    await inflating;
    expect(order).toEqual(['timer', 'inflated']);
    expect(chunks.every((chunk) => plainOf(chunk).length === chunk.length)).toBe(true);
  });
});
