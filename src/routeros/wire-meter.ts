/**
 * A bound on the bytes one reply may take on the wire, whatever they frame. The reply reader counts body bytes
 * and pieces (exchange.ts), but a router, or what answers in its place, can send bytes that are no body and that
 * undici counts against nothing: an endless chunk extension (`1;aaaa…`), a chunk size padded with endless zeros,
 * or informational answers (`102 Processing`) one after another. Each kept the exchange reading at full speed
 * until the router's timeout: 3.4–4.7 s of CPU in a 5 s timeout, most of a core per hostile router for as long
 * as it answers that way (found by review).
 */
import type { Socket } from 'node:net';

/** The code of the error a connection is closed with when a reply runs past its bound. */
export const WIRE_OVERRUN_CODE = 'ROS_WIRE_OVERRUN';

/** A reply's bytes on the wire ran past what any reply within the cap can take. */
export class WireOverrunError extends Error {
  readonly code = WIRE_OVERRUN_CODE;
  constructor(readonly limitBytes: number) {
    super(`a reply took more than ${limitBytes} bytes on the wire`);
  }
}

/**
 * Room for what frames a reply besides its body: its head (undici refuses one over 16 KiB) and a chunked body's
 * framing, which for chunks of 64 bytes or more on average (smaller ones are refused by count) is at most ~10 %.
 */
const FRAMING_BYTES = 1024 * 1024;

/** The most bytes one reply may take on the wire, for replies of at most `maxBodyBytes` of body. */
export function wireLimitFor(maxBodyBytes: number): number {
  return 2 * maxBodyBytes + FRAMING_BYTES;
}

/**
 * Closes `socket` with a WireOverrunError once more than `limitBytes` came in since the last request went out on
 * it: a connection carries one exchange at a time (the exporter does not pipeline), and a reply never comes
 * before its request, so what came in since the socket last wrote is the current reply. Attached after the HTTP
 * client has taken the socket: a `data` listener beside its `readable` one only sees what it reads, while one
 * attached before would set the socket flowing and could take bytes from it.
 */
export function meterReplies(socket: Socket, limitBytes: number): void {
  setImmediate(() => {
    if (socket.destroyed) return;
    let written = -1;
    let since = 0;
    socket.on('data', (chunk: Buffer) => {
      const sent = socket.bytesWritten;
      if (sent !== written) {
        written = sent;
        since = 0;
      }
      since += chunk.length;
      if (since > limitBytes && !socket.destroyed) socket.destroy(new WireOverrunError(limitBytes));
    });
  });
}
