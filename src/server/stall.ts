/**
 * Cuts a response whose client stopped reading: when bytes wait to be sent and none has reached the kernel for
 * `stallMs`, the connection is destroyed, so a reader that never reads holds its socket, its scrape slot and
 * the body it pins for seconds, not for the whole response deadline. Readers that are merely slow keep going
 * as long as each write (respond.ts: one 64 KiB slice, or a batch of up to 1 MiB while the reader kept up) gets
 * out within `stallMs`.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Bytes the socket has handed to the kernel: dispatched or buffered (bytesWritten) minus those not yet done. */
function sent(socket: Socket): number {
  return (socket.bytesWritten ?? 0) - socket.writableLength;
}

export function watchStall(res: ServerResponse, stallMs: number): void {
  const socket = res.socket;
  if (socket === null) {
    // A pipelined request's response waits for those ahead of it on the connection: Node hands it the socket
    // (and says so) when its turn comes, and the watch starts then.
    res.once('socket', () => {
      if (res.socket !== null) watchStall(res, stallMs);
    });
    return;
  }
  let last = sent(socket);
  let since = performance.now();
  // Checked a few times per stallMs: a cut comes between stallMs and 1.25 × stallMs after the last progress.
  const timer = setInterval(() => {
    const now = sent(socket);
    if (now !== last || socket.writableLength === 0) {
      last = now;
      since = performance.now();
      return;
    }
    if (performance.now() - since >= stallMs) {
      clearInterval(timer);
      socket.destroy();
    }
  }, Math.max(10, stallMs / 4));
  timer.unref();
  res.once('close', () => clearInterval(timer));
}
