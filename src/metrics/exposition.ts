/**
 * Assembles /metrics from prepared chunks: headers and sample lines are deflated once, at collection time;
 * a gzip scrape lays them end to end in one gzip member, a plain scrape lays their plain forms end to end
 * (inflated on the first plain scrape that needs them, gzip.ts).
 */
import { FAMILIES, type Family } from './families.js';
import { deflateChunk, fixedChunk, gzipParts, plainOf, type Chunk } from './gzip.js';
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

export class Exposition {
  readonly #store: SnapshotStore;
  readonly #self: SelfMetrics;

  constructor(store: SnapshotStore, self: SelfMetrics) {
    this.#store = store;
    this.#self = self;
  }

  /**
   * The router chunks in exposition order, gathered afresh per scrape (a few thousand references, well under a
   * millisecond). Not cached on purpose: a cached list would keep a whole superseded exposition (~95 MB at
   * 100 × 1,000) alive until the next scrape, since the store replaces most chunks every collection.
   */
  routerChunks(format: ExpositionFormat): Chunk[] {
    const chunks: Chunk[] = [];
    const headers = HEADERS[format];
    for (const family of FAMILIES) {
      let first = true;
      for (const chunk of this.#store.chunksOf(family.index)) {
        if (first) {
          chunks.push(headers[family.index] as Chunk);
          first = false;
        }
        chunks.push(chunk);
      }
    }
    return chunks;
  }

  /**
   * The body of a scrape. With `headOnly` (a HEAD request) the parts are left out and plain forms are not
   * inflated: the length is known from the chunks.
   */
  async render(format: ExpositionFormat, gzip: boolean, headOnly = false): Promise<RenderedBody> {
    const chunks = this.routerChunks(format);
    const own = Buffer.from(await this.#self.render(format), 'utf8');
    const tail = format === 'openmetrics' ? [EOF_LINE] : [];
    if (gzip) {
      const body = gzipParts([...chunks, deflateChunk(own), ...tail]);
      return headOnly ? { parts: [], length: body.length } : body;
    }
    let length = own.length;
    for (const chunk of [...chunks, ...tail]) length += chunk.length;
    if (headOnly) return { parts: [], length };
    return { parts: [...chunks.map(plainOf), own, ...tail.map(plainOf)], length };
  }

  /** The plain text of the data series (no process metrics), for tests and `once`. */
  routerText(format: ExpositionFormat): string {
    return Buffer.concat(this.routerChunks(format).map(plainOf)).toString('utf8');
  }
}
