/**
 * Assembles /metrics from prepared chunks: headers and sample lines are bytes made at collection time,
 * a scrape lays them end to end (plain) or lays their once-deflated forms end to end (gzip).
 */
import { FAMILIES, type Family } from './families.js';
import { deflatedOf, gzipParts } from './gzip.js';
import type { ExpositionFormat } from './negotiate.js';
import type { SelfMetrics } from './self.js';
import type { SnapshotStore } from './store.js';
import { escapeHelp } from './text.js';

export interface RenderedBody {
  parts: Buffer[];
  length: number;
}

function header(family: Family, format: ExpositionFormat): Buffer {
  // OpenMetrics names a counter family without its _total suffix; the samples keep it.
  const name = format === 'openmetrics' && family.type === 'counter' ? family.name.replace(/_total$/, '') : family.name;
  return Buffer.from(`# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`, 'utf8');
}

const HEADERS: Record<ExpositionFormat, Buffer[]> = {
  text: FAMILIES.map((family) => header(family, 'text')),
  openmetrics: FAMILIES.map((family) => header(family, 'openmetrics')),
};
const EOF_LINE = Buffer.from('# EOF\n');

export class Exposition {
  readonly #store: SnapshotStore;
  readonly #self: SelfMetrics;
  #cache = new Map<string, { version: number; chunks: Buffer[] }>();

  constructor(store: SnapshotStore, self: SelfMetrics) {
    this.#store = store;
    this.#self = self;
  }

  /** The router chunks in exposition order for the store's current version (cached per version and format). */
  routerChunks(format: ExpositionFormat): Buffer[] {
    const version = this.#store.version;
    const cached = this.#cache.get(format);
    if (cached !== undefined && cached.version === version) return cached.chunks;
    const chunks: Buffer[] = [];
    const headers = HEADERS[format];
    for (const family of FAMILIES) {
      let first = true;
      for (const chunk of this.#store.chunksOf(family.index)) {
        if (first) {
          chunks.push(headers[family.index] as Buffer);
          first = false;
        }
        chunks.push(chunk);
      }
    }
    this.#cache.set(format, { version, chunks });
    return chunks;
  }

  async render(format: ExpositionFormat, gzip: boolean): Promise<RenderedBody> {
    const chunks = [...this.routerChunks(format), Buffer.from(await this.#self.render(format), 'utf8')];
    if (format === 'openmetrics') chunks.push(EOF_LINE);
    if (!gzip) {
      let length = 0;
      for (const chunk of chunks) length += chunk.length;
      return { parts: chunks, length };
    }
    // Each chunk is deflated once (gzip.ts), the first time a gzip scrape needs it.
    return gzipParts(chunks.map(deflatedOf));
  }
}
