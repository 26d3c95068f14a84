/**
 * The two halves of /metrics on their own, for multi-target scraping (docs/deployment.md, "Single target vs
 * multi-target"): one router's series (GET /probe?target=NAME) and the exporter's own series
 * (GET /metrics?scope=exporter). Both are laid out from the same prepared chunks as /metrics, so a router's
 * /probe body holds exactly that router's lines of /metrics, and every /probe body plus the exporter's own
 * series add up to /metrics. Nothing here waits on a router.
 */
import { FAMILIES } from './families.js';
import { layBody, type RenderedBody } from './exposition.js';
import { inflateLargeOffLoop, type Chunk } from './gzip.js';
import { FAMILY_HEADERS } from './family-headers.js';
import type { ExpositionFormat } from './negotiate.js';
import type { SelfMetrics } from './self.js';
import type { SnapshotStore } from './store.js';

export class RouterExposition {
  readonly #store: Pick<SnapshotStore, 'routerChunksOf'>;
  readonly #self: Pick<SelfMetrics, 'render'>;

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
    if (gzip || headOnly) return Promise.resolve(layBody(chunks, undefined, format, gzip, headOnly));
    // Plain: a router's large plain forms are inflated off the event loop first (80,000 peers: ~100 MB).
    return inflateLargeOffLoop(chunks).then(() => layBody(chunks, undefined, format, gzip, headOnly));
  }

  /** GET /metrics?scope=exporter: build info, reloads, process and Node.js series; no router's. */
  async renderSelf(format: ExpositionFormat, gzip: boolean, headOnly = false): Promise<RenderedBody> {
    const own = Buffer.from(await this.#self.render(format), 'utf8');
    return layBody([], own, format, gzip, headOnly);
  }
}
