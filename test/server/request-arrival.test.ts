/**
 * requestArrival on a real server: a body that does not arrive within the wait, and a request already gone when
 * it is asked (both found by review). The reload route's own cases are in lifecycle.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, startServer } from '../../src/server/listen.js';
import { requestArrival, type Arrival } from '../../src/server/request-arrival.js';
import { sendText } from '../../src/server/respond.js';
import { openSocket } from './raw-client.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A server whose every request is read by `read`, which answers with the arrival or just records it. */
async function serve(read: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = await startServer({ handle: read }, '127.0.0.1:0');
  close = () => closeServer(server, 500);
  return (server.address() as { port: number }).port;
}

describe('requestArrival', () => {
  it("is 'slow' when the body does not arrive within the wait, and the client hears it", async () => {
    const port = await serve((req, res) => {
      void requestArrival(req, res, { waitMs: 200 }).then((arrival) => sendText(res, 200, arrival));
    });
    // Half of the declared body, then nothing: the server's own timer ends the wait.
    expect(await rawBody('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcde', port)).toBe('slow');
    expect(await rawBody('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcdefghij', port)).toBe('whole');
  });

  it("settles as 'cut' when asked about a request already gone, rather than never", async () => {
    let received: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let settled: (arrival: Arrival) => void = () => undefined;
    const outcome = new Promise<Arrival>((resolve) => (settled = resolve));
    const port = await serve((req, res) => {
      req.once('close', () => void requestArrival(req, res).then(settled));
      received();
    });
    const socket = await openSocket({ port });
    socket.on('error', () => undefined);
    socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabcde');
    await arrived;
    socket.resetAndDestroy();
    expect(await outcome).toBe('cut');
  });
});

/** The body of the answer to `request`. */
async function rawBody(request: string, port: number): Promise<string> {
  const socket = await openSocket({ port });
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (head >= 0 && length !== null && text.length >= head + 4 + Number(length[1])) {
        socket.destroy();
        resolve(text.slice(head + 4));
      }
    });
    socket.write(request);
  });
}
