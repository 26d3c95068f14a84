/**
 * The two halves of /metrics on their own, for multi-target scraping (docs/deployment.md, "Single target vs
 * multi-target"): one router's series (GET /probe?target=NAME) and the exporter's own series
 * (GET /metrics?scope=exporter). Both are laid out from the same prepared chunks as /metrics, so a router's
 * /probe body holds exactly that router's lines of /metrics, and every /probe body plus the exporter's own
 * series add up to /metrics. Nothing here waits on a router.
 */
import { FAMILIES } from './families.js';
import { layBody, type RenderedBody } from './exposition.js';
import { deflateChunk, inflateLargeOffLoop, plainOf, type Chunk } from './gzip.js';
import { FAMILY_HEADERS } from './family-headers.js';
import type { ExpositionFormat } from './negotiate.js';
import type { SelfMetrics } from './self.js';
import type { SnapshotStore } from './store.js';

/**
 * A router's body, when no larger than this, is deflated whole for gzip probes: its families of a few hundred bytes
 * each are stored, not deflated one by one (gzip.ts), and laid as they were a /probe gzip body was 4–5 × one deflate of
 * its plain bytes (36.8 against 7.4 KB for the demo's hub; found by review). Larger bodies hold families large
 * enough to be deflated on their own.
 */
export const MERGED_PROBE_BYTES = 256 * 1024;

/** Each format's family headers: shared by every router, so never a router's own chunk. */
const HEADER_SETS: Readonly<Record<ExpositionFormat, ReadonlySet<Chunk>>> = {
  text: new Set(FAMILY_HEADERS.text),
  openmetrics: new Set(FAMILY_HEADERS.openmetrics),
};

/** A router's chunks as a gzip probe last laid them, deflated together: valid while every chunk is the same object. */
interface MergedProbe {
  readonly chunks: readonly Chunk[];
  readonly merged: Chunk;
}

export class RouterExposition {
  readonly #store: Pick<SnapshotStore, 'routerChunksOf'>;
  readonly #self: Pick<SelfMetrics, 'render'>;
  /**
   * Per format, keyed by the router's first own chunk (never a shared family header): a chunk the store drops (a new
   * run, the router gone) lets its entry go with it, so the cache holds only routers still served, once each.
   */
  readonly #merged: Record<ExpositionFormat, WeakMap<Chunk, MergedProbe>> = { text: new WeakMap(), openmetrics: new WeakMap() };

  constructor(store: Pick<SnapshotStore, 'routerChunksOf'>, self: Pick<SelfMetrics, 'render'>) {
    this.#store = store;
    this.#self = self;
  }

  /**
   * One router's chunks in exposition order, each family's header before its first chunk: its data series and
   * its collector meta series (routeros_up, routeros_collector_*), everything labelled with that router.
   * Undefined when no such router is planned.
   */
  routerChunks(router: string, format: ExpositionFormat): Chunk[] | undefined {
    const chunks: Chunk[] = [];
    const headers = FAMILY_HEADERS[format];
    for (const family of FAMILIES) {
      const own = this.#store.routerChunksOf(router, family.index);
      if (own === undefined) return undefined;
      if (own.length === 0) continue;
      chunks.push(headers[family.index] as Chunk, ...own);
    }
    return chunks;
  }

  /** GET /probe?target=NAME; undefined for an unknown router (404). The store is read at once, when called. */
  renderRouter(router: string, format: ExpositionFormat, gzip: boolean, headOnly = false): Promise<RenderedBody> | undefined {
    const chunks = this.routerChunks(router, format);
    if (chunks === undefined) return undefined;
    if (gzip) return Promise.resolve(layBody(this.#mergedFor(chunks, format), undefined, format, gzip, headOnly));
    if (headOnly) return Promise.resolve(layBody(chunks, undefined, format, gzip, headOnly));
    // Plain: a router's large plain forms are inflated off the event loop first (80,000 peers: ~100 MB).
    return inflateLargeOffLoop(chunks).then(() => layBody(chunks, undefined, format, gzip, headOnly));
  }

  /**
   * The router's chunks for a gzip body: deflated together once while they stay the same (a scrape after a collection
   * deflates; the ones after it lay what that one made), or as they are when the body is large.
   */
  #mergedFor(chunks: readonly Chunk[], format: ExpositionFormat): readonly Chunk[] {
    const headers = HEADER_SETS[format];
    const key = chunks.find((chunk) => !headers.has(chunk));
    if (key === undefined) return chunks;
    const cache = this.#merged[format];
    const known = cache.get(key);
    if (known !== undefined && known.chunks.length === chunks.length && known.chunks.every((chunk, index) => chunk === chunks[index])) return [known.merged];
    let bytes = 0;
    for (const chunk of chunks) bytes += chunk.length;
    if (bytes > MERGED_PROBE_BYTES) return chunks;
    const merged = deflateChunk(Buffer.concat(chunks.map(plainOf), bytes));
    cache.set(key, { chunks: [...chunks], merged });
    return [merged];
  }

  /** GET /metrics?scope=exporter: build info, reloads, process and Node.js series; no router's. */
  async renderSelf(format: ExpositionFormat, gzip: boolean, headOnly = false): Promise<RenderedBody> {
    const own = Buffer.from(await this.#self.render(format), 'utf8');
    return layBody([], own, format, gzip, headOnly);
  }
}
