/**
 * Gzip without recompressing everything on every scrape: each prepared chunk is deflated once,
 * independently and ending on a byte boundary (sync flush), so deflated chunks can be laid end to end
 * in one gzip member; the CRC-32 of the whole is combined from the chunks' CRCs arithmetically.
 */
import { constants, crc32, deflateRawSync, type ZlibOptions } from 'node:zlib';

/** Speed over ratio: the chunks are large, label-heavy text that compresses well even at level 1. */
const LEVEL = 1;

export interface DeflatedChunk {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
}

const OPTIONS: ZlibOptions = { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH };

export function deflateChunk(chunk: Buffer): DeflatedChunk {
  const out = deflateRawSync(chunk, OPTIONS);
  // A short output is a slice of zlib's 16 KiB work buffer; kept as it is, each small chunk would pin all of it.
  const deflated = out.length < out.buffer.byteLength / 2 ? Buffer.from(out) : out;
  return { deflated, crc: crc32(chunk), length: chunk.length };
}

/**
 * Deflated forms by chunk, made on the first gzip scrape that needs them and dropped with the chunk. Shared by
 * every exposition: a chunk's deflated form depends on its bytes alone.
 */
const deflatedCache = new WeakMap<Buffer, DeflatedChunk>();

export function deflatedOf(chunk: Buffer): DeflatedChunk {
  let deflated = deflatedCache.get(chunk);
  if (deflated === undefined) {
    deflated = deflateChunk(chunk);
    deflatedCache.set(chunk, deflated);
  }
  return deflated;
}

/** `next` holds the very bytes of `previous`: it takes over the deflated form, if one was made. */
export function inheritDeflated(previous: Buffer, next: Buffer): void {
  const deflated = deflatedCache.get(previous);
  if (deflated !== undefined) deflatedCache.set(next, deflated);
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** An empty final deflate block (fixed Huffman, end-of-block only). */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** The parts of one gzip member holding the given chunks, in order. */
export function gzipParts(chunks: readonly DeflatedChunk[]): { parts: Buffer[]; length: number } {
  const parts: Buffer[] = [GZIP_HEADER];
  let length = GZIP_HEADER.length;
  let crc = 0;
  let size = 0;
  for (const chunk of chunks) {
    parts.push(chunk.deflated);
    length += chunk.deflated.length;
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
