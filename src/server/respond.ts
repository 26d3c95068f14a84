/** Small response helpers shared by the routes. */
import type { ServerResponse } from 'node:http';

export function sendText(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length, 'cache-control': 'no-store' });
  res.end(bytes);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendText(res, status, JSON.stringify(value, null, 2) + '\n', 'application/json; charset=utf-8');
}

/** Writes prepared buffers without copying them into one (they are large and already made). */
export function sendParts(res: ServerResponse, status: number, headers: Record<string, string | number>, parts: readonly Buffer[]): void {
  res.writeHead(status, headers);
  res.cork();
  for (const part of parts) res.write(part);
  res.uncork();
  res.end();
}
