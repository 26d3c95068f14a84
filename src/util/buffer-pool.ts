/**
 * Node's allocation pool for small Buffers, at Node 20's size. Node hands out every Buffer under half the pool's
 * size as a view of a shared block (`Buffer.poolSize`: 8 KiB on Node 20, 64 KiB from Node 22), and one small
 * Buffer kept alive keeps its whole block. The exporter copies what it keeps itself (kept-bytes.ts), but Node
 * and undici keep some for a connection's life: each TLS connection's ALPN list is a pool view held by the
 * socket's options. With 64 KiB blocks, 100 routers × 1,000 peers (three connections per router, pings coming
 * and going) held 171 blocks, 10.7 MB, for a few bytes each; RSS as Prometheus scrapes fell from 355 to 322 MB
 * with 8 KiB blocks (Node 24). A smaller pool means more blocks to make, each cheap, for a daemon whose
 * Buffers are few and mostly large.
 */
export const BUFFER_POOL_BYTES = 8 * 1024;

/** Sets Node's Buffer pool to BUFFER_POOL_BYTES where it is larger (documented as settable); the next block made uses it. */
export function limitBufferPool(): void {
  if (Buffer.poolSize > BUFFER_POOL_BYTES) Buffer.poolSize = BUFFER_POOL_BYTES;
}
