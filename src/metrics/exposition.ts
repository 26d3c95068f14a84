/**
 * Assembles /metrics from prepared chunks: headers and sample lines are deflated once, at collection time;
 * a gzip scrape lays them end to end in one gzip member, a plain scrape lays their plain forms end to end
 * (inflated on the first plain scrape that needs them, gzip.ts). Small chunks are stored and deflated in runs
 * once the store is quiet (merge.ts); gzip scrapes use those runs while they are current.
 */
import { FAMILIES, type Family } from './families.js';
import { deflateChunk, fixedChunk, gzipParts, plainOf, STORED_BELOW_BYTES, type Chunk } from './gzip.js';
import { ChunkRuns } from './merge.js';
import type { ExpositionFormat } from './negotiate.js';
import type { SelfMetrics } from './self.js';
import type { SnapshotStore } from './store.js';
import { metadataLines } from './metadata.js';

export interface RenderedBody {
  parts: Buffer[];
  length: number;
}

function header(family: Family, format: ExpositionFormat): Chunk {
  return fixedChunk(metadataLines(family.name, family.type, family.help, format));
}

const HEADERS: Record<ExpositionFormat, Chunk[]> = {
  text: FAMILIES.map((family) => header(family, 'text')),
  openmetrics: FAMILIES.map((family) => header(family, 'openmetrics')),
};
const EOF_LINE = fixedChunk('# EOF\n');

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

export class Exposition {
  readonly #store: SnapshotStore;
  readonly #self: SelfMetrics;
  readonly #runs = new ChunkRuns();
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
      const all = this.#store.chunksByFamily();
      for (const family of FAMILIES) {
        this.#runs.merge(all[family.index] ?? []);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#merging = false;
    }
  }

  /** Merges every family's runs now (tests, and callers that want the smallest gzip body at once). */
  mergeNow(): void {
    const all = this.#store.chunksByFamily();
    for (const family of FAMILIES) this.#runs.merge(all[family.index] ?? []);
  }

  /**
   * The router chunks in exposition order, gathered afresh per scrape (a few thousand references, well under a
   * millisecond). Not cached on purpose: a cached list would keep a whole superseded exposition (~95 MB at
   * 100 × 1,000) alive until the next scrape, since the store replaces most chunks every collection.
   */
  routerChunks(format: ExpositionFormat, merged = false): Chunk[] {
    const chunks: Chunk[] = [];
    const headers = HEADERS[format];
    const all = this.#store.chunksByFamily();
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
    const chunks = this.routerChunks(format, true);
    const own = Buffer.from(await this.#self.render(format), 'utf8');
    const tail = format === 'openmetrics' ? [EOF_LINE] : [];
    if (gzip) {
      const body = gzipParts([...chunks, deflateChunk(own), ...tail]);
      return headOnly ? { parts: [], length: body.length } : body;
    }
    let length = own.length;
    for (const chunk of [...chunks, ...tail]) length += chunk.length;
    if (headOnly) return { parts: [], length };
    return { parts: coalesce([...chunks.map(plainOf), own, ...tail.map(plainOf)]), length };
  }

  /** The plain text of the data series (no process metrics), for tests and `once`. */
  routerText(format: ExpositionFormat): string {
    return Buffer.concat(this.routerChunks(format).map(plainOf)).toString('utf8');
  }
}

/** `parts` with runs of small ones copied together (one copy per plain scrape, ~5 ms for 20 MB of small parts). */
function coalesce(parts: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pending.length === 1) out.push(pending[0] as Buffer);
    else if (pending.length > 1) out.push(Buffer.concat(pending, pendingBytes));
    pending = [];
    pendingBytes = 0;
  };
  for (const part of parts) {
    if (part.length >= STORED_BELOW_BYTES) {
      flush();
      out.push(part);
      continue;
    }
    pending.push(part);
    pendingBytes += part.length;
    if (pendingBytes >= PLAIN_PART_BYTES) flush();
  }
  flush();
  return out;
}
