/**
 * One exchange read whole through undici's handler interface: it settles once, with the whole reply or the first
 * failure (undici's, the cap's, or the caller's stop), and aborts undici's request only while it is under way.
 * As a property over the handler's events, and over a real connection to a server that writes raw HTTP.
 */
import { createServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Client, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyReader } from '../../src/routeros/exchange.js';
import { heapAfterCollection } from '../helpers/gc.js';

/** A controller that records the reasons it was aborted with. */
function controller(): Dispatcher.DispatchController & { reasons: Error[] } {
  return {
    reasons: [],
    aborted: false,
    paused: false,
    reason: null,
    abort(reason: Error) {
      this.reasons.push(reason);
    },
    pause() {},
    resume() {},
  };
}

type Outcome = { ok: true; statusCode: number; length: number; text: string } | { ok: false; error: unknown };

function outcomeOf(reader: ReplyReader): Promise<Outcome> {
  return reader.reply.then(
    (reply) => ({ ok: true as const, statusCode: reply.statusCode, length: reply.length, text: Buffer.concat(reply.parts).toString() }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('ReplyReader, event by event', () => {
  const event = fc.oneof(
    fc.record({ kind: fc.constant('info' as const), status: fc.integer({ min: 100, max: 199 }) }),
    fc.record({ kind: fc.constant('head' as const), status: fc.integer({ min: 200, max: 599 }), declared: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant('data' as const), size: fc.integer({ min: 0, max: 80 }) }),
    fc.record({ kind: fc.constant('end' as const) }),
    fc.record({ kind: fc.constant('error' as const) }),
    fc.record({ kind: fc.constant('stop' as const) }),
  );

  it('settles once, with the first of: the end, an error, the cap, a stop; aborts only an exchange under way', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(event, { maxLength: 10 }), fc.integer({ min: 0, max: 200 }), async (stoppedBeforeStart, events, cap) => {
        let tooLargeMade = 0;
        const reader = new ReplyReader(cap, () => {
          tooLargeMade++;
          return new RangeError('too large');
        });
        const outcome = outcomeOf(reader);
        const control = controller();
        const stopReason = new Error('stopped');
        // The model: what the first settling event makes of the exchange, and how often undici is told to abort.
        let expected: Outcome | undefined;
        let expectedAborts = 0;
        let head: number | undefined;
        let length = 0;
        let text = '';
        if (stoppedBeforeStart) {
          // Stopped while undici still connects: failed at once, aborted as undici starts it.
          reader.stop(stopReason);
          expected = { ok: false, error: 'stopped' };
          expectedAborts++;
        }
        reader.onRequestStart(control);
        for (const step of events) {
          const open = expected === undefined;
          if (step.kind === 'stop') {
            if (open) {
              expected = { ok: false, error: 'stopped' };
              expectedAborts++;
            }
            reader.stop(stopReason);
          } else if (step.kind === 'info') {
            reader.onResponseStart(control, step.status, {});
          } else if (step.kind === 'head') {
            if (open) {
              head = step.status;
              if (step.declared !== undefined && step.declared > cap) {
                expected = { ok: false, error: 'too large' };
                expectedAborts++;
              }
            }
            reader.onResponseStart(control, step.status, step.declared === undefined ? {} : { 'content-length': String(step.declared) });
          } else if (step.kind === 'data') {
            if (open) {
              length += step.size;
              text += 'a'.repeat(step.size);
              if (length > cap) {
                expected = { ok: false, error: 'too large' };
                expectedAborts++;
              }
            }
            reader.onResponseData(control, Buffer.alloc(step.size, 0x61));
          } else if (step.kind === 'end') {
            if (open) expected = { ok: true, statusCode: head ?? 0, length, text };
            reader.onResponseEnd();
          } else {
            if (open) expected = { ok: false, error: 'reset' };
            reader.onResponseError(control, Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
          }
        }
        if (expected === undefined) {
          reader.stop(stopReason);
          expected = { ok: false, error: 'stopped' };
          expectedAborts++;
        }
        const result = await outcome;
        if (expected.ok) {
          expect(result).toEqual(expected);
        } else {
          expect(result.ok).toBe(false);
          const error = (result as { error: unknown }).error;
          expect(typeof error === 'string' ? error : (error as Error).message).toBe(expected.error);
        }
        expect(tooLargeMade).toBe(!expected.ok && expected.error === 'too large' ? 1 : 0);
        expect(control.reasons).toHaveLength(expectedAborts);
        // Undici is told why: the stop's own reason, or the cap's error.
        for (const reason of control.reasons) expect(reason === stopReason || reason.message === 'too large').toBe(true);
        expect(reader.answered).toBe(head !== undefined);
        // A failed exchange lets go of the part of the body it had read.
        expect(reader.heldBytes).toBe(expected.ok ? expected.length : 0);
      }),
      { numRuns: 2000 },
    );
  });

  it("lets go of undici's controller once the reply is whole (it holds the reply's raw header bytes)", async () => {
    // Kept until the run that read the reply was done with it, ~8.7 MB of replies' raw header bytes a cycle at
    // 2,000 routers outlived two young-generation collections and were moved to the old generation (4.5 MB after).
    const reader = new ReplyReader(1024, () => new Error('too large'));
    const held = new WeakRef(startedWith(reader));
    reader.onResponseStart(controller(), 200, {});
    reader.onResponseData(controller(), Buffer.from('[]'));
    reader.onResponseEnd();
    expect((await reader.reply).statusCode).toBe(200);
    // A WeakRef keeps its target until the task that made it is over.
    await new Promise((resolve) => setImmediate(resolve));
    heapAfterCollection();
    expect(held.deref()).toBeUndefined();
    // The reader itself is still alive: what it holds, not what it is, is under test.
    expect(reader.answered).toBe(true);
  });
});

/** Starts the exchange with a controller holding raw header bytes, as undici's does; returns that controller. */
function startedWith(reader: ReplyReader): object {
  const started = Object.assign(controller(), { rawHeaders: [Buffer.alloc(64 * 1024)] });
  reader.onRequestStart(started);
  return started;
}

describe('ReplyReader over a real connection', () => {
  let server: Server;
  let origin: string;
  /** Request paths the server read, and those whose connection it saw close. */
  const requested: string[] = [];
  const closed: string[] = [];
  const ANSWERS: Record<string, (socket: Socket) => void> = {
    '/early': (socket) =>
      socket.write('HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]'),
    '/cut': (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789'),
    '/declared-large': (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n'),
    '/chunked-large': (socket) => socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n${'x'.repeat(64)}\r\n40\r\n${'x'.repeat(64)}\r\n`),
    '/drip': (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123'),
    '/silent': () => undefined,
    '/until-close': (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[1,2]'),
  };
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      let path = '';
      socket.on('data', (bytes) => {
        path = /^GET (\S+)/.exec(bytes.toString('latin1'))?.[1] ?? '';
        requested.push(path);
        ANSWERS[path]?.(socket);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => closed.push(path));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** One exchange with a 100-byte cap, on `client` or on a client of its own. */
  function exchange(path: string, client = new Client(origin)): { reader: ReplyReader; client: Client; outcome: Promise<Outcome> } {
    const reader = new ReplyReader(100, () => new RangeError('too large'));
    client.dispatch({ method: 'GET', path }, reader);
    return { reader, client, outcome: outcomeOf(reader) };
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Resolves once the server has seen the connection of `path` close. */
  function closedBy(path: string): Promise<void> {
    return until(() => closed.includes(path));
  }

  it('reads past an informational answer to the reply itself', async () => {
    const { reader, client, outcome } = exchange('/early');
    await expect(outcome).resolves.toEqual({ ok: true, statusCode: 200, length: 2, text: '[]' });
    expect(reader.answered).toBe(true);
    await client.close();
  });

  it("fails a body cut short with undici's error, as the body's failure", async () => {
    const { reader, client, outcome } = exchange('/cut');
    const result = await outcome;
    expect(result.ok).toBe(false);
    expect((result as { error: Error }).error).toBeInstanceOf(Error);
    expect(reader.answered).toBe(true);
    await client.destroy();
  });

  it('refuses a body declared or read beyond the cap, and drops the connection it came on', async () => {
    for (const path of ['/declared-large', '/chunked-large']) {
      const { client, outcome } = exchange(path);
      const result = await outcome;
      expect(result.ok).toBe(false);
      expect((result as { error: Error }).error.message).toBe('too large');
      await closedBy(path);
      await client.destroy();
    }
  });

  it('fails at once when stopped, before the head or within the body, and drops the connection', async () => {
    for (const [path, answered] of [
      ['/silent', false],
      ['/drip', true],
    ] as const) {
      const { reader, client, outcome } = exchange(path);
      // Once the server has read the request, and the head it sends (with a few bytes of body) has arrived.
      await until(() => requested.includes(path) && reader.answered === answered);
      reader.stop('stopped by the caller');
      await expect(outcome).resolves.toEqual({ ok: false, error: 'stopped by the caller' });
      expect(reader.answered).toBe(answered);
      // Undici keeps an aborted request queued until it reconnects: what the body brought must not wait with it.
      expect(reader.heldBytes).toBe(0);
      await closedBy(path);
      await client.destroy();
    }
  });

  it('reads a body that ends as the server closes the connection', async () => {
    const { client, outcome } = exchange('/until-close');
    await expect(outcome).resolves.toEqual({ ok: true, statusCode: 200, length: 5, text: '[1,2]' });
    await client.destroy();
  });

  it('leaves the connection of an exchange stopped after it settled to the next exchange', async () => {
    const client = new Client(origin);
    const before = connections;
    for (let round = 0; round < 2; round++) {
      const { reader, outcome } = exchange('/early', client);
      await expect(outcome).resolves.toMatchObject({ ok: true, statusCode: 200 });
      reader.stop(new Error('a timeout that fired as the reply came'));
    }
    expect(connections - before).toBe(1);
    await client.close();
  });

  it('fails at once when stopped while the connection is still being made, and aborts the request once it starts', async () => {
    let finishConnect: (() => void) | undefined;
    const client = new Client(origin, {
      connect: (options, callback) => {
        // The connect hangs until the test lets it through (a router that accepts TCP and stalls TLS).
        finishConnect = () => {
          const socket = new Socket();
          socket.connect(Number(new URL(origin).port), '127.0.0.1', () => callback(null, socket));
        };
      },
    });
    const before = requested.length;
    const { reader, outcome } = exchange('/early', client);
    await until(() => finishConnect !== undefined);
    reader.stop('stopped by the caller');
    await expect(outcome).resolves.toEqual({ ok: false, error: 'stopped by the caller' });
    expect(reader.answered).toBe(false);
    finishConnect?.();
    // Once connected, undici starts the request and the reader aborts it: nothing is sent.
    await client.close();
    expect(requested.length).toBe(before);
  });
});
