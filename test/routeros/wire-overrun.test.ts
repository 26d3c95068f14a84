/**
 * Bytes on the wire that are no body: a chunk extension without end (`1;aaaa…`, `1;a="bbbb…`), a chunk size padded
 * with zeros without end, informational answers (`102 Processing`) one after another. undici counts none of them
 * against anything, and each kept an exchange reading at full speed until the router's timeout: 3.4–4.7 s of CPU in
 * a 5 s timeout, as `timeout` (found by review). Now such a reply is stopped as `parse` once it runs past its bound on
 * the wire (wire-meter.ts), or past 64 informational answers (exchange.ts); replies within the cap, however framed,
 * and a kept connection's later replies are read as before.
 */
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { selfSignedTls } from '../../src/emulator/tls.js';
import { RouterOsClient } from '../../src/routeros/client.js';
import { RouterOsError } from '../../src/routeros/errors.js';
import { MAX_INFORMATIONAL_ANSWERS } from '../../src/routeros/exchange.js';
import { EventEmitter } from 'node:events';
import { MAX_SESSION_TICKETS, MAX_SMALL_READS, meterReplies, rawBytesRead, WireOverrunError, wireLimitFor } from '../../src/routeros/wire-meter.js';
import { sharedSecureContext } from '../../src/routeros/connector.js';
import { Secret } from '../../src/util/secret.js';
import { Rng } from '../../src/emulator/util/rng.js';

const CAP = 64 * 1024;
const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';

/**
 * A router answering every request on a connection with `answer(n)` (the n-th request of that connection): a
 * head and body, then, when `endless` is given, that unit written without end while the client reads.
 */
async function router(options: { tls: boolean; answer: (n: number) => string; endless?: Buffer }) {
  const cert = options.tls ? await selfSignedTls() : undefined;
  let connections = 0;
  const serve = (socket: Socket): void => {
    connections++;
    socket.on('error', () => undefined);
    let pending = '';
    let served = 0;
    socket.on('data', (data: Buffer) => {
      pending += data.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
        socket.write(options.answer(served++), 'latin1');
        const unit = options.endless;
        if (unit !== undefined) {
          const pump = (): void => {
            while (!socket.destroyed && socket.write(unit));
          };
          socket.on('drain', pump);
          pump();
        }
      }
    });
  };
  const server = cert === undefined ? createTcpServer(serve) : createTlsServer({ cert: cert.cert, key: cert.key }, (socket: TLSSocket) => serve(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const client = new RouterOsClient({
    url: `${cert === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    username: 'u',
    password: new Secret('p4ssword'),
    // Long: a reply stopped for its bytes ends long before; one that ran to its timeout would read `timeout`.
    timeoutMs: 30_000,
    maxResponseBytes: CAP,
    ...(cert === undefined ? {} : { tls: { ca: cert.cert } }),
  });
  return {
    client,
    connections: (): number => connections,
    close: async (): Promise<void> => {
      await client.close();
      server.close();
    },
  };
}

/** Framing without end after a head: what follows `head`, written again and again. */
const ENDLESS_FORMS: readonly { name: string; head: string; unit: (size: number, next: () => number) => Buffer }[] = [
  { name: 'a chunk extension name', head: `${HEAD}1;`, unit: (size) => Buffer.alloc(size, 'a') },
  { name: 'a quoted chunk extension value', head: `${HEAD}1;a="`, unit: (size) => Buffer.alloc(size, 'b') },
  { name: 'a chunk size padded with zeros', head: HEAD, unit: (size) => Buffer.alloc(size, '0') },
  {
    name: 'chunk extensions after a part of the body',
    head: `${HEAD}2\r\n[{\r\n1;`,
    unit: (size, next) => Buffer.from(Array.from({ length: size }, () => 'abcdefgh'[Math.floor(next() * 8)]).join('')),
  },
];

describe('a reply whose bytes on the wire run on without end', () => {
  it('is stopped as parse, for every form, over TLS and plain http, well within the timeout', async () => {
    const rng = new Rng(0x5eed);
    const next = (): number => rng.next();
    for (let round = 0; round < 12; round++) {
      const form = ENDLESS_FORMS[round % ENDLESS_FORMS.length]!;
      const tls = round % 3 !== 2;
      const size = 1 + Math.floor(next() * 32 * 1024);
      const target = await router({ tls, answer: () => form.head, endless: form.unit(size, next) });
      try {
        const outcome = await target.client.list('ip/address').catch((error: unknown) => error);
        const context = `${form.name}, ${tls ? 'TLS' : 'plain http'}, units of ${size} bytes (round ${round})`;
        expect(outcome, context).toBeInstanceOf(RouterOsError);
        // `timeout` before: the exchange read at full speed for the whole 30 s.
        expect((outcome as RouterOsError).reason, context).toBe('parse');
        expect((outcome as RouterOsError).message, context).toContain(`past ${wireLimitFor(CAP)} bytes, far more than its body`);
      } finally {
        await target.close();
      }
    }
  }, 60_000);

  it('is stopped after 64 informational answers before any reply, and 64 of them before a reply are taken', async () => {
    const informational = 'HTTP/1.1 102 Processing\r\n\r\n';
    const endless = await router({ tls: true, answer: () => '', endless: Buffer.from(informational.repeat(100)) });
    try {
      const outcome = await endless.client.list('ip/address').catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(RouterOsError);
      expect((outcome as RouterOsError).reason).toBe('parse');
      expect((outcome as RouterOsError).message).toContain(`more than ${MAX_INFORMATIONAL_ANSWERS} informational answers`);
    } finally {
      await endless.close();
    }
    const reply = '[{"address":"10.0.0.1/24"}]';
    for (const count of [MAX_INFORMATIONAL_ANSWERS, MAX_INFORMATIONAL_ANSWERS + 1]) {
      const target = await router({
        tls: true,
        answer: () => `${informational.repeat(count)}HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${reply.length}\r\n\r\n${reply}`,
      });
      try {
        const outcome = await target.client.list('ip/address').catch((error: unknown) => error);
        if (count <= MAX_INFORMATIONAL_ANSWERS) expect(outcome).toEqual([{ address: '10.0.0.1/24' }]);
        else expect((outcome as RouterOsError).reason).toBe('parse');
      } finally {
        await target.close();
      }
    }
  }, 30_000);
});

describe('replies within the cap, framed with room to spare', () => {
  /** A body of about `bytes` as a JSON list, in chunks of `chunk` bytes, each chunk's size line carrying `extension`. */
  function framed(bytes: number, chunk: number, extension: string): { wire: string; records: number } {
    const records = Math.floor(bytes / 12);
    const body = '[' + Array.from({ length: records }, () => '{"a":"xyz"}').join(',') + ']';
    let wire = HEAD;
    for (let at = 0; at < body.length; at += chunk) {
      const piece = body.slice(at, at + chunk);
      wire += `${piece.length.toString(16)}${extension}\r\n${piece}\r\n`;
    }
    return { wire: `${wire}0\r\n\r\n`, records };
  }

  it('reads a reply near the cap in 64-byte chunks with extensions whole', async () => {
    const { wire, records } = framed(CAP - 1024, 64, ';name=value');
    const target = await router({ tls: true, answer: () => wire });
    try {
      expect(await target.client.list('ip/address')).toHaveLength(records);
    } finally {
      await target.close();
    }
  });

  it("gives each reply on a kept connection a bound of its own: five replies of most of it each are read whole", async () => {
    // Each reply takes ~85 % of the bound on the wire (its chunks carry long extensions): a bound counted over the
    // connection rather than per reply refused the second.
    const limit = wireLimitFor(CAP);
    const extension = ';' + 'e'.repeat(Math.floor((0.85 * limit) / (CAP / 2 / 64)));
    const { wire, records } = framed(CAP / 2, 64, extension);
    expect(wire.length).toBeGreaterThan(0.8 * limit);
    expect(wire.length).toBeLessThan(limit);
    const target = await router({ tls: true, answer: () => wire });
    try {
      for (let n = 0; n < 5; n++) expect(await target.client.list('ip/address')).toHaveLength(records);
      expect(target.connections()).toBe(1);
    } finally {
      await target.close();
    }
  }, 30_000);
});

/** A socket as the meter sees it: reads pushed in, requests written out, TLS bytes read beneath, how it was closed. */
function fakeSocket(tls: false | 'TLSv1.3' | 'TLSv1.2' = false) {
  const pushed: number[] = [];
  const socket = Object.assign(new EventEmitter(), {
    bytesWritten: 0,
    destroyed: false,
    closedWith: undefined as Error | undefined,
    _handle: tls === false ? null : { _parent: { bytesRead: 0 } },
    getProtocol: (): string | null => (tls === false ? null : tls),
    push(chunk: Buffer | null): boolean {
      if (chunk !== null) pushed.push(chunk.length);
      return true;
    },
    write(data: string): boolean {
      socket.bytesWritten += data.length;
      return true;
    },
    destroy(error?: Error): void {
      socket.destroyed = true;
      socket.closedWith = error;
      socket.emit('close');
    },
  });
  return { socket, pushed };
}

/**
 * A metered TLS socket given a request and then up to `most` records of `data` bytes, each with `beneath` more bytes
 * read under it (framing, key updates): the socket and how many records it took before it was closed, if it was.
 */
function streamRecords(protocol: 'TLSv1.3' | 'TLSv1.2', most: number, data: number, beneath: number) {
  const { socket } = fakeSocket(protocol);
  meterReplies(socket as never, 1 << 30);
  socket.write('GET /rest/x HTTP/1.1\r\n\r\n');
  let records = 0;
  while (!socket.destroyed && records < most) {
    socket._handle!._parent.bytesRead += data + beneath;
    socket.push(Buffer.alloc(data));
    records++;
  }
  return { socket, records };
}

describe('the meter, read by read', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops a reply past 65,536 reads under 64 bytes, whatever large ones come between, and takes any number of 64 or more', () => {
    // Counting bytes alone let 1.9 million one-byte records through in a 5 s timeout: 4.6 s of CPU; an average let
    // one 16 KiB record after every 250 one-byte ones through: 1.5 s (both found by review).
    const rng = new Rng(0x7e5d);
    for (let round = 0; round < 21; round++) {
      const { socket, pushed } = fakeSocket();
      meterReplies(socket as never, 1 << 30);
      socket.bytesWritten = 100;
      const shape = (['small', 'mixed', 'large'] as const)[round % 3];
      let total = 0;
      let small = 0;
      for (let read = 1; read <= 3 * MAX_SMALL_READS && !socket.destroyed; read++) {
        const size =
          shape === 'small' ? 1 + Math.floor(rng.next() * 63) : shape === 'mixed' ? (read % 251 === 0 ? 16_384 : 1) : 64 + Math.floor(rng.next() * 64);
        if (size < 64) small++;
        total += size;
        socket.push(Buffer.alloc(size));
      }
      if (shape === 'large') {
        expect(socket.closedWith, `round ${round}`).toBeUndefined();
        expect(pushed.reduce((sum, size) => sum + size, 0)).toBe(total);
      } else {
        expect(socket.closedWith, `round ${round}, ${shape}`).toBeInstanceOf(WireOverrunError);
        expect((socket.closedWith as WireOverrunError).overrun).toBe('reads');
        // Stopped at its bound, the read that passed it not handed on.
        expect(small).toBe(MAX_SMALL_READS + 1);
        expect(pushed.length).toBe(shape === 'small' ? MAX_SMALL_READS : MAX_SMALL_READS + Math.floor(pushed.length / 251));
      }
    }
  });

  it('counts each reply from its request: a kept connection carries any number of replies of most of the bound each', () => {
    const { socket } = fakeSocket();
    meterReplies(socket as never, 10_000);
    for (let reply = 0; reply < 50; reply++) {
      socket.bytesWritten += 120;
      for (let read = 0; read < 9; read++) socket.push(Buffer.alloc(1_000));
    }
    expect(socket.closedWith).toBeUndefined();
    socket.bytesWritten += 120;
    for (let read = 0; read < 11; read++) socket.push(Buffer.alloc(1_000));
    expect((socket.closedWith as WireOverrunError).overrun).toBe('bytes');
  });

  it('hands over 16 session tickets a request and closes the connection at the 17th (a flood cost 2.1 s of CPU in a 5 s read)', () => {
    const { socket } = fakeSocket();
    const kept: Buffer[] = [];
    meterReplies(socket as never, 1 << 20, (session) => kept.push(session));
    // A server that sends a ticket with every reply: a count over the connection's life failed one read in fifteen.
    for (let request = 0; request < 40; request++) {
      socket.bytesWritten += 100;
      socket.emit('session', Buffer.from([request]));
    }
    expect(kept).toHaveLength(40);
    socket.bytesWritten += 100;
    for (let ticket = 0; ticket < MAX_SESSION_TICKETS; ticket++) socket.emit('session', Buffer.from([ticket]));
    expect(socket.destroyed).toBe(false);
    socket.emit('session', Buffer.from([99]));
    expect(kept).toHaveLength(40 + MAX_SESSION_TICKETS);
    expect((socket.closedWith as WireOverrunError).overrun).toBe('tickets');
  });

  it('closes a TLS connection whose TLS messages without data (key updates) run past their bound, idle or during a read (found by review)', () => {
    vi.useFakeTimers();
    // Idle after its reply: key updates alone, no data; the connection is looked at every 250 ms.
    const idle = fakeSocket('TLSv1.3').socket;
    meterReplies(idle as never, 1 << 20);
    idle.bytesWritten = 100;
    idle._handle!._parent.bytesRead = 4_000;
    idle.push(Buffer.alloc(2_000));
    vi.advanceTimersByTime(250);
    expect(idle.destroyed).toBe(false);
    idle._handle!._parent.bytesRead += 200 * 1024;
    vi.advanceTimersByTime(250);
    expect(idle.destroyed).toBe(false);
    idle._handle!._parent.bytesRead += 100 * 1024;
    vi.advanceTimersByTime(250);
    expect((idle.closedWith as WireOverrunError | undefined)?.overrun).toBe('tls');
    // During a read: a record's framing and its data are allowed; key updates between records are not.
    const reading = fakeSocket('TLSv1.3').socket;
    meterReplies(reading as never, 1 << 30);
    reading.bytesWritten = 100;
    for (let record = 0; record < 2_000; record++) {
      reading._handle!._parent.bytesRead += 16_384 + 22;
      reading.push(Buffer.alloc(16_384));
    }
    expect(reading.destroyed).toBe(false);
    // Past 256 KiB beyond the framing the records are allowed (22 bytes and 1/64 of their data each).
    reading._handle!._parent.bytesRead += 300 * 1024 + 300 * 2_000;
    reading.push(Buffer.alloc(100));
    expect((reading.closedWith as WireOverrunError | undefined)?.overrun).toBe('tls');
    // Key updates riding along with data, 600 (16 KB) per 16 KiB record: an allowance of a byte per byte of data let
    // them through, 4.3 s of CPU in a 10 s read (found by review). Allowed per record, they are stopped within 20.
    const riding = streamRecords('TLSv1.3', 1_000, 16_384, 22 + 600 * 27);
    expect((riding.socket.closedWith as WireOverrunError | undefined)?.overrun).toBe('tls');
    expect(riding.records).toBeLessThan(20);
    // Three key updates with each 64-byte record: a flat 128 bytes a record let them through, 6.1 s of CPU in a 10 s
    // read (found by review). A small record brings a small allowance: stopped within 5,000 records.
    const small = streamRecords('TLSv1.3', 100_000, 64, 22 + 3 * 27);
    expect((small.socket.closedWith as WireOverrunError | undefined)?.overrun).toBe('tls');
    expect(small.records).toBeLessThan(5_000);
    // A valid reply in 40,000 records of 66 bytes, TLS 1.3 framing and nothing else: read whole.
    expect(streamRecords('TLSv1.3', 40_000, 66, 22).socket.destroyed).toBe(false);
    // TLS 1.2 has no key updates: a CBC suite's framing of small records (81 bytes on a 100-byte record with SHA-384)
    // is allowed whatever their number; 32 + 1/8 of the data refused 7,000 of them (found by review).
    expect(streamRecords('TLSv1.2', 28_000, 100, 81).socket.destroyed).toBe(false);
    // A flood before any data is counted from the request's going out, not from the first read after it.
    const early = fakeSocket('TLSv1.3').socket;
    meterReplies(early as never, 1 << 30);
    early.write('GET /rest/x HTTP/1.1\r\n\r\n');
    early._handle!._parent.bytesRead += 300 * 1024;
    early.push(Buffer.alloc(100));
    expect((early.closedWith as WireOverrunError | undefined)?.overrun).toBe('tls');
  });

  it("reads a real TLS connection's bytes beneath its data, on this Node.js (the private handle the TLS bound relies on)", async () => {
    const cert = await selfSignedTls();
    const server = createTlsServer({ cert: cert.cert, key: cert.key }, (socket: TLSSocket) => socket.end(Buffer.alloc(100_000, 1)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { connect } = await import('node:tls');
    const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', rejectUnauthorized: false });
    try {
      let data = 0;
      client.on('data', (chunk: Buffer) => (data += chunk.length));
      await new Promise<void>((resolve) => client.once('end', resolve));
      expect(data).toBe(100_000);
      // Records' framing and the handshake come on top of the data.
      expect(rawBytesRead(client)).toBeGreaterThan(100_000 + 1_000);
    } finally {
      client.destroy();
      server.close();
    }
  });
});

describe('a router that asks for renegotiation', () => {
  it('is refused: a server asking again and again made the exporter do a handshake each time (1.8 s of CPU per 5 s idle)', async () => {
    const cert = await selfSignedTls();
    let answered!: (outcome: string) => void;
    const outcome = new Promise<string>((resolve) => (answered = resolve));
    const server = createTlsServer({ cert: cert.cert, key: cert.key, maxVersion: 'TLSv1.2' }, (socket: TLSSocket) => {
      socket.on('error', (error: NodeJS.ErrnoException) => answered(`refused (${error.code ?? error.message})`));
      socket.once('data', () => socket.renegotiate({}, (error) => answered(error === null ? 'renegotiated' : `refused (${error.message})`)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { connect } = await import('node:tls');
    const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', secureContext: sharedSecureContext(cert.cert), servername: 'localhost', rejectUnauthorized: false });
    try {
      client.on('error', () => undefined);
      await new Promise<void>((resolve) => client.once('secureConnect', resolve));
      client.write('GET / HTTP/1.1\r\n\r\n');
      client.resume();
      expect(await outcome).toMatch(/^refused/);
    } finally {
      client.destroy();
      server.close();
    }
  });
});
