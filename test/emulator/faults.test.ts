/** Fault injection: every kind, path scoping, clearing, reboot, stop/start, close with hung requests. */
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatedRouter } from '../../src/emulator/index.js';
import { asRec, asRows, Client } from './helpers.js';
import { seedRouter } from './fixtures.js';
import { UNKNOWN_FORMS } from '../../src/emulator/http/faults.js';
import { ephemeralRangeStart, LOWEST_DRAWN_PORT } from '../../src/emulator/ports.js';
import { readdirSync, readFileSync } from 'node:fs';

let emu: Emulator;
let client: Client;
let router: EmulatedRouter;
const R = 'f';
const CAP_MS = 500;

beforeAll(async () => {
  emu = await startEmulator({ routers: [seedRouter(R)], commandTimeoutMs: CAP_MS });
  client = new Client(emu);
  router = emu.router(R);
});

afterEach(() => router.clearFaults());

afterAll(async () => {
  await client.close();
  await emu.close();
});

const PEERS = '/rest/interface/wireguard/peers';

/** GET /rest/system/identity over node:https with `agent`: its status once the body has ended. */
function identityStatus(agent: HttpsAgent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${router.url}/rest/system/identity`, { agent, auth: 'admin:' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('timing faults', () => {
  it('latencyMs delays the answer', async () => {
    router.setFaults({ latencyMs: 200 });
    const started = performance.now();
    expect((await client.get(R, '/rest/system/identity')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('latency past the command cap ends in Session closed', async () => {
    router.setFaults({ latencyMs: 5_000 });
    const a = await client.get(R, '/rest/system/identity');
    expect(a.json).toEqual({ detail: 'Session closed', error: 400, message: 'Bad Request' });
  });

  it('hang never answers (the client gives up)', async () => {
    router.setFaults({ hang: true });
    await expect(client.call(R, 'GET', '/rest/system/identity', undefined, { signal: AbortSignal.timeout(CAP_MS * 2) })).rejects.toThrow(/abort|timeout/i);
  });

  it('slowBodyMs drips the body but it arrives whole', async () => {
    router.setFaults({ slowBodyMs: 300 });
    const started = performance.now();
    const a = await client.get(R, PEERS);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(asRows(a.json)).toHaveLength(2);
  });
});

describe('status faults', () => {
  it('forces a status with a RouterOS body on a path prefix only', async () => {
    router.setFaults({ status: { '/interface/wireguard': 503, '/rest/system/resource': { code: 500, detail: 'std failure: not allowed (9)' } } });
    const a = await client.get(R, PEERS);
    expect(a.status).toBe(503);
    expect(a.json).toEqual({ error: 503, message: 'Service Unavailable' });
    expect((await client.get(R, '/rest/system/resource')).json).toEqual({ detail: 'std failure: not allowed (9)', error: 500, message: 'Internal Server Error' });
    expect((await client.get(R, '/rest/system/identity')).status).toBe(200);
  });

  it('401 comes with a challenge; 403 is plain', async () => {
    router.setFaults({ status: { '/': 401 } });
    const a = await client.get(R, '/rest/system/identity');
    expect(a.status).toBe(401);
    expect(a.headers.get('www-authenticate')).toMatch(/^Basic/);
    router.setFaults({ status: { '/system': 403 } });
    expect((await client.get(R, '/rest/system/identity')).json).toEqual({ error: 403, message: 'Forbidden' });
  });
});

describe('body faults', () => {
  it('brokenJson: 200, consistent Content-Length, unparsable', async () => {
    router.setFaults({ brokenJson: true });
    const a = await client.get(R, PEERS);
    expect(a.status).toBe(200);
    expect(Number(a.headers.get('content-length'))).toBe(a.bytes.length);
    expect(() => JSON.parse(a.text) as unknown).toThrow();
  });

  it('truncated: fewer bytes than announced, then the connection drops', async () => {
    router.setFaults({ truncated: true });
    await expect(client.get(R, PEERS)).rejects.toThrow();
    router.clearFaults();
    expect((await client.get(R, PEERS)).status).toBe(200); // the client recovers on a new connection
  });

  it('oversizedBytes: a huge body that still looks valid', async () => {
    router.setFaults({ oversizedBytes: 3_000_000 });
    const a = await client.get(R, PEERS);
    expect(a.status).toBe(200);
    expect(Number(a.headers.get('content-length'))).toBeGreaterThanOrEqual(3_000_000);
    expect(a.bytes.length).toBe(Number(a.headers.get('content-length')));
    const rows = asRows(a.json);
    expect(rows.length).toBeGreaterThan(1000);
    expect(rows[rows.length - 1]).toHaveProperty('public-key');
    const obj = await client.get(R, '/rest/system/resource');
    expect(obj.bytes.length).toBeGreaterThanOrEqual(3_000_000);
    expect(asRec(obj.json)).toHaveProperty('uptime');
  });

  it('valueFloodBytes: valid JSON of empty records, at least that long, on lists and singletons alike', async () => {
    router.setFaults({ valueFloodBytes: 100_000 });
    for (const path of [PEERS, '/rest/system/resource']) {
      const reply = await client.get(R, path);
      expect(reply.status).toBe(200);
      expect(reply.bytes.length).toBe(Number(reply.headers.get('content-length')));
      expect(reply.bytes.length).toBeGreaterThanOrEqual(100_000);
      const rows = asRows(reply.json);
      expect(rows.length).toBe((reply.bytes.length - 1) / 3);
      expect(rows.every((row) => Object.keys(row).length === 0)).toBe(true);
    }
  });

  it('wrongShape: an object where a list is expected, and a list where an object is', async () => {
    router.setFaults({ wrongShape: true });
    expect(Array.isArray((await client.get(R, PEERS)).json)).toBe(false);
    expect(Array.isArray((await client.get(R, '/rest/system/resource')).json)).toBe(true);
  });

  it('html: a WebFig page with 200', async () => {
    router.setFaults({ html: true });
    const a = await client.get(R, '/rest/system/resource');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^text\/html/);
    expect(a.text).toMatch(/^<!DOCTYPE html>/);
  });

  it('invalidUtf8: cp1252 bytes inside a comment (invalid UTF-8, valid latin1 JSON)', async () => {
    router.setFaults({ invalidUtf8: true });
    const a = await client.get(R, PEERS);
    expect(a.bytes.includes(0xe9)).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(a.bytes)).toThrow();
    const rows = JSON.parse(a.bytes.toString('latin1')) as Record<string, string>[];
    expect(rows[0]?.['comment']).toMatch(/^alpha "site" Caf\u00e9 \u0093quote\u0094$/);
  });

  it('controlChars: a raw ESC inside a JSON string', async () => {
    router.setFaults({ controlChars: true });
    const a = await client.get(R, '/rest/system/resource');
    expect(a.bytes.includes(0x1b)).toBe(true);
    expect(() => JSON.parse(a.text) as unknown).toThrow();
    // What a tolerant client does (real-formats §7.6): escape C0 controls, then parse.
    const escaped = Array.from(a.text, (c) => (c.charCodeAt(0) < 0x20 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
    expect(asRec(JSON.parse(escaped))['board-name']).toContain('\u001b[31m');
  });

  it('unknownFormats: values no decoder should accept', async () => {
    router.setFaults({ unknownFormats: true });
    const peers = asRows((await client.get(R, PEERS)).json);
    for (const p of peers) {
      expect(p['last-handshake']).toBe('soon');
      expect(p['rx']).toBe('5.3KiB');
    }
    expect(asRec((await client.get(R, '/rest/system/resource')).json)['uptime']).toBe('3 days');
  });

  it('a fault set limited to a path leaves other paths alone; several sets combine', async () => {
    router.setFaults([{ path: '/interface/wireguard/peers', brokenJson: true }, { path: '/rest/system', wrongShape: true }]);
    const peers = await client.get(R, PEERS);
    expect(peers.json).toBeUndefined();
    expect(Array.isArray((await client.get(R, '/rest/system/resource')).json)).toBe(true);
    expect(asRows((await client.get(R, '/rest/interface/wireguard')).json)).toHaveLength(2);
  });

  it('clearFaults restores normal answers; error replies are never mangled', async () => {
    router.setFaults({ brokenJson: true, truncated: true, unknownFormats: true });
    expect((await client.get(R, '/rest/ip/address/*FFFF')).json).toEqual({ error: 404, message: 'Not Found' });
    router.clearFaults();
    expect(asRows((await client.get(R, PEERS)).json)).toHaveLength(2);
  });
});

describe('router lifecycle', () => {
  it('stop() refuses connections; start() listens again on the same port with the same state', async () => {
    const port = router.port;
    // Drawn below the ephemeral range: no listen(0) and no client's source port takes it while the router is down.
    expect(port).toBeGreaterThanOrEqual(LOWEST_DRAWN_PORT);
    expect(port).toBeLessThan(ephemeralRangeStart());
    await client.call(R, 'PATCH', '/rest/system/identity', { name: 'kept' });
    await router.stop();
    const fresh = new Client(emu);
    const failure = await fresh.get(R, '/rest/system/identity').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((failure as { cause?: { code?: string } } | undefined)?.cause?.code).toBe('ECONNREFUSED');
    await router.start();
    expect(router.port).toBe(port);
    expect((await fresh.get(R, '/rest/system/identity')).json).toEqual({ name: 'kept' });
    await fresh.close();
  });

  it('reboot with raceMs: first 401, then a wrong body (a /user list), then normal answers', async () => {
    router.reboot({ raceMs: 1200 });
    const first = await client.get(R, '/rest/system/resource');
    expect(first.json).toEqual({ error: 401, message: 'Unauthorized' });
    await vi.waitFor(
      async () => {
        const a = await client.get(R, '/rest/system/resource');
        expect(asRows(a.json)[0]).toHaveProperty('group', 'full');
      },
      { timeout: 3000, interval: 25 },
    );
    await vi.waitFor(
      async () => {
        const a = await client.get(R, '/rest/system/resource');
        expect(asRec(a.json)['uptime']).toMatch(/^\d+s$/);
      },
      { timeout: 3000, interval: 25 },
    );
  });

  it('close() ends hung requests and returns promptly', async () => {
    const e2 = await startEmulator({ routers: [{ name: 'h' }] });
    const c2 = new Client(e2);
    e2.router('h').setFaults({ hang: true });
    const pending = c2.get('h', '/rest/system/identity');
    await vi.waitFor(() => expect(e2.router('h').stats.requests).toBe(1));
    const started = performance.now();
    await e2.close();
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
    await c2.close();
  });

  it('keep-alive: many requests share one connection', async () => {
    // node:https here: undici opens a second socket for its second request whatever the server does.
    const agent = new HttpsAgent({ keepAlive: true, ca: emu.ca });
    const get = (): Promise<number> => identityStatus(agent);
    const before = { ...router.stats };
    for (let i = 0; i < 5; i++) expect(await get()).toBe(200);
    expect(router.stats.requests - before.requests).toBe(5);
    expect(router.stats.connections - before.connections).toBe(1);
    agent.destroy();
  });

  it('closeKept answers a connection\'s first request and closes it at the next, unanswered', async () => {
    router.setFaults({ closeKept: true });
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: emu.ca });
    const get = (): Promise<number> => identityStatus(agent);
    const before = { ...router.stats };
    try {
      expect(await get()).toBe(200);
      await expect(get()).rejects.toThrow(/socket hang up|ECONNRESET/);
      // The agent dropped the closed connection: the next request goes on a new one, and is answered.
      expect(await get()).toBe(200);
      expect(router.stats.requests - before.requests).toBe(3);
      expect(router.stats.connections - before.connections).toBe(2);
    } finally {
      agent.destroy();
    }
  });
});

describe('unknownFormats', () => {
  it('uses no value a real router sends for that field (found by review: mtu "auto" is a real bridge\'s)', () => {
    const dir = new URL('../fixtures/recorded/', import.meta.url);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const reply: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
      for (const row of Array.isArray(reply) ? reply : [reply]) {
        for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
          expect(UNKNOWN_FORMS[key], `${file}: ${key}`).not.toBe(value);
        }
      }
    }
  });
});
