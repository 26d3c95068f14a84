import { describe, expect, it } from 'vitest';
import { crc32, gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { crc32Combine, deflateChunk, gzipParts, plainOf } from '../../src/metrics/gzip.js';
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

  it('an empty body is still valid gzip', () => {
    expect(gunzipSync(Buffer.concat(gzipParts([]).parts)).length).toBe(0);
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
    const run = (rx: number): SampleSet => {
      const samples = new SampleSet();
      const peer = seriesLabels(F.wgPeerRx, routerLabel('hq'), ['wg0', 'key', 'branch']);
      samples.addExtended(F.wgPeerInfo, peer, ['', ''], 1);
      samples.add(F.wgPeerRx, peer, rx);
      return samples;
    };
    const first = run(10).toChunks();
    const second = run(20).toChunks(first);
    const [info1, info2] = [first[F.wgPeerInfo.index], second[F.wgPeerInfo.index]];
    const [rx1, rx2] = [first[F.wgPeerRx.index], second[F.wgPeerRx.index]];
    if (info1 === undefined || info2 === undefined || rx1 === undefined || rx2 === undefined) throw new Error('missing chunks');
    expect(info2.deflated).toBe(info1.deflated);
    // A chunk of its own all the same, so a plain form inflated for the old run goes with the old run.
    expect(info2).not.toBe(info1);
    expect(rx2.deflated).not.toBe(rx1.deflated);
    expect(plainOf(rx2).toString('utf8')).toBe('routeros_wireguard_peer_receive_bytes_total{router="hq",interface="wg0",public_key="key",name="branch"} 20\n');
  });
});
