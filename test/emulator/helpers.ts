/**
 * Test helpers: a real HTTPS client (undici with the emulator's CA, no verification shortcuts)
 * and a manual clock.
 */
import { Agent, fetch } from 'undici';
import type { Emulator, EmulatedRouter } from '../../src/emulator/index.js';

export interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  json: unknown;
}

export class Client {
  readonly agent: Agent;

  constructor(
    readonly emulator: Emulator,
    private readonly user = 'admin',
    private readonly password = '',
  ) {
    this.agent = new Agent({ connect: { ca: emulator.ca } });
  }

  as(user: string, password: string): Client {
    return new Client(this.emulator, user, password);
  }

  async call(
    router: EmulatedRouter | string,
    method: string,
    path: string,
    body?: unknown,
    options: { auth?: boolean; raw?: string; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    const r = typeof router === 'string' ? this.emulator.router(router) : router;
    const headers: Record<string, string> = {};
    if (options.auth !== false) headers['authorization'] = `Basic ${Buffer.from(`${this.user}:${this.password}`).toString('base64')}`;
    let payload: string | undefined = options.raw;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(r.url + path, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      dispatcher: this.agent,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers as unknown as Headers, bytes, text, json };
  }

  get(router: EmulatedRouter | string, path: string): Promise<Answer> {
    return this.call(router, 'GET', path);
  }

  post(router: EmulatedRouter | string, path: string, body?: unknown): Promise<Answer> {
    return this.call(router, 'POST', path, body ?? {});
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export type Rec = Record<string, string>;

export function asRows(value: unknown): Rec[] {
  if (!Array.isArray(value)) throw new Error(`expected a list, got ${JSON.stringify(value)}`);
  return value as Rec[];
}

export function asRec(value: unknown): Rec {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return value as Rec;
}

/** A clock tests move by hand. */
export class ManualClock {
  constructor(public ms = Date.UTC(2025, 0, 15, 12, 0, 0)) {}
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Parses a RouterOS duration independently of the emulator's code (w d h m s ms us). */
export function seconds(duration: string): number {
  const re = /(\d+)(ms|us|w|d|h|m|s)/g;
  const size: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 };
  let total = 0;
  let consumed = 0;
  for (const m of duration.matchAll(re)) {
    total += Number(m[1]) * (size[m[2] ?? 's'] ?? NaN);
    consumed += m[0].length;
  }
  if (consumed !== duration.length || duration === '') throw new Error(`not a duration: ${duration}`);
  return total;
}
