/**
 * Runs of small chunks deflated together, for gzip scrapes at fleet shape (issue 14): a family of a router with 4
 * peers is a few hundred bytes, and 2,000 of them deflated one by one made a gzip body 2.7 × one deflate of the
 * plain body (each chunk starts without a window to refer back to, and pays its own block header). Small chunks
 * are stored (gzip.ts); once the store has been quiet for a moment (or at the latest a few seconds after the first
 * change), consecutive stored chunks of a family are deflated together in runs of about 64 KiB.
 *
 * A run is used by a scrape only while every chunk it was made from is still the store's chunk at that place
 * (compared by identity of their bytes); otherwise the scrape lays those chunks as they are, stored, which is
 * valid gzip and up to date, only larger until the next merge. So a scrape never waits for a merge, and merging
 * costs one deflate of what changed per quiet period, whatever the scrape rate. Plain scrapes lay the runs' plain
 * bytes the same way (at 2,000 × 4: ~13 MB kept beside the stored chunks, against ~60,000 parts per scrape).
 */
import { deflateKeepingPlain, type Chunk } from './gzip.js';

/** A run closes once it holds this many plain bytes. */
const RUN_BYTES = 64 * 1024;

interface Run {
  /** Index in the family's chunk list of the first chunk it was made from. */
  readonly start: number;
  /** The `deflated` buffers of the chunks it was made from, in order. */
  readonly sources: readonly Buffer[];
  readonly merged: Chunk;
}

const NO_RUNS: readonly Run[] = [];

export class ChunkRuns {
  /** Per family index, the runs of the last merge, by start. */
  #runs: (readonly Run[])[] = [];

  /**
   * Deflates every run of consecutive stored chunks of `chunks` (one family, in exposition order) that changed
   * since the last merge; keeps the rest. Single stored chunks are left alone (nothing to gain).
   */
  merge(familyIndex: number, chunks: readonly Chunk[]): void {
    const before = new Map<Buffer, Run>();
    for (const run of this.#runs[familyIndex] ?? NO_RUNS) before.set(run.sources[0] as Buffer, run);
    const runs: Run[] = [];
    let index = 0;
    while (index < chunks.length) {
      if ((chunks[index] as Chunk).plain === undefined) {
        index++;
        continue;
      }
      const start = index;
      let bytes = 0;
      while (index < chunks.length && bytes < RUN_BYTES) {
        const chunk = chunks[index] as Chunk;
        if (chunk.plain === undefined) break;
        bytes += chunk.length;
        index++;
      }
      if (index - start < 2) continue;
      const group = chunks.slice(start, index);
      const kept = before.get(group[0]?.deflated as Buffer);
      if (kept !== undefined && kept.start === start && sameSources(kept, chunks, start)) {
        runs.push(kept);
      } else {
        const plain = Buffer.concat(group.map((chunk) => chunk.plain as Buffer), bytes);
        // The run keeps its plain bytes too: a plain scrape then lays a few hundred parts, not 60,000 small ones.
        runs.push({ start, sources: group.map((chunk) => chunk.deflated), merged: deflateKeepingPlain(plain) });
      }
    }
    this.#runs[familyIndex] = runs;
  }

  /** `chunks` (one family, in order) with every run that is still current replaced by its merged chunk. */
  lay(familyIndex: number, chunks: readonly Chunk[], out: Chunk[]): void {
    const runs = this.#runs[familyIndex] ?? NO_RUNS;
    let next = 0;
    let index = 0;
    while (index < chunks.length) {
      while (next < runs.length && (runs[next] as Run).start < index) next++;
      const run = runs[next];
      if (run !== undefined && run.start === index && sameSources(run, chunks, index)) {
        out.push(run.merged);
        index += run.sources.length;
      } else {
        out.push(chunks[index] as Chunk);
        index++;
      }
    }
  }
}

function sameSources(run: Run, chunks: readonly Chunk[], start: number): boolean {
  if (start + run.sources.length > chunks.length) return false;
  for (let offset = 0; offset < run.sources.length; offset++) {
    if ((chunks[start + offset] as Chunk).deflated !== run.sources[offset]) return false;
  }
  return true;
}
