/**
 * A bound on what one reply may make the exporter read, whatever it frames. The reply reader counts body bytes and
 * pieces (exchange.ts), but a router, or what answers in its place, can send what undici counts against nothing:
 * an endless chunk extension (`1;aaaa…`), a chunk size padded with endless zeros, or an endless status line. Each
 * kept the exchange reading at full speed until the router's timeout: 3.4–4.7 s of CPU in a 5 s timeout, most of a
 * core per hostile router for as long as it answers that way (found by review). And the same bytes in TLS records
 * of one byte each cost ~2.5 µs a record, whatever they hold: counting bytes alone let 1.9 million records through
 * in 5 s, 4.6 s of CPU (found by review of the first version, which counted bytes).
 */
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** The code of the error a connection is closed with when what came in runs past a bound. */
export const WIRE_OVERRUN_CODE = 'ROS_WIRE_OVERRUN';

/**
 * What ran past its bound: the bytes of one reply, its small reads (TLS records, TCP reads), the TLS session
 * tickets, or TLS's own messages beyond the data (key updates).
 */
export type Overrun = 'bytes' | 'reads' | 'tickets' | 'tls';

/** What came in on a connection ran past what any reply within the cap takes. */
export class WireOverrunError extends Error {
  readonly code = WIRE_OVERRUN_CODE;
  constructor(
    readonly overrun: Overrun,
    readonly limit: number,
  ) {
    super(`more than ${limit} ${overrun} came in`);
  }
}

/**
 * Room for what frames a reply besides its body: its head (undici refuses one over 16 KiB) and a chunked body's
 * framing, which for chunks of 64 bytes or more on average (smaller ones are refused by count) is at most ~10 %.
 */
const FRAMING_BYTES = 1024 * 1024;

/** The most bytes one reply may make the exporter read, for replies of at most `maxBodyBytes` of body. */
export function wireLimitFor(maxBodyBytes: number): number {
  return 2 * maxBodyBytes + FRAMING_BYTES;
}

/**
 * The most reads under MIN_READ_BYTES one reply may come in: a read is a TLS record (or a TCP read over plain http)
 * and costs its handling whatever it holds. Counted apart from the large ones, not as an average: one 16 KiB record
 * after every 250 one-byte ones kept the average over 64 bytes while 538,000 records cost 1.5 s of CPU (found by
 * review). A real reply comes in records of up to 16 KiB; a few small ones (a head, a last chunk) are all it has.
 */
export const MAX_SMALL_READS = 65_536;
const MIN_READ_BYTES = 64;

/**
 * The most TLS session tickets one exchange (or an idle connection, between two) may hand over: each costs ~12 µs
 * (Node serialises the session), and a flood of them, counted by nothing else, cost 2.1 s of CPU in a 5 s read
 * (found by review). A server sends one or two after a handshake, some one with each reply: counted per exchange,
 * as a count over the connection's life failed one read in fifteen with such a server (found by review of that).
 */
export const MAX_SESSION_TICKETS = 16;

/**
 * The most bytes a TLS connection may take in beyond the data they carry, since its last request: TLS's own messages
 * (a key update, a ticket) carry none, and OpenSSL handles key updates without limit, ~10 µs each: a flood of them
 * cost 4.7 s of CPU in a 5 s read, and as much on an idle kept connection, which no request's timeout bounds (found
 * by review). Records' own framing is ~22 bytes each, a session ticket a few hundred, a handshake's certificates a few
 * KB: far under this, and more is allowed with the data's own size.
 */
const TLS_OVERHEAD_BYTES = 256 * 1024;
/**
 * What a record's framing may add to its data, by TLS version. Only TLS 1.3 has key updates, and its framing is the
 * same 22 bytes for every record (header, tag, content type), so a TLS 1.3 record is allowed that and 1/64 of its
 * data: key updates can ride along with data only that far, ~0.3 s of CPU a request at most. A server that pads its
 * records (OpenSSL's block padding; none seen by default, RouterOS not known to) has TLS_OVERHEAD_BYTES of padding a
 * request: ~640 records of 100 bytes padded to 512 (found by review). An allowance of a byte per byte of data let 600 ride with each 16 KiB record (4.3 s of CPU in a
 * 10 s read), a flat 128 a record 3 with each 64-byte record (6.1 s), and 32 + 1/8 of the data refused real TLS 1.2
 * replies whose small records a CBC suite frames with up to ~85 bytes (all found by review). TLS 1.2 has no key
 * updates (and the exporter refuses renegotiation), so its records are allowed what any suite may add.
 */
const TLS13_FRAMING_BYTES = 22;
const TLS12_FRAMING_BYTES = 128;

function framingAllowed(length: number, tls13: boolean): number {
  return tls13 ? TLS13_FRAMING_BYTES + (length >>> 6) : TLS12_FRAMING_BYTES;
}

/** Whether the socket speaks TLS 1.3 (undefined until its handshake has ended). */
function speaksTls13(socket: Socket): boolean | undefined {
  const protocol = (socket as { getProtocol?: () => string | null }).getProtocol?.();
  return protocol === null || protocol === undefined ? undefined : protocol === 'TLSv1.3';
}
/**
 * How often TLS connections are looked at for TLS messages that came while no data did: a flood runs at most this
 * long plus TLS_OVERHEAD_BYTES' worth (~0.1 s of CPU) before its connection is closed: at 500 ms an idle flood cost
 * 0.45–0.5 s of CPU, at 250 ms 0.3 s (measured by review). A look at a connection that read nothing since the last is
 * one counter read: with the whole check at each look, 2,000 connections cost 1–2 % of a core (measured by review),
 * near a tenth of the fleet's collection.
 */
const SWEEP_MS = 250;

type Push = Socket['push'];

/** What one connection took in since its last request (bytesWritten changing is a request going out). */
class Meter {
  written = -1;
  bytes = 0;
  /** The framing this exchange's reads are allowed (framingAllowed, summed). */
  framing = 0;
  /** The bytes read beneath the data when the sweep last looked. */
  rawAtSweep: number | undefined = undefined;
  /** Whether the connection speaks TLS 1.3, once its handshake has said. */
  tls13: boolean | undefined = undefined;
  smallReads = 0;
  tickets = 0;
  /** The TLS connection's bytes read from the network (rawBytesRead) when this exchange began. */
  rawAtStart = 0;
  /**
   * The TCP handle beneath a TLS connection, once found (handleBeneath): the sweep reads its count for every
   * connection four times a second. Looked up through the socket's objects each time, and with `destroyed` read
   * first, the sweep cost 0.30 s per 30 s cycle at 2,000 connections; 0.11 s as it is (CPU profiles; V8 inlines
   * both into the sweep, so a profile does not split them).
   */
  #beneath: CountingHandle | undefined;

  constructor(
    readonly socket: Socket,
    readonly limitBytes: number,
  ) {}

  /** rawBytesRead, through the handle found the first time. */
  raw(): number | undefined {
    return bytesReadBy((this.#beneath ??= handleBeneath(this.socket)));
  }

  /** Starts the count afresh when a request went out since it was last looked at. */
  sync(): void {
    const sent = this.socket.bytesWritten;
    if (sent === this.written) return;
    this.written = sent;
    this.bytes = 0;
    this.framing = 0;
    this.smallReads = 0;
    this.tickets = 0;
    this.rawAtStart = this.raw() ?? 0;
  }

  /** The bound what came in has run past, if any. */
  overrun(): WireOverrunError | undefined {
    if (this.bytes > this.limitBytes) return new WireOverrunError('bytes', this.limitBytes);
    if (this.smallReads > MAX_SMALL_READS) return new WireOverrunError('reads', MAX_SMALL_READS);
    if (this.tickets > MAX_SESSION_TICKETS) return new WireOverrunError('tickets', MAX_SESSION_TICKETS);
    const raw = this.raw();
    if (raw !== undefined && raw - this.rawAtStart - this.bytes > TLS_OVERHEAD_BYTES + this.framing) {
      return new WireOverrunError('tls', TLS_OVERHEAD_BYTES);
    }
    return undefined;
  }

  /** Closes the connection when a bound was run past; true when it did. */
  enforce(): boolean {
    const error = this.overrun();
    if (error === undefined) return false;
    this.socket.destroy(error);
    return true;
  }
}

/**
 * The bytes a TLS connection read from the network, its TLS messages and records' framing included: Node's TCP
 * handle under the TLS one (`_handle._parent`, present from Node 12 to 24; a test holds it). Undefined for a plain
 * TCP socket, whose reads are its data, and where Node has no such handle.
 */
export function rawBytesRead(socket: Socket): number | undefined {
  return bytesReadBy(handleBeneath(socket));
}

/** A stream handle's count of the bytes it read (Node's StreamBase). */
interface CountingHandle {
  bytesRead?: unknown;
}

/** The TCP handle beneath a TLS socket's own (rawBytesRead); the same one for the socket's life. */
function handleBeneath(socket: Socket): CountingHandle | undefined {
  return (socket as unknown as { _handle?: { _parent?: CountingHandle } | null })._handle?._parent;
}

/** A handle's count of the bytes it read, where it has one. */
function bytesReadBy(handle: CountingHandle | undefined): number | undefined {
  const raw = handle?.bytesRead;
  return typeof raw === 'number' ? raw : undefined;
}

/** TLS connections metered, looked at every SWEEP_MS while any is open. */
const meters = new Set<Meter>();
let sweeper: ReturnType<typeof setInterval> | undefined;

function sweep(): void {
  for (const meter of meters) {
    // Nothing read since the last look (a kept connection between cycles, the usual): nothing to count, and
    // nothing else read (a socket's `destroyed` is a getter through its stream state, paid on every look before).
    const raw = meter.raw();
    if (raw === meter.rawAtSweep) continue;
    meter.rawAtSweep = raw;
    if (meter.socket.destroyed) continue;
    meter.sync();
    meter.enforce();
  }
}

function watch(meter: Meter): void {
  meters.add(meter);
  meter.socket.once('close', () => {
    meters.delete(meter);
    if (meters.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  });
  if (sweeper === undefined) {
    sweeper = setInterval(sweep, SWEEP_MS);
    sweeper.unref();
  }
}

/** How many connections are metered (tests). */
export function meteredConnections(): number {
  return meters.size;
}

/**
 * Meters what comes in on `socket` from each request on: closes it with a WireOverrunError once that runs past
 * `limitBytes`, past MAX_SMALL_READS reads under MIN_READ_BYTES, past MAX_SESSION_TICKETS tickets, or, over TLS,
 * past TLS_OVERHEAD_BYTES of TLS's own messages beyond the data. A connection carries one exchange at a time (the
 * exporter does not pipeline), and a reply never comes before its request, so what came in since the socket last
 * wrote is the current reply. Data is counted where each read enters the socket (`push`: once per TLS record or TCP
 * read, before any parse; a byte read again after the HTTP client put it back is not counted twice); a TLS
 * connection's own messages, which push nothing, are looked at every SWEEP_MS as well. `keep` is handed each TLS
 * session ticket within the bound.
 */
export function meterReplies(socket: Socket, limitBytes: number, keep?: (session: Buffer) => void): void {
  const meter = new Meter(socket, limitBytes);
  const push: Push = socket.push;
  const metered: Push = function (this: Socket, chunk, encoding) {
    if (chunk !== null && chunk !== undefined && !socket.destroyed) {
      meter.sync();
      const length = (chunk as { length: number }).length;
      meter.bytes += length;
      meter.tls13 ??= speaksTls13(socket);
      meter.framing += framingAllowed(length, meter.tls13 === true);
      if (length < MIN_READ_BYTES) meter.smallReads++;
      if (meter.enforce()) return false;
    }
    return push.call(this, chunk, encoding);
  };
  socket.push = metered;
  // A request's count starts as it goes out, not at the first read after it: what came between (a flood before any
  // data) was forgiven at each request (found by review).
  const write = socket.write;
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>): boolean {
    const accepted = write.apply(this, args);
    meter.sync();
    return accepted;
  } as Socket['write'];
  if (keep !== undefined) {
    socket.on('session', (session: Buffer) => {
      meter.sync();
      meter.tickets++;
      if (!meter.enforce()) keep(session);
    });
  }
  // Over TLS only: a plain TCP socket's reads are its data, which push counts.
  if (rawBytesRead(socket) !== undefined || socket instanceof TLSSocket) watch(meter);
}
