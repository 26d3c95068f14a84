/**
 * Byte writers for sample lines. A collection at scale renders hundreds of thousands of lines per cycle;
 * writing them straight into reused scratch buffers (instead of one string per line, then a join, then a
 * copy to bytes) keeps that work off the garbage collector, which otherwise dominates collection CPU and
 * inflates the heap. Bytes are exactly those of `Buffer.from(line, 'utf8')`.
 */

const INITIAL_BYTES = 16 * 1024;
/**
 * Scratch bytes kept for reuse: a run's worth (the biggest, 1,000 peers, fills ~9 families of up to 256 KiB),
 * with room for a second run rendered while the first is being stored. Beyond that buffers are left to the
 * collector.
 */
const KEEP_AT_MOST_BYTES = 8 * 1024 * 1024;

/**
 * Free scratch buffers by size class (a power of two from INITIAL_BYTES up), so that a writer growing to the size
 * its family needs takes buffers kept from earlier runs instead of allocating. With one free list of mixed sizes a
 * writer took whatever came back last (mostly small ones) and grew by allocating: ~5,000 buffers of 64 KiB–1 MiB
 * per 3 minutes at 100 × 1,000, allocated and freed outside the JS heap, which taught glibc to keep allocations of
 * their size in its main heap instead of mapping them, and left that heap ~30 MB larger, fragmented (issue 13).
 */
const freeByClass: Buffer[][] = [];
let freeBytes = 0;

/** The size class holding buffers of at least `bytes`: 0 for INITIAL_BYTES, 1 for twice that, … */
function classOf(bytes: number): number {
  let size = INITIAL_BYTES;
  let sizeClass = 0;
  while (size < bytes) {
    size *= 2;
    sizeClass++;
  }
  return sizeClass;
}

/** A scratch buffer of the class's size, kept from earlier or new. */
function take(sizeClass: number): Buffer {
  const reused = freeByClass[sizeClass]?.pop();
  if (reused === undefined) return Buffer.allocUnsafeSlow(INITIAL_BYTES * 2 ** sizeClass);
  freeBytes -= reused.length;
  return reused;
}

/** Keeps a scratch buffer for reuse while the pool has room. */
function give(buffer: Buffer): void {
  if (buffer.length < INITIAL_BYTES || freeBytes + buffer.length > KEEP_AT_MOST_BYTES) return;
  const sizeClass = classOf(buffer.length);
  (freeByClass[sizeClass] ??= []).push(buffer);
  freeBytes += buffer.length;
}

/**
 * Drops every kept scratch buffer, as a process starts with none. The exporter never calls it; the test runner
 * does before each test file, since files share a worker process and one file's buffers would fill another's pool.
 */
export function dropScratchBuffers(): void {
  freeByClass.length = 0;
  freeBytes = 0;
}

/** Scratch bytes kept for reuse (for tests). */
export function keptScratchBytes(): number {
  return freeBytes;
}

const EMPTY = Buffer.alloc(0);

const NEWLINE = 0x0a;
const MINUS = 0x2d;
const ZERO = 0x30;
const SMALL = 2 ** 31;

export class LineWriter {
  #buffer: Buffer;
  #length = 0;

  constructor() {
    this.#buffer = take(0);
  }

  get length(): number {
    return this.#length;
  }

  /** Room for `extra` more bytes, growing to the next size class that holds them. */
  #reserve(extra: number): Buffer {
    const needed = this.#length + extra;
    if (needed > this.#buffer.length) {
      const grown = take(classOf(needed));
      this.#buffer.copy(grown, 0, 0, this.#length);
      give(this.#buffer);
      this.#buffer = grown;
    }
    return this.#buffer;
  }

  bytes(bytes: Buffer): void {
    this.#reserve(bytes.length).set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** UTF-8 of `text` (lone surrogates become U+FFFD, as with Buffer.from). */
  text(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    this.#length += this.#reserve(text.length * 3).write(text, this.#length, 'utf8');
  }

  byte(code: number): void {
    this.#reserve(1)[this.#length++] = code;
  }

  /** Decimal digits of a safe integer, as String() writes it (-0 as 0). */
  integer(value: number): void {
    let rest = value;
    if (rest < 0) {
      this.byte(MINUS);
      rest = -rest;
    }
    let digits = 1;
    for (let power = 10; power <= rest; power *= 10) digits++;
    const buffer = this.#reserve(digits);
    let at = this.#length + digits;
    this.#length = at;
    // Above 2^31 in doubles (floor(n / 10) is exact below 2^53), then in 32-bit integers, which are 4× faster.
    while (rest >= SMALL) {
      const tenth = Math.floor(rest / 10);
      buffer[--at] = ZERO + (rest - tenth * 10);
      rest = tenth;
    }
    let small = rest | 0;
    do {
      const tenth = (small / 10) | 0;
      buffer[--at] = ZERO + (small - tenth * 10);
      small = tenth;
    } while (small > 0);
  }

  newline(): void {
    this.byte(NEWLINE);
  }

  /** The written bytes, in place: valid until the next write or release(). */
  view(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Hands the scratch buffer back for reuse; the writer must not be used afterwards. */
  release(): void {
    give(this.#buffer);
    this.#buffer = EMPTY;
    this.#length = 0;
  }
}
