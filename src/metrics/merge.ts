/**
 * Runs of small chunks deflated together, for gzip scrapes at fleet shape (issue 14): a family of a router with 4
 * peers is a few hundred bytes, and 2,000 of them deflated one by one made a gzip body 2.7 × one deflate of the
 * plain body (each chunk starts without a window to refer back to, and pays its own block header). Small chunks
 * are stored (gzip.ts); once the store has been quiet for a moment (or at the latest a few seconds after the first
 * change), the stored chunks of a family that are in no current run are deflated together in runs of ~64 KiB.
 *
 * A run is laid by a scrape only while every chunk it was made from is still the store's (a family whose bytes
 * did not change keeps its stored chunk object, samples.ts, and with it the run marked on it); otherwise the
 * scrape lays those chunks as they are, stored, which is valid gzip and up to date, only larger until the next
 * merge. So a scrape never waits for a merge, and merging costs one deflate of what changed per quiet period,
 * whatever the scrape rate.
 *
 * Runs are made of chunks that changed together, not of neighbours: the format only asks a family's lines to be
 * together, not in any order, so a run is laid where its first chunk is. Routers land spread over seconds after
 * each tick, in about the same order every cycle; a run of neighbours in the router list would hold routers
 * landing early and late, and be broken (laid stored) for most of the landing. A run of chunks that changed
 * between the same two merges is broken only when those routers land again, about a cycle later; the chunks
 * left over from a broken run form runs of their own, with others like them.
 */
import { deflateKeepingPlain, movePlain, type Chunk, type ChunkRun } from './gzip.js';

/** A run closes once it holds this many plain bytes. */
const RUN_BYTES = 64 * 1024;

/**
 * The last count's number, shared by every ChunkRuns: runs are marked on the chunks themselves, so two of them
 * over one store (tests) must never take one count for the other's. A count and the walk that reads it are one
 * synchronous step.
 */
let lastEpoch = 0;

export class ChunkRuns {
  /** Counts, for every run with a chunk in `chunks`, how many of its chunks are there. Returns the epoch. */
  #count(chunks: readonly Chunk[]): number {
    const epoch = ++lastEpoch;
    for (const chunk of chunks) {
      const run = chunk.run;
      if (run === undefined) continue;
      if (run.epoch !== epoch) {
        run.epoch = epoch;
        run.current = 0;
        run.laid = false;
      }
      run.current++;
    }
    return epoch;
  }

  #isCurrent(run: ChunkRun | undefined, epoch: number): run is ChunkRun {
    return run !== undefined && run.epoch === epoch && run.current === run.size;
  }

  /**
   * Deflates into runs the stored chunks of `chunks` (one family) that are in no current run: first those in no
   * run at all (they changed since the last merge), then those left over from broken runs.
   */
  merge(chunks: readonly Chunk[]): void {
    const epoch = this.#count(chunks);
    const changed: Chunk[] = [];
    const leftOver: Chunk[] = [];
    for (const chunk of chunks) {
      if (!chunk.stored) continue;
      const run = chunk.run;
      if (run === undefined) changed.push(chunk);
      else if (!this.#isCurrent(run, epoch)) leftOver.push(chunk);
    }
    this.#runsOf(changed);
    this.#runsOf(leftOver);
  }

  #runsOf(chunks: readonly Chunk[]): void {
    let start = 0;
    while (start < chunks.length) {
      let end = start;
      let bytes = 0;
      while (end < chunks.length && bytes < RUN_BYTES) bytes += (chunks[end++] as Chunk).length;
      // A run of one gains nothing: the chunk stays stored.
      if (end - start > 1) {
        const group = chunks.slice(start, end);
        // The run keeps its plain bytes too: a plain scrape then lays a few hundred parts, not 60,000 small ones;
        // its chunks read theirs from there, so their blocks are not kept for them as well. Not from the shared
        // pool slab, which a run (kept a cycle) would pin.
        const plain = Buffer.allocUnsafeSlow(bytes);
        let at = 0;
        for (const chunk of group) at += movePlain(chunk, plain, at);
        const merged = deflateKeepingPlain(plain);
        const run: ChunkRun = { size: group.length, merged, epoch: 0, current: 0, laid: false };
        for (const chunk of group) chunk.run = run;
      }
      start = end;
    }
  }

  /** `chunks` (one family, in store order) with every current run laid once, where its first chunk is. */
  lay(chunks: readonly Chunk[], out: Chunk[]): void {
    const epoch = this.#count(chunks);
    for (const chunk of chunks) {
      const run = chunk.run;
      if (!this.#isCurrent(run, epoch)) {
        out.push(chunk);
      } else if (!run.laid) {
        run.laid = true;
        out.push(run.merged);
      }
    }
  }
}
