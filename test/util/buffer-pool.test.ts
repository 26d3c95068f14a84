/**
 * The daemon runs with Node 20's 8 KiB Buffer pool whatever Node it runs on (src/util/buffer-pool.ts): from
 * Node 22 the pool is 64 KiB, and each TLS connection keeps a pool view for its life.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUFFER_POOL_BYTES, limitBufferPool } from '../../src/util/buffer-pool.js';
import { withIdleDaemon } from '../helpers/idle-daemon.js';

const nodeDefault = Buffer.poolSize;
afterEach(() => {
  Buffer.poolSize = nodeDefault;
});

describe("Node's Buffer pool", () => {
  it('is lowered to 8 KiB where it is larger, and left where it is not', () => {
    Buffer.poolSize = 64 * 1024;
    limitBufferPool();
    expect(Buffer.poolSize).toBe(BUFFER_POOL_BYTES);
    expect(BUFFER_POOL_BYTES).toBe(8 * 1024);
    Buffer.poolSize = 4 * 1024;
    limitBufferPool();
    expect(Buffer.poolSize).toBe(4 * 1024);
  });

  it('is 8 KiB once the daemon has started, as on Node 20, when Node made it 64 KiB (Node 22 and later)', async () => {
    Buffer.poolSize = 64 * 1024;
    await withIdleDaemon(() => {
      expect(Buffer.poolSize).toBe(BUFFER_POOL_BYTES);
      // Small Buffers made once the block in use is full come from 8 KiB blocks.
      for (let filled = 0; filled <= 64 * 1024; filled += 4000) Buffer.allocUnsafe(4000);
      expect(Buffer.from('a small text').buffer.byteLength).toBe(BUFFER_POOL_BYTES);
    });
  });
});
