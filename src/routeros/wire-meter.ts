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

/** The code of the error a connection is closed with when what came in runs past a bound. */
export const WIRE_OVERRUN_CODE = 'ROS_WIRE_OVERRUN';

/** What ran past its bound: the bytes of one reply, its reads (TLS records, TCP reads), or the TLS session tickets. */
export type Overrun = 'bytes' | 'reads' | 'tickets';

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
 * The most reads one reply may come in while they average under MIN_READ_BYTES: a read is a TLS record (or a TCP
 * read over plain http) and costs its handling whatever it holds. The same rule as the reply reader's pieces: a
 * real reply comes in records of up to 16 KiB, and reads of 64 bytes or more on average are never refused.
 */
export const MAX_SMALL_READS = 65_536;
const MIN_READ_BYTES = 64;

/**
 * The most TLS session tickets one connection may hand over: each costs ~12 µs (Node serialises the session), and a
 * flood of them on a kept connection, counted by nothing else, cost 2.1 s of CPU in a 5 s read (found by review).
 * A server sends one or two after a handshake.
 */
export const MAX_SESSION_TICKETS = 16;

type Push = Socket['push'];

/**
 * Closes `socket` with a WireOverrunError once what came in since the last request went out on it runs past
 * `limitBytes`, or past MAX_SMALL_READS reads averaging under MIN_READ_BYTES: a connection carries one exchange at a
 * time (the exporter does not pipeline), and a reply never comes before its request, so what came in since the
 * socket last wrote is the current reply. Counted where each read enters the socket (`push`: once per TLS record or
 * TCP read, before any parse), so a byte read again after the HTTP client put it back is not counted twice.
 */
export function meterReplies(socket: Socket, limitBytes: number): void {
  const push: Push = socket.push;
  let written = -1;
  let bytes = 0;
  let reads = 0;
  const metered: Push = function (this: Socket, chunk, encoding) {
    if (chunk !== null && chunk !== undefined && !socket.destroyed) {
      const sent = socket.bytesWritten;
      if (sent !== written) {
        written = sent;
        bytes = 0;
        reads = 0;
      }
      bytes += (chunk as { length: number }).length;
      reads++;
      if (bytes > limitBytes) {
        socket.destroy(new WireOverrunError('bytes', limitBytes));
        return false;
      }
      if (reads > MAX_SMALL_READS && reads * MIN_READ_BYTES > bytes) {
        socket.destroy(new WireOverrunError('reads', MAX_SMALL_READS));
        return false;
      }
    }
    return push.call(this, chunk, encoding);
  };
  socket.push = metered;
}

/**
 * Hands each TLS session ticket the socket receives to `keep`, up to MAX_SESSION_TICKETS on the connection; past
 * them it closes the socket with a WireOverrunError.
 */
export function meterSessionTickets(socket: Socket, keep: (session: Buffer) => void): void {
  let tickets = 0;
  socket.on('session', (session: Buffer) => {
    if (++tickets > MAX_SESSION_TICKETS) socket.destroy(new WireOverrunError('tickets', MAX_SESSION_TICKETS));
    else keep(session);
  });
}
