/**
 * One HTTP exchange read whole, through undici's handler interface (`dispatch`) rather than its `request` API.
 * `request` wraps every exchange in an async resource, an abort listener on a signal and a body stream, which a
 * reply read whole into parts does not need: at 2,000 routers (8,000 exchanges a cycle) they were a tenth of the
 * exporter's main thread and much of what its garbage collector had to sweep.
 */
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { keptBytes } from '../util/kept-bytes.js';

/** A reply read whole: its status, its head, and its body in the parts it came in. */
export interface WholeReply {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly parts: readonly Buffer[];
  readonly length: number;
}

/** Given to undici when an exchange is stopped for a reason that is not an Error (undici's abort takes one). */
const STOPPED = new Error('exchange stopped');

/**
 * Pieces of a body shorter than this are copied together into blocks of GATHER_BYTES instead of kept one by one.
 * Undici hands over one piece per chunk of a chunked body, a view with its own Buffer object: a router (or what
 * answers in its place) that sends one-byte chunks made each byte of the reply cost ~150 bytes of heap, and a
 * 3 MB reply, well under the reply cap, 470 MB (found by review). Larger pieces are kept as they come, and so are
 * the first KEPT_PIECES of any size: a reply of a few small pieces (the fleet's usual) costs no block and no copy.
 * Blocks start at FIRST_GATHER_BYTES and double up to GATHER_BYTES; one less than half full when a large piece
 * comes is copied out at its size and reused, so small pieces between large ones (1 byte, 4 KiB, 1 byte, …) do not
 * keep a block each (a first version kept 64 KiB per byte there, found by review of it).
 */
const SMALL_PIECE_BYTES = 4096;
/**
 * The most pieces under MIN_PIECE_BYTES a reply may come in. Each costs undici a parse step: a 32 MB reply in
 * one-byte chunks took 7.4 s of CPU, inside the default timeout, a quarter of a core per 30 s cycle for one hostile
 * router (found by review). Counted apart from the large pieces, not as an average, which one large chunk after every
 * 250 one-byte ones kept over 64 bytes (found by review of the same rule for reads, wire-meter.ts). A real reply
 * comes in TLS records of up to 16 KiB, or in chunks of whatever size its server writes: a few small pieces at most.
 */
export const MAX_REPLY_PIECES = 65_536;
const MIN_PIECE_BYTES = 64;
const KEPT_PIECES = 32;
/**
 * The most informational answers (1xx) taken before a reply. Each is a head undici parses and hands over: endless
 * `102 Processing` lines kept an exchange reading at full speed until its timeout, 1.5 s of CPU even with the
 * wire's bound (wire-meter.ts) ending it after 68 MB (found by review). RouterOS sends none; a server sends a few.
 */
export const MAX_INFORMATIONAL_ANSWERS = 64;
const FIRST_GATHER_BYTES = 4096;
const GATHER_BYTES = 64 * 1024;

/**
 * The handler of one exchange, and its outcome (`reply`). It settles once: with the whole reply, with undici's
 * error, with `tooLarge()` once the body (declared or read so far) is longer than `maxBytes`, or with the reason
 * given to `stop`, at once, whatever undici is doing (a connect still under way ends later, on its own timeout).
 */
export class ReplyReader implements Dispatcher.DispatchHandler {
  readonly reply: Promise<WholeReply>;
  #resolve!: (reply: WholeReply) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** What undici is told when an exchange stopped before it started is aborted, as it starts. */
  #abortReason: Error = STOPPED;
  #answered = false;
  #statusCode = 0;
  #headers: IncomingHttpHeaders = {};
  #parts: Buffer[] = [];
  #length = 0;
  /** Where small pieces are gathered (SMALL_PIECE_BYTES), how much of it they fill, and the next block's size. */
  #gather: Buffer | undefined;
  #gathered = 0;
  #gatherSize = FIRST_GATHER_BYTES;
  #smallPieces = 0;
  #informational = 0;
  readonly #maxBytes: number;
  readonly #tooLarge: () => Error;
  readonly #tooManyPieces: () => Error;
  readonly #tooManyInformational: () => Error;

  constructor(maxBytes: number, tooLarge: () => Error, tooManyPieces: () => Error = tooLarge, tooManyInformational: () => Error = tooManyPieces) {
    this.#maxBytes = maxBytes;
    this.#tooLarge = tooLarge;
    this.#tooManyPieces = tooManyPieces;
    this.#tooManyInformational = tooManyInformational;
    this.reply = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Whether the reply's head arrived: a failure from then on is the body's, and the request reached the router. */
  get answered(): boolean {
    return this.#answered;
  }

  /** Bytes of the reply held so far: a failed exchange holds none. */
  get heldBytes(): number {
    let bytes = this.#gathered;
    for (const part of this.#parts) bytes += part.length;
    return bytes;
  }

  /** Fails the exchange with `reason` now, and aborts it in undici; nothing once it has settled. */
  stop(reason: unknown): void {
    // A finished exchange's connection is the next one's: an abort now could only break that.
    if (this.#settled) return;
    this.#fail(reason);
    this.#abortReason = reason instanceof Error ? reason : STOPPED;
    this.#controller?.abort(this.#abortReason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Undici may start a request more than once (a pipeline's head that failed): the latest controller is the one.
    this.#controller = controller;
    if (this.#settled) controller.abort(this.#abortReason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (this.#settled) return;
    // An informational answer (102, 103) comes before the reply itself, as undici's `request` treats it.
    if (statusCode < 200) {
      if (++this.#informational > MAX_INFORMATIONAL_ANSWERS) this.#refuse(controller, this.#tooManyInformational());
      return;
    }
    this.#answered = true;
    this.#statusCode = statusCode;
    this.#headers = headers;
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#maxBytes) this.#refuse(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#length += chunk.length;
    if (this.#length > this.#maxBytes) {
      this.#refuse(controller);
      return;
    }
    if (chunk.length < MIN_PIECE_BYTES && ++this.#smallPieces > MAX_REPLY_PIECES) {
      this.#refuse(controller, this.#tooManyPieces());
      return;
    }
    if (chunk.length >= SMALL_PIECE_BYTES || (this.#gather === undefined && this.#parts.length < KEPT_PIECES)) {
      this.#flushGathered();
      // A piece is a view of the whole socket read it came in. A large one in a read much larger than itself (a
      // chunked reply padded with chunk extensions, which are no body and count against nothing) kept 4 times the
      // reply alive over TLS and 16 times over plain http (found by review): it is copied out at its size.
      this.#parts.push(chunk.length >= SMALL_PIECE_BYTES && chunk.buffer.byteLength > 2 * chunk.length ? keptBytes(chunk) : chunk);
      return;
    }
    if (this.#gather !== undefined && this.#gathered + chunk.length > this.#gather.length) this.#flushGathered();
    if (this.#gather === undefined) {
      this.#gather = Buffer.allocUnsafeSlow(this.#gatherSize);
      this.#gatherSize = Math.min(GATHER_BYTES, this.#gatherSize * 2);
    }
    chunk.copy(this.#gather, this.#gathered);
    this.#gathered += chunk.length;
  }

  /**
   * The small pieces gathered so far become one part, in order: the block itself when at least half full (it is
   * done with), else a copy at their size, the block kept for the next ones.
   */
  #flushGathered(): void {
    const gather = this.#gather;
    if (gather === undefined || this.#gathered === 0) return;
    if (this.#gathered * 2 >= gather.length) {
      this.#parts.push(gather.subarray(0, this.#gathered));
      this.#gather = undefined;
    } else {
      this.#parts.push(keptBytes(gather.subarray(0, this.#gathered)));
    }
    this.#gathered = 0;
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#flushGathered();
    this.#gather = undefined;
    this.#settled = true;
    // A settled exchange aborts nothing (stop), and undici's controller holds the reply's raw header bytes.
    this.#controller = undefined;
    this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, parts: this.#parts, length: this.#length });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#fail(error);
    // Undici is done with the exchange: nothing is left to abort.
    this.#controller = undefined;
  }

  /** A body longer than the cap: the exchange fails with the caller's error and undici drops the connection. */
  #refuse(controller: Dispatcher.DispatchController, error: Error = this.#tooLarge()): void {
    this.#fail(error);
    controller.abort(error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    // Undici keeps an aborted request, and so this handler, queued until a new connection is made to drop it
    // (as long as the router takes to accept one): the part of a body read so far must not wait with it.
    this.#parts = [];
    this.#gather = undefined;
    this.#gathered = 0;
    this.#headers = {};
    this.#reject(error);
  }
}
