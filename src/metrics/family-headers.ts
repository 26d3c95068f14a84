/**
 * The fixed chunks every exposition lays between families: each family's HELP/TYPE (UNIT) lines per format,
 * prepared once at start, and the OpenMetrics `# EOF`. /metrics and /probe share them.
 */
import { FAMILIES, type Family } from './families.js';
import { fixedChunk, type Chunk } from './gzip.js';
import { metadataLines } from './metadata.js';
import type { ExpositionFormat } from './negotiate.js';

function header(family: Family, format: ExpositionFormat): Chunk {
  return fixedChunk(metadataLines(family.name, family.type, family.help, format));
}

/** By format, then by family index. */
export const FAMILY_HEADERS: Readonly<Record<ExpositionFormat, readonly Chunk[]>> = {
  text: FAMILIES.map((family) => header(family, 'text')),
  openmetrics: FAMILIES.map((family) => header(family, 'openmetrics')),
};

export const EOF_LINE: Chunk = fixedChunk('# EOF\n');
