/**
 * Exposition chunks kept deflated, the form Prometheus asks for: each run of sample lines is deflated once when
 * its collection lands, independently and ending on a byte boundary (sync flush), so chunks can be laid end to
 * end in one gzip member; the CRC-32 of the whole is combined from the chunks' CRCs arithmetically. The plain
 * form is inflated only for a plain scrape and lives no longer than its chunk (a collection supersedes it).
 * Keeping the plain bytes of every series as well cost ~95 MB at 100 routers × 1,000 peers.
 *
 * Small chunks (a family of one small router: a few hundred bytes) are not deflated alone: alone they compress
 * badly (no window to refer back to), and at 2,000 routers the ~50,000 deflate calls per cycle cost about a
 * second. They are kept as a stored block (deflate's uncompressed block type), which is valid deflate laid end to
 * end like the others and whose plain form is a view into it; merge.ts deflates runs of them together once the
 * store settles.
 */
import { createHash } from 'node:crypto';
import { constants, crc32, deflateRaw, deflateRawSync, inflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { keptBytes } from '../util/kept-bytes.js';

/** Speed over ratio: the chunks are large, label-heavy text that compresses well even at level 1. */
const LEVEL = 1;

export interface Chunk {
  /** Raw deflate of the plain bytes, sync-flushed (no final block). */
  readonly deflated: Buffer;
  /** CRC-32 of the plain bytes. */
  readonly crc: number;
  /** Length of the plain bytes. */
  readonly length: number;
  /** SHA-256 of the plain bytes, where a later run needs to tell whether they changed. */
  readonly digest: Buffer | undefined;
  /** A merged run's plain bytes (merge.ts: the bytes it was deflated from); undefined for every other chunk. */
  readonly plain: Buffer | undefined;
  /**
   * A stored chunk (storedChunks): `deflated` is one stored block, its plain bytes right after the 5-byte header,
   * a view of its run's block made when read.
   */
  readonly stored: boolean;
  /**
   * The merged run a stored chunk's bytes were deflated into (merge.ts), kept on the chunk rather than in a map:
   * every merge and every layout looks up each of ~110,000 chunks at 2,000 routers, and a WeakMap lookup each
   * was most of a merge's cost. A run lives while any of its chunks does.
   */
  run: ChunkRun | undefined;
}

/** A run of stored chunks deflated together (merge.ts keeps its bookkeeping here; nothing else reads it). */
export interface ChunkRun {
  /** How many chunks it was made from. */
  readonly size: number;
  readonly merged: Chunk;
  /** Per layout: how many of its chunks the store still holds, and whether it was laid. */
  epoch: number;
  current: number;
  laid: boolean;
}

/** Chunks under this many plain bytes are stored, not deflated alone (well under a stored block's 65,535). */
export const STORED_BELOW_BYTES = 16 * 1024;

/** A stored block's header: BFINAL 0 and BTYPE 00 padded to the byte, then LEN and its one's complement. */
const STORED_HEADER_BYTES = 5;

/**
 * A stored chunk: its place in its run's block rather than a view of it. A view is one more Buffer object per
 * chunk (~60,000 live at 2,000 routers, two thirds of them made again every cycle and kept past the young
 * generation); where a view is needed (a gzip scrape laying the chunk unmerged, plainOf) it is made then and
 * dies young.
 *
 * Once merged, its bytes are read from the merged run's plain bytes instead (`moveInto`): the run keeps those for
 * plain scrapes anyway, and the block then lives only while a chunk not yet merged holds it. Blocks held by chunks
 * that had all been merged were ~20 MB of the 40 MB of Buffers at 2,000 routers (a block also holds the bytes of
 * its run's chunks that were replaced since).
 */
class StoredChunk implements Chunk {
  /** The bytes: its run's block of stored blocks, or once merged the merged run's plain bytes. */
  #bytes: Buffer;
  /** Where the plain bytes start in `#bytes`. */
  #start: number;
  /** Whether the stored block's header is in `#bytes` right before them (in its run's block, not once merged). */
  #headed = true;
  readonly length: number;
  readonly crc: number;
  run: ChunkRun | undefined = undefined;

  constructor(block: Buffer, at: number, length: number, crc: number) {
    this.#bytes = block;
    this.#start = at + STORED_HEADER_BYTES;
    this.length = length;
    this.crc = crc;
  }

  get stored(): true {
    return true;
  }

  get digest(): undefined {
    return undefined;
  }

  get plain(): undefined {
    return undefined;
  }

  /** The stored block (header and bytes): a view made on each read, or once merged a copy (see layDeflated). */
  get deflated(): Buffer {
    const parts: Buffer[] = [];
    this.layDeflated(parts);
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  /**
   * Appends the stored block to `parts` without copying (a gzip scrape laying the chunk unmerged: once merged, only
   * while its run is broken, until the next merge takes it into another); returns its length.
   */
  layDeflated(parts: Buffer[]): number {
    if (this.#headed) parts.push(this.#bytes.subarray(this.#start - STORED_HEADER_BYTES, this.#start + this.length));
    else parts.push(storedHeader(this.length), this.plainView());
    return STORED_HEADER_BYTES + this.length;
  }

  /** The plain bytes: a view made on each read. */
  plainView(): Buffer {
    return this.#bytes.subarray(this.#start, this.#start + this.length);
  }

  /** Copies the plain bytes into `target` at `at`; returns their length. */
  copyPlain(target: Buffer, at: number): number {
    return this.#bytes.copy(target, at, this.#start, this.#start + this.length);
  }

  /** Copies the plain bytes into `target` at `at` and reads them from there from now on; returns their length. */
  moveInto(target: Buffer, at: number): number {
    const copied = this.copyPlain(target, at);
    this.#bytes = target;
    this.#start = at;
    this.#headed = false;
    return copied;
  }

  /** Whether the plain bytes are exactly `bytes`, compared in place. */
  holds(bytes: Buffer): boolean {
    return this.length === bytes.length && bytes.compare(this.#bytes, this.#start, this.#start + this.length) === 0;
  }
}

/** A non-final stored block's header for `length` bytes at `at`. */
function writeStoredHeader(target: Buffer, at: number, length: number): void {
  target[at] = 0;
  target.writeUInt16LE(length, at + 1);
  target.writeUInt16LE(~length & 0xffff, at + 3);
}

/** Stored block headers by length, made when first laid (at most one per length a stored chunk can have). */
const storedHeaders: (Buffer | undefined)[] = [];

function storedHeader(length: number): Buffer {
  let header = storedHeaders[length];
  if (header === undefined) {
    header = Buffer.alloc(STORED_HEADER_BYTES);
    writeStoredHeader(header, 0, length);
    storedHeaders[length] = header;
  }
  return header;
}

/**
 * Each of `parts` (each under 65,536 bytes) as one non-final stored deflate block, all in one allocation. One
 * Buffer per collector run rather than one per chunk: small Buffers come from Node's shared 8 KiB pool slabs, and
 * a slab lives while any chunk in it does; with chunks of many routers and cycles in each slab, half of the slab
 * bytes were dead at 2,000 routers (26 MB of slabs for 13 MB of chunks). A run's block lives while any of its
 * chunks does, so a family left unchanged for many runs keeps the block of the run that wrote it.
 */
export function storedChunks(parts: readonly Uint8Array[]): Chunk[] {
  let total = 0;
  for (const part of parts) {
    if (part.length > 0xffff) throw new RangeError(`a stored block holds at most 65535 bytes, not ${part.length}`);
    total += STORED_HEADER_BYTES + part.length;
  }
  const block = Buffer.allocUnsafeSlow(total);
  const chunks: Chunk[] = [];
  let at = 0;
  for (const part of parts) {
    const length = part.length;
    writeStoredHeader(block, at, length);
    block.set(part, at + STORED_HEADER_BYTES);
    chunks.push(new StoredChunk(block, at, length, crc32(part)));
    at += STORED_HEADER_BYTES + length;
  }
  return chunks;
}

/** Whether `chunk` is stored and holds exactly `bytes` (compared in place, no view made). */
export function storesExactly(chunk: Chunk | undefined, bytes: Buffer): boolean {
  return chunk instanceof StoredChunk && chunk.holds(bytes);
}

/** Whether the chunk's plain bytes are at hand without inflating (stored chunks and merged runs). */
export function hasPlain(chunk: Chunk): boolean {
  return chunk.stored || chunk.plain !== undefined;
}

/**
 * A 16 KiB window rather than zlib's 32 KiB: the engine's window and match chains are then blocks of 32 KiB
 * instead of 64 KiB. An engine is made and freed for every chunk, and where the image sets glibc's mmap threshold
 * at 64 KiB (MALLOC_MMAP_THRESHOLD_=65536, for the TLS read buffers) its blocks of that size were mapped, zeroed
 * and unmapped each time: 1.2 mappings per deflate, 0.6 now (strace). Three chunks of 3, 20 and 60 KB deflated in
 * 403 µs against 648 (299 against 361 under glibc's default threshold), to the same bytes within 0.2 %: what
 * repeats in exposition text (label names, a router's labels, a family's name) repeats within a few lines. Raw
 * deflate carries no window size, and inflate reads any window up to 32 KiB.
 */
const WINDOW_BITS = 14;
/**
 * zlib's pending buffer and (where its hash is not forced) hash table at a quarter of their default size (memLevel 6,
 * default 8). An engine is made and freed for every chunk, and under the image's 64 KiB mmap threshold each block of
 * that size is mapped, zeroed and unmapped each time. strace of 1,050 deflates of 64 KiB merged runs on Node 20:
 * 1,012 mappings of 84 KiB and 524 of 68 KiB at memLevel 8, 853 of 68 KiB at 6; the block left is 64 KiB whatever
 * memLevel (the hash head, as far as can be told: the zlib Node bundles, Chromium's, raises the hash to 2^15 entries
 * when its SIMD hashing is on). CPU per
 * such deflate, each setting in processes of its own with allocation going on beside: Node 20 552–560 µs against
 * 646–662 with MALLOC_MMAP_THRESHOLD_=65536 (238–244 against 273–282 without), Node 24 453–536 against 642–700 (the
 * same ~175 without); output 0.5 % larger: level 1 follows short hash chains, so a smaller table loses little.
 */
const MEM_LEVEL = 6;
const DEFLATE: ZlibOptions = { level: LEVEL, windowBits: WINDOW_BITS, memLevel: MEM_LEVEL, finishFlush: constants.Z_SYNC_FLUSH };
const INFLATE: ZlibOptions = { finishFlush: constants.Z_SYNC_FLUSH };

export function digestOf(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/** Deflates `bytes`, keeping them as the chunk's plain form (the caller must not reuse them). */
export function deflateKeepingPlain(bytes: Buffer): Chunk {
  return { ...deflateChunk(bytes), plain: bytes };
}

/** Deflates `bytes` (which the caller may reuse afterwards). */
export function deflateChunk(bytes: Uint8Array, digest?: Buffer): Chunk {
  return deflatedChunk(bytes, deflateRawSync(bytes, DEFLATE), digest);
}

/**
 * deflateChunk on libuv's thread pool, off the event loop: for a family of megabytes (a router of tens of
 * thousands of peers), whose deflate alone held the loop for ~100 ms. `bytes` must stay unchanged until it settles.
 */
export function deflateChunkOffLoop(bytes: Uint8Array, digest?: Buffer): Promise<Chunk> {
  return new Promise((resolve, reject) => {
    deflateRaw(bytes, DEFLATE, (error, deflated) => {
      if (error === null) resolve(deflatedChunk(bytes, deflated, digest));
      else reject(error);
    });
  });
}

function deflatedChunk(bytes: Uint8Array, deflated: Buffer, digest: Buffer | undefined): Chunk {
  // A short output is a view of zlib's work buffer (16 KiB on Node 20, 64 KiB on Node 24): kept as it is, each
  // chunk would keep all of it; copied with Buffer.from, a pool block shared with whatever else was allocated.
  return { deflated: keptBytes(deflated), crc: crc32(bytes), length: bytes.length, digest, plain: undefined, stored: false, run: undefined };
}

/** A chunk of fixed text (headers, the end marker), made once: its plain form is kept for good. */
export function fixedChunk(text: string): Chunk {
  const bytes = keptBytes(Buffer.from(text, 'utf8'));
  const chunk = deflateChunk(bytes);
  plainCache.set(chunk, bytes);
  return chunk;
}

/** Plain forms inflated for plain scrapes, dropped with their chunk. */
const plainCache = new WeakMap<Chunk, Buffer>();

export function plainOf(chunk: Chunk): Buffer {
  if (chunk instanceof StoredChunk) return chunk.plainView();
  if (chunk.plain !== undefined) return chunk.plain;
  let plain = plainCache.get(chunk);
  if (plain === undefined) {
    // The exact length is known: one output buffer of that size, not 16 KiB pieces joined afterwards (kept until
    // the chunk goes: from the pool when small, so copied out of it).
    plain = chunk.length === 0 ? Buffer.alloc(0) : keptBytes(inflateRawSync(chunk.deflated, { ...INFLATE, chunkSize: Math.max(64, chunk.length) }));
    plainCache.set(chunk, plain);
  }
  return plain;
}

/**
 * Plain forms of at least this many bytes are inflated on libuv's thread pool before a plain scrape lays them out:
 * the first plain scrape after a collection of 80,000 peers inflated ~100 MB in one task (0.4–1.0 s). Smaller
 * ones are inflated where they are laid out, as before: a thread-pool round trip each would cost more.
 */
export const INFLATE_OFF_LOOP_BYTES = 256 * 1024;

/**
 * Inflates, off the event loop, the plain forms of the large chunks that a plain scrape is about to need, into the
 * cache plainOf reads: the bytes are inflateRawSync's own.
 */
export async function inflateLargeOffLoop(chunks: readonly Chunk[]): Promise<void> {
  const wanted = chunks.filter((chunk) => !hasPlain(chunk) && chunk.length >= INFLATE_OFF_LOOP_BYTES && !plainCache.has(chunk));
  await Promise.all(
    wanted.map(
      (chunk) =>
        new Promise<void>((resolve, reject) => {
          inflateRaw(chunk.deflated, { ...INFLATE, chunkSize: Math.max(64, chunk.length) }, (error, plain) => {
            if (error !== null) {
              reject(error);
              return;
            }
            if (!plainCache.has(chunk)) plainCache.set(chunk, keptBytes(plain));
            resolve();
          });
        }),
    ),
  );
}

/** Copies the chunk's plain bytes into `target` at `at` (a stored chunk's straight from its block); returns their length. */
export function copyPlain(chunk: Chunk, target: Buffer, at: number): number {
  return chunk instanceof StoredChunk ? chunk.copyPlain(target, at) : plainOf(chunk).copy(target, at);
}

/**
 * As copyPlain, and a stored chunk reads its bytes from `target` from now on, so its run's block can go: for a
 * merged run's plain bytes, which must then never change (merge.ts).
 */
export function movePlain(chunk: Chunk, target: Buffer, at: number): number {
  return chunk instanceof StoredChunk ? chunk.moveInto(target, at) : copyPlain(chunk, target, at);
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** An empty final deflate block (fixed Huffman, end-of-block only). */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** The parts of one gzip member holding the given chunks, in order. */
export function gzipParts(chunks: readonly Chunk[]): { parts: Buffer[]; length: number } {
  const parts: Buffer[] = [GZIP_HEADER];
  let length = GZIP_HEADER.length;
  let crc = 0;
  let size = 0;
  for (const chunk of chunks) {
    if (chunk instanceof StoredChunk) {
      length += chunk.layDeflated(parts);
    } else {
      const deflated = chunk.deflated;
      parts.push(deflated);
      length += deflated.length;
    }
    crc = crc32Combine(crc, chunk.crc, chunk.length);
    size += chunk.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 0x1_0000_0000, 4);
  parts.push(FINAL_BLOCK, trailer);
  return { parts, length: length + FINAL_BLOCK.length + trailer.length };
}

// CRC-32 combination in GF(2): crc(A‖B) = crc(A)·x^(8·|B|) mod P  ⊕  crc(B), with reflected polynomials.
const POLY = 0xedb88320;

/** a(x)·b(x) mod P(x), both reflected. */
function multModP(a: number, b: number): number {
  let m = 0x8000_0000;
  let product = 0;
  let factor = b >>> 0;
  while (m !== 0) {
    if ((a & m) !== 0) product ^= factor;
    m >>>= 1;
    factor = (factor & 1) !== 0 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return product >>> 0;
}

/** X2N[k] = x^(2^k) mod P. */
const X2N: number[] = (() => {
  const table: number[] = [0x4000_0000]; // x^1
  for (let k = 1; k < 32; k++) {
    const previous = table[k - 1] as number;
    table.push(multModP(previous, previous));
  }
  return table;
})();

/** x^(n·2^k) mod P. */
function x2nModP(n: number, k: number): number {
  let p = 0x8000_0000; // x^0
  let rest = n;
  let bit = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multModP(X2N[bit % 32] as number, p);
    rest = Math.floor(rest / 2);
    bit++;
  }
  return p;
}

export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA) ^ crcB) >>> 0;
}
