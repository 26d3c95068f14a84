/**
 * Assembles /metrics from prepared chunks: headers and sample lines are deflated once, at collection time;
 * a gzip scrape lays them end to end in one gzip member, a plain scrape lays their plain forms end to end
 * (inflated on the first plain scrape that needs them, gzip.ts). Small chunks are stored and deflated in runs
 * once the store is quiet (merge.ts); gzip scrapes use those runs while they are current.
 */
import { FAMILIES } from './families.js';
import { copyPlain, deflateChunk, gzipParts, hasPlain, inflateLargeOffLoop, plainOf, STORED_BELOW_BYTES, type Chunk } from './gzip.js';
import { ChunkRuns } from './merge.js';
import type { ExpositionFormat } from './negotiate.js';
import type { SelfMetrics } from './self.js';
import type { SnapshotStore } from './store.js';
import { EOF_LINE, FAMILY_HEADERS } from './family-headers.js';

export interface RenderedBody {
  parts: Buffer[];
  length: number;
}

/**
 * Lays a body out of prepared chunks, the exporter's own series (plain bytes, if any) and the format's tail:
 * gzip as one member, plain as `plainParts()` when given (else each chunk's plain form); HEAD (`headOnly`) gets
 * only the length, known from the chunks without inflating anything. /metrics and /probe share it.
 */
export function layBody(
  chunks: readonly Chunk[],
  own: Buffer | undefined,
  format: ExpositionFormat,
  gzip: boolean,
  headOnly: boolean,
  plainParts?: () => Buffer[],
): RenderedBody {
  const tail = format === 'openmetrics' ? [EOF_LINE] : [];
  if (gzip) {
    const body = gzipParts([...chunks, ...(own === undefined ? [] : [deflateChunk(own)]), ...tail]);
    return headOnly ? { parts: [], length: body.length } : body;
  }
  let length = own?.length ?? 0;
  for (const chunk of chunks) length += chunk.length;
  for (const chunk of tail) length += chunk.length;
  if (headOnly) return { parts: [], length };
  const parts = plainParts?.() ?? chunks.map(plainOf);
  return { parts: [...parts, ...(own === undefined ? [] : [own]), ...tail.map(plainOf)], length };
}

/** Runs are merged once no run has landed for this long… */
const QUIET_MS = 250;
/**
 * …or at the latest this long after the first change: collections landing back to back (2,000 routers over ~5 s
 * after each tick) never go quiet, and a merge deflates only what changed since the last (merge.ts), so merging
 * often during a landing costs little more than merging once, while a gzip scrape right after it finds nearly
 * everything merged (at 5 s, a --fleet run's scrape just after the landing got 2.3 × one deflate, not ~1.2 ×).
 */
const AT_MOST_MS = 1000;
/** Small plain parts are copied together into parts of about this size: 80,000 writes of 300 bytes are slow. */
const PLAIN_PART_BYTES = 64 * 1024;

/** A format's laid-out router chunks, and their plain parts once a plain scrape asked; valid until the store changes. */
interface Prepared {
  /** The store's version it was laid out from. */
  readonly version: number;
  readonly chunks: Chunk[];
  plain: Buffer[] | undefined;
}

export class Exposition {
  readonly #store: SnapshotStore;
  readonly #self: SelfMetrics;
  readonly #runs = new ChunkRuns();
  /**
   * Dropped at every change of the store, so it never keeps a superseded chunk alive; made again by the merge
   * that follows a collection (text) or by the next scrape. Repeated scrapes of a quiet store lay it as it is.
   */
  readonly #prepared = new Map<ExpositionFormat, Prepared>();
  #timer: NodeJS.Timeout | undefined;
  #changedSince = 0;
  #merging = false;

  constructor(store: SnapshotStore, self: SelfMetrics) {
    this.#store = store;
    this.#self = self;
    store.subscribe(() => this.#changed());
  }

  /** A run landed: merge once the store is quiet (or at the latest AT_MOST_MS after the first change). */
  #changed(): void {
    this.#prepared.clear();
    const now = performance.now();
    if (this.#timer === undefined) {
      this.#changedSince = now;
      this.#timer = setTimeout(() => void this.#mergeSoon(), QUIET_MS);
      // A pending merge never keeps the process alive.
      this.#timer.unref();
    } else if (now - this.#changedSince < AT_MOST_MS - QUIET_MS) {
      this.#timer.refresh();
    }
  }

  async #mergeSoon(): Promise<void> {
    this.#timer = undefined;
    if (this.#merging) {
      this.#changed();
      return;
    }
    this.#merging = true;
    try {
      // A family at a time, letting scrapes and collections in between (a family is at most ~1 MB at 2,000 routers).
      // Chunks superseded meanwhile make runs that no scrape uses: each is checked against the store when laid.
      const version = this.#store.version;
      const all = this.#store.chunksByFamily();
      for (const family of FAMILIES) {
        this.#runs.merge(all[family.index] ?? []);
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.#prepared.clear();
      // Runs that landed meanwhile have another merge due, which lays out what it leaves: laid out now as well, as
      // before, a landing's ~4 merges each walked the store twice (~0.05 s of a 2,000-router cycle, CPU profile).
      if (this.#timer !== undefined) return;
      // The layout with the new runs, ready for the next scrape (the first plain one after a collection too: its
      // parts as well where no chunk needs inflating, as at fleet shape; 95 MB inflated ahead of need would not be).
      // From the merge's own walk while the store has not changed since (merging marks chunks, it changes none).
      const prepared = this.#prepare('text', this.#store.version === version ? all : undefined);
      if (prepared.chunks.every(hasPlain)) prepared.plain = plainParts(prepared.chunks);
    } finally {
      this.#merging = false;
    }
  }

  /** Merges every family's runs now (tests, and callers that want the smallest gzip body at once). */
  mergeNow(): void {
    const all = this.#store.chunksByFamily();
    for (const family of FAMILIES) this.#runs.merge(all[family.index] ?? []);
    this.#prepared.clear();
  }

  /** The scrape layout of `format`, laid out from `all` (the store's chunks as they are now) when given. */
  #prepare(format: ExpositionFormat, all?: Chunk[][]): Prepared {
    let prepared = this.#prepared.get(format);
    // A backoff or a reload changes chunks without a recorded run: the version catches every change.
    if (prepared === undefined || prepared.version !== this.#store.version) {
      prepared = { version: this.#store.version, chunks: this.#layout(format, true, all ?? this.#store.chunksByFamily()), plain: undefined };
      this.#prepared.set(format, prepared);
    }
    return prepared;
  }

  /**
   * The router chunks in exposition order, gathered from the store (one walk, a few ms at 2,000 routers); with
   * `merged`, current runs in place of their chunks. Scrapes keep the result only until the store changes
   * (#prepared): kept longer it would hold a whole superseded exposition (~30 MB deflated at 100 × 1,000).
   */
  routerChunks(format: ExpositionFormat, merged = false): Chunk[] {
    return this.#layout(format, merged, this.#store.chunksByFamily());
  }

  #layout(format: ExpositionFormat, merged: boolean, all: readonly Chunk[][]): Chunk[] {
    const chunks: Chunk[] = [];
    const headers = FAMILY_HEADERS[format];
    for (const family of FAMILIES) {
      const own = all[family.index] ?? [];
      if (own.length === 0) continue;
      chunks.push(headers[family.index] as Chunk);
      if (merged) this.#runs.lay(own, chunks);
      else for (const chunk of own) chunks.push(chunk);
    }
    return chunks;
  }

  /**
   * The body of a scrape. With `headOnly` (a HEAD request) the parts are left out and plain forms are not
   * inflated: the length is known from the chunks.
   */
  async render(format: ExpositionFormat, gzip: boolean, headOnly = false): Promise<RenderedBody> {
    const prepared = this.#prepare(format);
    // The first plain scrape after a collection: large plain forms are inflated off the event loop first.
    if (!gzip && !headOnly && prepared.plain === undefined) await inflateLargeOffLoop(prepared.chunks);
    const own = Buffer.from(await this.#self.render(format), 'utf8');
    return layBody(prepared.chunks, own, format, gzip, headOnly, () => (prepared.plain ??= plainParts(prepared.chunks)));
  }

  /** The plain text of the data series (no process metrics), for tests and `once`. */
  routerText(format: ExpositionFormat): string {
    return Buffer.concat(this.routerChunks(format).map(plainOf)).toString('utf8');
  }
}

/**
 * The plain parts of `chunks`, runs of small ones copied together (one copy per plain scrape, ~5 ms for 20 MB of
 * small parts): stored chunks' bytes are copied straight from where they are kept (their block, or their run's
 * bytes once merged), without a view made of each (~60,000 at 2,000 routers).
 */
function plainParts(chunks: readonly Chunk[]): Buffer[] {
  const out: Buffer[] = [];
  let pending: Chunk[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pending.length === 1) {
      out.push(plainOf(pending[0] as Chunk));
    } else if (pending.length > 1) {
      const joined = Buffer.allocUnsafe(pendingBytes);
      let at = 0;
      for (const chunk of pending) at += copyPlain(chunk, joined, at);
      out.push(joined);
    }
    pending = [];
    pendingBytes = 0;
  };
  for (const chunk of chunks) {
    if (chunk.length >= STORED_BELOW_BYTES) {
      flush();
      out.push(plainOf(chunk));
      continue;
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= PLAIN_PART_BYTES) flush();
  }
  flush();
  return out;
}
