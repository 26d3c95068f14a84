/**
 * What a collector run produces: sample lines rendered to bytes once, grouped by family, and kept as
 * deflated chunks (gzip.ts), so that a scrape only has to lay prepared bytes end to end.
 */
import { FAMILIES } from './families.js';
import type { Family, LabelValues, SeriesLabels } from './family.js';
import { deflateChunk, deflateChunkOffLoop, digestOf, plainOf, STORED_BELOW_BYTES, storedChunks, storesExactly, type Chunk } from './gzip.js';
import { Slicer, type SliceOptions } from '../util/slices.js';
import { LineWriter } from './lines.js';
import { escapeLabelValue, formatValue } from './text.js';

/** `name{` of every family, as bytes, made once. */
const PREFIXES = FAMILIES.map((family) => Buffer.from(`${family.name}{`, 'utf8'));
const CLOSE = Buffer.from('} ', 'utf8');
const QUOTE = 0x22;

/**
 * Values for the labels of `Labels` past `Base`, one per label; `never` when `Labels` does not start with `Base`
 * (labels of another shape). Computed from both, so that no inference can widen the rest to any length.
 */
export type LabelValuesAfter<Labels extends readonly string[], Base extends readonly string[]> =
  Labels extends readonly [...Base, ...infer More extends readonly string[]] ? LabelValues<More> : never;

/**
 * The last label text added and its UTF-8: an object's labels go into several families in a row (a peer's into
 * five), so they are encoded once, not once per line. One for every set (a buffer per set was ~8 MB per cycle at
 * 2,000 routers): a set checks the text before using the bytes, so another set's text in between only costs an
 * encoding.
 */
const lastLabels = { text: '', bytes: Buffer.allocUnsafeSlow(1024), encoded: Buffer.alloc(0) };

function encodeLabels(labels: string): void {
  // A UTF-16 code unit takes at most 3 bytes in UTF-8.
  if (labels.length * 3 > lastLabels.bytes.length) lastLabels.bytes = Buffer.allocUnsafeSlow(labels.length * 3);
  // A view of exactly the encoded bytes, made once per text: copying a part of a buffer makes a view per copy
  // (Buffer#copy with an end), which was one object per sample line, ~50 MB a cycle at 100 routers × 1,000 peers.
  lastLabels.encoded = lastLabels.bytes.subarray(0, lastLabels.bytes.write(labels, 0, 'utf8'));
  lastLabels.text = labels;
}

/** Families of at least this many bytes are deflated off the event loop when a set is sealed (a few ms of deflate). */
export const DEFLATE_OFF_LOOP_FROM = 1024 * 1024;

/** A family's bytes to deflate, and their digest. */
interface ChunkWanted {
  readonly bytes: Buffer;
  readonly digest: Buffer;
}

export class SampleSet {
  /** Chunks made by seal, which toChunks then returns. */
  #sealed: (Chunk | undefined)[] | undefined;
  #sealing = false;
  /** Families with lines added since the last toChunks. */
  readonly #writers: (LineWriter | undefined)[] = new Array<LineWriter | undefined>(FAMILIES.length);
  /** Families finished by toChunks. */
  readonly #done: (Chunk | undefined)[] = new Array<Chunk | undefined>(FAMILIES.length);
  #size = 0;

  /**
   * Adds one sample. `labels` is the already escaped label list without braces (`router="hq",interface="wg0"`),
   * built once per object by seriesLabels (family.ts) in the family's label order, and reused across its families.
   */
  add<Labels extends readonly string[]>(family: Family<Labels>, labels: SeriesLabels<Labels>, value: number): void {
    this.#finishLine(this.#startLine(family, labels), value);
  }

  /**
   * One sample of `family` whose labels are `base` (another family's, which `family`'s start with) and `values`
   * for the rest, written as they come rather than built into one more label text. A peer's info and
   * state series carry its whole label text plus one or two labels; as strings those were ~200,000 label texts
   * made and copied per cycle at 100 × 1,000.
   */
  addExtended<const Labels extends readonly string[], const Base extends readonly string[]>(
    family: Family<Labels>,
    base: SeriesLabels<Base>,
    values: LabelValuesAfter<Labels, Base>,
    value: number,
  ): void {
    const writer = this.#startLine(family, base);
    const from = family.labels.length - values.length;
    // Written piece by piece: no `name="value"` string is made for a line.
    for (let index = 0; index < values.length; index++) {
      writer.text(family.openings[from + index] as string);
      writer.text(escapeLabelValue(values[index] as string));
      writer.byte(QUOTE);
    }
    this.#finishLine(writer, value);
  }

  /** `name{` and the label text, in the family's writer (the text encoded once while it stays the same). */
  #startLine(family: Family, labels: string): LineWriter {
    this.#notSealing();
    let writer = this.#writers[family.index];
    if (writer === undefined) {
      // Lines added after a seal: its chunks are not the set's any more.
      this.#sealed = undefined;
      writer = new LineWriter();
      this.#writers[family.index] = writer;
      // Adding after toChunks: carry on from the bytes already finished.
      const done = this.#done[family.index];
      if (done !== undefined) writer.bytes(plainOf(done));
    }
    writer.bytes(PREFIXES[family.index] as Buffer);
    if (labels !== lastLabels.text) encodeLabels(labels);
    writer.bytes(lastLabels.encoded);
    return writer;
  }

  #finishLine(writer: LineWriter, value: number): void {
    writer.bytes(CLOSE);
    // Integers are most values (bytes, counts, timestamps): their digits need no string.
    if (Number.isSafeInteger(value)) writer.integer(value);
    else writer.text(formatValue(value));
    writer.newline();
    this.#size++;
  }

  /**
   * Deflated chunks per family index: undefined where the run had no sample of that family, and past the array's
   * end for the families after the last one it had. A family whose
   * bytes equal those of the chunk at the same index of `previous` is not deflated again: a large one takes over
   * that chunk's deflated bytes, in a chunk of its own (a plain form inflated for the old one goes with the old
   * one); a small one keeps the stored chunk itself, so that its bytes stay those merge.ts merged. Small families
   * are stored, not deflated (gzip.ts), compared byte for byte rather than by digest, and the new ones of a run
   * share one allocation. The chunks of a set sealed before (seal) are those.
   */
  toChunks(previous?: readonly (Chunk | undefined)[]): (Chunk | undefined)[] {
    this.#notSealing();
    if (this.#sealed !== undefined) return this.#sealed;
    const steps = this.#chunkSteps(previous);
    for (let step = steps.next(); ; ) {
      if (step.done === true) return step.value;
      step = steps.next(step.value === undefined ? undefined : deflateChunk(step.value.bytes, step.value.digest));
    }
  }

  /**
   * Makes the chunks ahead of toChunks, giving the event loop back between families and deflating the families of
   * megabytes (DEFLATE_OFF_LOOP_FROM) on libuv's thread pool: a router of tens of thousands of peers made families
   * of 10–25 MB, which held the loop for ~100 ms each. `previous` as for toChunks.
   */
  async seal(previous: readonly (Chunk | undefined)[] | undefined, options: SliceOptions = {}): Promise<void> {
    if (this.#sealed !== undefined) return;
    const slicer = new Slicer(options);
    const steps = this.#chunkSteps(previous);
    // While it lasts the writers' bytes are being deflated (off the loop, too): no line may be added, and
    // toChunks may not hand the writers back.
    this.#sealing = true;
    try {
      for (let step = steps.next(); ; ) {
        if (step.done === true) {
          this.#sealed = step.value;
          return;
        }
        const wanted = step.value;
        let deflated: Chunk | undefined;
        if (wanted !== undefined) {
          deflated = wanted.bytes.length >= DEFLATE_OFF_LOOP_FROM ? await deflateChunkOffLoop(wanted.bytes, wanted.digest) : deflateChunk(wanted.bytes, wanted.digest);
        }
        if (slicer.due()) await slicer.pause();
        step = steps.next(deflated);
      }
    } finally {
      this.#sealing = false;
    }
  }

  #notSealing(): void {
    if (this.#sealing) throw new Error('a sample set was used while it was being sealed');
  }

  /**
   * toChunks as steps: yields each family's bytes that need deflating (and gets their chunk back), and undefined
   * between families (a place to pause).
   */
  *#chunkSteps(previous: readonly (Chunk | undefined)[] | undefined): Generator<ChunkWanted | undefined, (Chunk | undefined)[], Chunk | undefined> {
    const newStored: number[] = [];
    const newStoredBytes: Buffer[] = [];
    for (let index = 0; index < FAMILIES.length; index++) {
      const writer = this.#writers[index];
      if (writer === undefined) continue;
      const bytes = writer.view();
      const before = previous?.[index];
      if (bytes.length < STORED_BELOW_BYTES) {
        if (storesExactly(before, bytes)) {
          this.#done[index] = before;
        } else {
          newStored.push(index);
          newStoredBytes.push(bytes);
        }
        continue;
      }
      const digest = digestOf(bytes);
      if (before !== undefined && before.length === bytes.length && before.digest?.equals(digest) === true) {
        this.#done[index] = { ...before };
      } else {
        const chunk = yield { bytes, digest };
        if (chunk === undefined) throw new Error('a family to deflate was given no chunk');
        this.#done[index] = chunk;
      }
      yield undefined;
    }
    if (newStored.length > 0) {
      const chunks = storedChunks(newStoredBytes);
      for (let at = 0; at < newStored.length; at++) this.#done[newStored[at] as number] = chunks[at];
    }
    // Every writer at once, after the stored bytes (views into them) were copied out.
    let end = 0;
    for (let index = 0; index < FAMILIES.length; index++) {
      this.#writers[index]?.release();
      this.#writers[index] = undefined;
      if (this.#done[index] !== undefined) end = index + 1;
    }
    // Up to the last family the run wrote, not a slot for every family: a snapshot keeps its array for the cycle
    // (4,000 of them and the meta series' 2,000 at 2,000 routers), most of them for a few families near the start.
    return this.#done.slice(0, end);
  }

  /** The number of samples, for tests and self-metrics. */
  get size(): number {
    return this.#size;
  }
}
