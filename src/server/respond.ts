/** Small response helpers shared by the routes. */
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import type { Logger } from 'pino';
import { acceptsGzip } from '../metrics/negotiate.js';
import { jsonSteps } from '../util/json-steps.js';
import { finishInSlices, type Steps } from '../util/slices.js';
import { loggedPath } from './target.js';

/**
 * Bodies are handed to the socket in slices of this size, and written in batches of slices: the socket shows
 * write progress batch by batch (the guard cuts a reader that makes none, guard.ts), and a large body is not
 * queued whole in one write that completes only when the last byte is out.
 */
const SLICE = 64 * 1024;
/**
 * A batch starts at one slice and doubles up to this while the kernel takes each batch whole at once (the reader
 * keeps up); one it cannot take whole is waited for, and the next batch is one slice again. At fleet shape
 * (13.5 MB plain) 64 KiB writes throughout made a loopback scrape 1.2 (Node 20) to 1.5 × (Node 24) a single
 * write of the same bytes; growing batches make it 1.0 ×. A reader that falls behind gets one-slice writes again
 * from the batch after the one it could not take.
 */
const LARGEST_BATCH = 1024 * 1024;
/** Smaller bodies are not worth compressing. */
const GZIP_MIN_BYTES = 1024;

/**
 * Writes the answer's head. Once a client has half-closed, its connection ends after the answer to its last
 * request (listen.ts): that answer's head says `Connection: close`, not the keep-alive Node would announce from
 * the request's head alone. Node marks that answer itself when the FIN comes (`_last`, the answer last in the
 * connection's queue; the same in Node 20 and 24, and a test fails should it change); answers to requests
 * pipelined before it keep the connection, or the requests after them would go unanswered (a test holds both).
 * A FIN that comes after the head was written changes nothing: the head was true when it was sent.
 */
export function writeHead(res: ServerResponse, status: number, headers: Record<string, string | number>): void {
  if ((res as ServerResponse & { _last?: boolean })._last === true) res.shouldKeepAlive = false;
  res.writeHead(status, headers);
}

export function sendText(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  const bytes = Buffer.from(body, 'utf8');
  writeHead(res, status, { 'content-type': contentType, 'content-length': bytes.length, 'cache-control': 'no-store' });
  res.end(bytes);
}

/** 503 with Retry-After: every scrape slot is taken (slots.ts). */
/** The most a Retry-After says: a day. A client waits no longer in earnest, and past it a figure is no promise. */
const LONGEST_RETRY_AFTER_SECONDS = 86_400;

/**
 * `seconds` as RFC 9110's delay-seconds: a whole number from 0, at most a day. A figure written as it came was
 * `3.6e+21` once (found by a hostile tester), which no client reads.
 */
export function retryAfterHeader(seconds: number): string {
  return String(Number.isFinite(seconds) ? Math.min(LONGEST_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil(seconds))) : LONGEST_RETRY_AFTER_SECONDS);
}

export function sendTooManyScrapes(res: ServerResponse): void {
  res.setHeader('retry-after', '1');
  sendText(res, 503, 'Too many scrapes at once; retry shortly.\n');
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendText(res, status, JSON.stringify(value, null, 2) + '\n', 'application/json; charset=utf-8');
}

/**
 * Work for a response in slices (util/slices.ts), so a large answer does not hold scrapes and collections up. It
 * stops at its next pause once the connection closes (a reset; a FIN alone may be a half-close, listen.ts):
 * undefined then, and nothing is to be sent. One request's work is one run of steps: two runs one after the
 * other would queue the second behind every other request's next slice (four /health requests at once answered
 * the first at 3.8 s instead of 1.1 s).
 */
export async function whileConnected<T>(res: ServerResponse, steps: Steps<T>): Promise<T | undefined> {
  if (res.destroyed) return undefined;
  const gone = new AbortController();
  const stop = (): void => gone.abort();
  res.once('close', stop);
  try {
    return await finishInSlices(steps, { signal: gone.signal });
  } catch (error) {
    // The client left: the work stopped at its pause. Any other error is the route's to report.
    if (gone.signal.aborted && error === gone.signal.reason) return undefined;
    throw error;
  } finally {
    res.off('close', stop);
  }
}

/** A JSON answer ready to send: its status and its UTF-8 text in pieces (jsonBodySteps). */
export interface JsonAnswer {
  status: number;
  body: Buffer[];
}

/** The value as the JSON text of an answer (two-space indented, a final newline), in steps. */
export function* jsonBodySteps(value: unknown): Steps<Buffer[]> {
  const text = yield* jsonSteps(value, 2);
  text.push(Buffer.from('\n', 'utf8'));
  return text;
}

/**
 * JSON, gzip-compressed when the client accepts it and the body is worth it (/health reaches tens of MB at
 * tens of thousands of peers). The text is written in slices, and compressed off the event loop.
 */
export async function sendJsonNegotiated(res: ServerResponse, status: number, value: unknown, acceptEncoding: string | undefined): Promise<void> {
  const body = await whileConnected(res, jsonBodySteps(value));
  if (body !== undefined) await sendJsonAnswer(res, { status, body }, acceptEncoding);
}

/** Sends an answer made in slices: plain, or gzip-compressed piece by piece on libuv's thread pool. */
export async function sendJsonAnswer(res: ServerResponse, answer: JsonAnswer, acceptEncoding: string | undefined): Promise<void> {
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'Accept-Encoding' };
  const length = answer.body.reduce((sum, piece) => sum + piece.length, 0);
  if (!acceptsGzip(acceptEncoding) || length < GZIP_MIN_BYTES) {
    await sendParts(res, answer.status, headers, answer.body);
    return;
  }
  // Piece by piece: one gzip of the joined body first copied 40 MB into one buffer in one task (~150 ms).
  const compressed = await gzipPieces(answer.body);
  if (res.destroyed) return;
  await sendParts(res, answer.status, { ...headers, 'content-encoding': 'gzip' }, compressed);
}

/** The pieces as one gzip stream, compressed on libuv's thread pool with backpressure; its output in pieces. */
async function gzipPieces(pieces: readonly Buffer[]): Promise<Buffer[]> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  // Awaited below; marked handled now, in case an error ends a wait for 'drain' first.
  ended.catch(() => undefined);
  for (const piece of pieces) {
    if (!gzip.write(piece)) await once(gzip, 'drain');
  }
  gzip.end();
  await ended;
  return out;
}

/** Resolves when the response drained or closed (a destroyed socket never drains). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes prepared buffers without copying them into one (they are large and already made), in batches with
 * backpressure (SLICE, LARGEST_BATCH): small parts are corked into one write, large ones sliced. Sets
 * content-length from the parts unless given.
 */
export async function sendParts(res: ServerResponse, status: number, headers: Record<string, string | number>, parts: readonly Buffer[]): Promise<void> {
  let length = 0;
  for (const part of parts) length += part.length;
  writeHead(res, status, { 'content-length': length, ...headers });
  let batch = SLICE;
  let batched = 0;
  res.cork();
  for (const part of parts) {
    for (let offset = 0; offset < part.length; offset += SLICE) {
      if (res.destroyed) return;
      const slice = offset === 0 && part.length <= SLICE ? part : part.subarray(offset, offset + SLICE);
      res.write(slice);
      batched += slice.length;
      if (batched < batch) continue;
      batched = 0;
      res.uncork();
      // Bytes still queued: the kernel did not take the batch whole (a batch is above the high-water mark, so
      // 'drain' follows once it has).
      if (res.writableLength > 0) {
        batch = SLICE;
        await drained(res);
      } else {
        batch = Math.min(batch * 2, LARGEST_BATCH);
      }
      res.cork();
    }
  }
  res.uncork();
  if (!res.destroyed) res.end();
}

/**
 * A route threw: one log line, then 500 if nothing was sent yet, else the connection goes (the client sees a
 * cut body, not a wrong one). Never throws.
 */
export function answerFailure(res: ServerResponse, logger: Logger, error: unknown, message: string): void {
  try {
    logger.error({ err: error, path: loggedPath(res.req) }, message);
    if (!res.headersSent && !res.destroyed) sendText(res, 500, 'Internal error.\n');
    else res.destroy();
  } catch {
    res.destroy();
  }
}
