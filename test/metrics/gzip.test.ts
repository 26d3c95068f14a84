import { describe, expect, it } from 'vitest';
import { crc32, gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { crc32Combine, deflateChunk, gzipParts } from '../../src/metrics/gzip.js';

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
