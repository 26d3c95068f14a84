/**
 * Requests written byte for byte over a raw socket (net or tls), so no client library normalises the target,
 * the method or the headers; and what came back, up to the end of the response head.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

export interface RawAnswer {
  /** The first line of the answer ('' when the server closed without one). */
  statusLine: string;
  /** The status code, if the first line is a well-formed HTTP/1.x status line. */
  status: number | undefined;
  /** Everything received before the socket was let go. */
  text: string;
}

export interface RawOptions {
  port: number;
  /** Speak TLS (the certificate is not checked: these tests are about HTTP, not trust). */
  tls?: boolean;
  /** Source address on the loopback network (127.x.y.z), to act as another client. */
  localAddress?: string;
  /** Give up waiting after this (the answer is then what came so far). */
  timeoutMs?: number;
  /** Half-close the socket once the request is written (`nc -N`): the answer is still wanted. */
  halfClose?: boolean;
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3}) [^\r\n]*$/;

/** The last TLS session per port: resumed handshakes keep thousands of TLS requests cheap. */
const sessions = new Map<number, Buffer>();

/** Opens a socket (plain or TLS) that is connected (and handshaken) when the promise resolves. */
export function openSocket(options: RawOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const base = { port: options.port, host: '127.0.0.1', ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) };
    let socket: Socket;
    if (options.tls === true) {
      const session = sessions.get(options.port);
      const tls = connectTls({ ...base, rejectUnauthorized: false, ...(session === undefined ? {} : { session }) }, () => resolve(tls));
      tls.on('session', (ticket: Buffer) => sessions.set(options.port, ticket));
      socket = tls;
    } else {
      socket = connectTcp(base, () => resolve(socket));
    }
    socket.once('error', reject);
  });
}

/** Sends `request` and resolves with the answer's head (then closes), or what came when the server closed. */
/** The final (non-1xx) status line, once its head is complete. */
function finalHead(text: string): string | undefined {
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const line = rest.slice(0, rest.indexOf('\r\n'));
    if (!/^HTTP\/1\.[01] 1\d\d /.test(line)) return line;
    rest = rest.slice(end + 4);
  }
}

/** Sends `request` and resolves with the answer's head (then closes), or what came when the server closed. */
export async function rawRequest(request: string | Buffer, options: RawOptions): Promise<RawAnswer> {
  const socket = await openSocket(options);
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const statusLine = finalHead(text) ?? text.split('\r\n')[0] ?? '';
      const match = STATUS_LINE.exec(statusLine);
      resolve({ statusLine, status: match === null ? undefined : Number(match[1]), text });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 5000);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (finalHead(text) !== undefined) finish();
    });
    socket.once('close', finish);
    if (options.halfClose === true) socket.end(request);
    else socket.write(request);
  });
}
