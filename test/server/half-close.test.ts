/**
 * A client that half-closes its side once its request is sent (`nc -N`, a script that shuts its socket's write
 * side) still wants the answer (RFC 9112 §9.6: a half-closed connection does not delimit a request, nor say the
 * answer is unwanted). Node's default ended the connection at that FIN, so every answer not written in the same
 * task as the request was lost: all of them behind Basic authentication (bcrypt runs on a worker), gzip on the
 * thread pool, /health judged in slices. Every route, plain and over TLS, with and without Basic authentication.
 * Over TLS only once the handshake is done: a client that half-closes before is let go at once.
 */
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, startServer } from '../../src/server/listen.js';
import { sendParts, sendText, whileConnected } from '../../src/server/respond.js';
import { ROUTE_RULES } from '../../src/server/routes.js';
import type { Steps } from '../../src/util/slices.js';
import { startExporter, WEB_AUTH, type Exporter } from './exporter.js';
import { openSocket, rawRequest } from './raw-client.js';

/** Sends the request, half-closes, and resolves with everything read once the server has closed. */
async function halfClosed(request: string, port: number, tls: boolean): Promise<Buffer> {
  const socket = await openSocket({ port, tls });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.end(request);
  });
}

/** The status and whether the body is whole by its framing (Content-Length, or chunked to its last chunk). */
function framing(answer: Buffer): { status: number | undefined; whole: boolean } {
  const headEnd = answer.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: undefined, whole: false };
  const head = answer.subarray(0, headEnd).toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? Number.NaN);
  const body = answer.subarray(headEnd + 4);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length !== null) return { status, whole: body.length === Number(length[1]) };
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return { status, whole: body.toString('latin1').endsWith('0\r\n\r\n') };
  return { status, whole: true };
}

/** Each route with a method it takes, and a query where it needs one to do its work. */
const TARGETS = Object.entries(ROUTE_RULES).map(([path, rule]) => ({
  method: rule.methods[0] ?? 'GET',
  target: path === '/probe' ? '/probe?target=hq' : path,
}));

for (const tls of [false, true]) {
  for (const basicAuth of [false, true]) {
    describe(`a client that half-closes after its request (${tls ? 'HTTPS' : 'HTTP'}, ${basicAuth ? 'Basic authentication' : 'open'})`, () => {
      let exporter: Exporter;
      beforeAll(async () => {
        // 400 routers make /health's JSON large enough to be gzipped on the thread pool.
        exporter = await startExporter({ basicAuth, tls, enableLifecycle: true, routers: 400 });
      });
      afterAll(async () => exporter.close());
      const auth = basicAuth ? `Authorization: ${WEB_AUTH}\r\n` : '';

      it.each(TARGETS)('gets the whole answer of $method $target, then the connection ends', async ({ method, target }) => {
        const request = `${method} ${target} HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 0\r\n\r\n`;
        const expected = (await rawRequest(request, { port: exporter.port, tls })).status;
        expect(expected).toBeGreaterThanOrEqual(200);
        const answer = framing(await halfClosed(request, exporter.port, tls));
        expect(answer).toEqual({ status: expected, whole: true });
      });

      it('gets /health gzip-compressed on the thread pool', async () => {
        const request = `GET /health HTTP/1.1\r\nHost: x\r\n${auth}Accept-Encoding: gzip\r\n\r\n`;
        const answer = await halfClosed(request, exporter.port, tls);
        expect(answer.toString('latin1')).toMatch(/\r\ncontent-encoding: gzip\r\n/i);
        expect(framing(answer)).toEqual({ status: 503, whole: true });
      });
    });
  }
}

describe('a client that half-closes before its TLS handshake is done', () => {
  it('is let go at once, not held until the handshake timeout (found by review of the half-open change)', async () => {
    const handshakeTimeoutMs = 5000;
    const exporter = await startExporter({ tls: true, limits: { handshakeTimeoutMs } });
    try {
      // Nothing at all, then the first bytes of a ClientHello record.
      for (const first of ['', '\x16\x03\x01\x00\x05\x01']) {
        const started = performance.now();
        await new Promise<void>((resolve) => {
          const socket = connect(exporter.port, '127.0.0.1', () => socket.end(first, 'latin1'));
          socket.on('error', () => undefined);
          socket.resume();
          socket.once('close', () => resolve());
        });
        expect(performance.now() - started).toBeLessThan(handshakeTimeoutMs / 2);
      }
    } finally {
      await exporter.close();
    }
  });
});

describe('work in slices for a client on the real server (whileConnected)', () => {
  function* endless(): Steps<string> {
    for (;;) yield;
  }

  it('stops at its next pause once the connection is reset, and sends nothing', async () => {
    let settled: (value: string | undefined) => void = () => undefined;
    const outcome = new Promise<string | undefined>((resolve) => (settled = resolve));
    let started: () => void = () => undefined;
    const working = new Promise<void>((resolve) => (started = resolve));
    const server = await startServer(
      {
        handle: (_req, res) => {
          started();
          void whileConnected(res, endless()).then(settled);
        },
      },
      '127.0.0.1:0',
    );
    try {
      const port = (server.address() as { port: number }).port;
      const socket = await openSocket({ port });
      socket.on('error', () => undefined);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      await working;
      socket.resetAndDestroy();
      // Endless work ends only when the connection's close stops it.
      expect(await outcome).toBeUndefined();
    } finally {
      await closeServer(server, 500);
    }
  });
});

describe('the head of an answer written after the client half-closed', () => {
  /** The head of the answer of a server that answers once the client's FIN came, or at once without one. */
  async function headOf(answer: (res: ServerResponse) => void, halfClose: boolean): Promise<string> {
    const server = await startServer(
      {
        handle: (req, res) => {
          if (halfClose) req.socket.once('end', () => answer(res));
          else answer(res);
        },
      },
      '127.0.0.1:0',
    );
    try {
      const port = (server.address() as { port: number }).port;
      const request = 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n';
      const text = halfClose ? (await halfClosed(request, port, false)).toString('latin1') : (await rawRequest(request, { port })).text;
      return text.slice(0, text.indexOf('\r\n\r\n') + 2).toLowerCase();
    } finally {
      await closeServer(server, 500);
    }
  }

  const answers: [string, (res: ServerResponse) => void][] = [
    ['sendText', (res) => sendText(res, 200, 'ok\n')],
    ['sendParts', (res) => void sendParts(res, 200, { 'content-type': 'text/plain' }, [Buffer.from('ok\n')])],
  ];

  it('pipelined requests then a FIN: every one answered, only the last answer says Connection: close (found by review)', async () => {
    // Behind Basic authentication the answers wait for bcrypt's worker, so the FIN has come before their heads.
    const exporter = await startExporter({ basicAuth: true });
    try {
      const one = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WEB_AUTH}\r\n\r\n`;
      const text = (await halfClosed(one('/-/healthy') + one('/-/ready') + one('/-/healthy'), exporter.port, false)).toString('latin1');
      expect(text.match(/^HTTP\/1\.1 \d{3} /gm)).toHaveLength(3);
      expect(text.match(/^connection: [a-z-]+/gim)?.map((line) => line.toLowerCase())).toEqual([
        'connection: keep-alive',
        'connection: keep-alive',
        'connection: close',
      ]);
    } finally {
      await exporter.close();
    }
  });

  it.each(answers)('%s says Connection: close, the connection being about to end (before: keep-alive)', async (_name, answer) => {
    expect(await headOf(answer, true)).toContain('\r\nconnection: close\r\n');
    // Without the FIN, the connection is kept as before.
    expect(await headOf(answer, false)).toContain('\r\nconnection: keep-alive\r\n');
  });
});
