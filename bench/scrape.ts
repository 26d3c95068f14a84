/**
 * The scrape client, the same for every target: node:http with one keep-alive connection per target,
 * wall time from the request to the last byte of the body, which is counted but not kept.
 */
import { Agent, request } from 'node:http';

export interface ScrapeResult {
  ms: number;
  /** Body bytes as sent (compressed when gzip). */
  bytes: number;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly gzip: boolean;
  readonly agent: Agent;
}

export function target(name: string, url: string, gzip: boolean): Target {
  return { name, url, gzip, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
}

export function scrape(t: Target, timeoutMs = 300_000): Promise<ScrapeResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(t.url, { agent: t.agent, headers: t.gzip ? { 'accept-encoding': 'gzip' } : {}, timeout: timeoutMs }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => {
        const ms = performance.now() - started;
        if (res.statusCode !== 200) reject(new Error(`${t.name}: HTTP ${res.statusCode ?? '?'}`));
        else resolve({ ms, bytes });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${t.name}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** The whole body (for the one fetch that copies the exposition to the baselines). */
export function fetchBody(url: string, gzip: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url}: HTTP ${res.statusCode ?? '?'}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Nearest-rank percentile of a sample (p in 0–100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}
