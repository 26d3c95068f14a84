/**
 * Bytes the exporter keeps for long (a deflated chunk until its family changes, a router's TLS session until
 * the next one) must own exactly their memory. Node hands out small Buffers as views of shared blocks: its
 * allocation pool (`Buffer.from`, `Buffer.concat`, `allocUnsafe` under half of `Buffer.poolSize`: 8 KiB on
 * Node 20, 64 KiB from Node 22) and zlib's work buffer (a synchronous deflate's short output is a view of it:
 * 16 KiB on Node 20, 64 KiB on Node 24), and a view kept alive keeps the whole block. At 2,000 routers on
 * Node 24 the kept deflated chunks, TLS sessions and fixed texts held ~19 MB of 64 KiB blocks for ~5 MB of bytes.
 */

/** `bytes` when it is the whole of its memory, otherwise a copy in memory of its own (never from the pool). */
export function keptBytes(bytes: Uint8Array): Buffer {
  if (Buffer.isBuffer(bytes) && ownsItsMemory(bytes)) return bytes;
  const owned = Buffer.allocUnsafeSlow(bytes.byteLength);
  owned.set(bytes);
  return owned;
}

/** Whether `bytes` is the whole of the memory behind it (keeping it keeps nothing else alive). */
export function ownsItsMemory(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}
