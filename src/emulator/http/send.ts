/**
 * Writes a reply, carrying out the transport faults: an oversized body or a flood of empty records streamed with
 * backpressure, a truncated body (fewer bytes than Content-Length, then the connection drops), a dripped body.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { sleep } from '../commands/types.js';
import type { ActiveFaults } from './faults.js';
import type { Outgoing } from './outgoing.js';

const CHUNK = 64 * 1024;

function head(res: ServerResponse, out: Outgoing, length: number): void {
  for (const [k, v] of Object.entries(out.headers ?? {})) res.setHeader(k, v);
  if (out.contentType !== undefined) res.setHeader('Content-Type', out.contentType);
  res.setHeader('Content-Length', String(length));
  res.writeHead(out.status);
}

async function write(res: ServerResponse, chunk: Buffer | string): Promise<void> {
  if (!res.write(chunk)) await once(res, 'drain');
}

/** At least `bytes` of valid JSON shaped like `text`: its rows (or one padded value) repeated. */
async function sendOversized(res: ServerResponse, out: Outgoing, bytes: number, signal: AbortSignal): Promise<void> {
  const text = out.body.toString('utf8');
  if (!text.startsWith('[')) {
    const prefix = '{"comment":"';
    const suffix = text === '{}' ? '"}' : `",${text.slice(1)}`;
    const padding = Math.max(0, bytes - prefix.length - suffix.length);
    head(res, out, prefix.length + padding + suffix.length);
    await write(res, prefix);
    for (let left = padding; left > 0 && !signal.aborted; left -= CHUNK) await write(res, 'a'.repeat(Math.min(CHUNK, left)));
    res.end(suffix);
    return;
  }
  await sendRepeated(res, out, text === '[]' ? '{".id":"*1"}' : text.slice(1, -1), bytes, signal);
}

/** A JSON list of at least `bytes`: `[unit,unit,…]`, streamed (an oversized body, or a flood of `{}`). */
async function sendRepeated(res: ServerResponse, out: Outgoing, unit: string, bytes: number, signal: AbortSignal): Promise<void> {
  const copies = Math.max(1, Math.ceil((bytes - 1) / (unit.length + 1)));
  head(res, out, 2 + copies * unit.length + (copies - 1));
  await write(res, '[');
  const perChunk = Math.max(1, Math.floor(CHUNK / (unit.length + 1)));
  for (let done = 0; done < copies && !signal.aborted; done += perChunk) {
    const n = Math.min(perChunk, copies - done);
    await write(res, (done === 0 ? '' : ',') + Array<string>(n).fill(unit).join(','));
  }
  res.end(']');
}

export async function send(res: ServerResponse, out: Outgoing, faults: ActiveFaults | undefined, signal: AbortSignal): Promise<void> {
  if (out.status === 204) {
    for (const [k, v] of Object.entries(out.headers ?? {})) res.setHeader(k, v);
    res.writeHead(204);
    res.end();
    return;
  }
  if (faults !== undefined && faults.oversizedBytes > 0) {
    await sendOversized(res, out, faults.oversizedBytes, signal);
    return;
  }
  if (faults !== undefined && faults.valueFloodBytes > 0) {
    await sendRepeated(res, out, '{}', faults.valueFloodBytes, signal);
    return;
  }
  if (faults?.truncated === true) {
    head(res, out, out.body.length);
    const half = out.body.subarray(0, Math.floor(out.body.length / 2));
    // Close once the partial body is flushed: the client sees a premature end of the message.
    res.write(half, () => res.socket?.destroy());
    return;
  }
  if (faults !== undefined && faults.slowBodyMs > 0) {
    head(res, out, out.body.length);
    const pieces = Math.max(1, Math.min(10, out.body.length));
    const size = Math.ceil(out.body.length / pieces);
    for (let i = 0; i < out.body.length; i += size) {
      await write(res, out.body.subarray(i, i + size));
      if (i + size < out.body.length) await sleep(faults.slowBodyMs / pieces, signal);
    }
    res.end();
    return;
  }
  head(res, out, out.body.length);
  res.end(out.body);
}
