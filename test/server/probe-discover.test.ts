/**
 * /probe with profile=: what the route makes of each answer of Endpoints.discover (the seam with the
 * discovered-target registry), and the wait it grants from X-Prometheus-Scrape-Timeout-Seconds. A fake
 * Endpoints behind the real router and guard; then the real server's authentication and scrape cap on /probe.
 */
import { createServer, get as httpGet, type ClientRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { DiscoverResult } from '../../src/discovery/discover-result.js';
import type { Endpoints } from '../../src/server/endpoints.js';
import { DEFAULT_LIMITS, guard } from '../../src/server/guard.js';
import { createRouter } from '../../src/server/router.js';
import { MAX_WAIT_MS, MIN_WAIT_MS, probeWaitMs } from '../../src/server/probe-query.js';
import { MAX_WAITING_PROBES_PER_CLIENT } from '../../src/server/probe-route.js';
import { ROUTE_RULES } from '../../src/server/routes.js';
import { startExporter, WEB_AUTH, type Exporter } from './exporter.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';

const calls: { target: string; profile: string; timeoutMs: number; fromPage?: boolean }[] = [];
let answer: DiscoverResult = { kind: 'unknown_profile' };
let server: Server;
let base: string;

const endpoints = {
  renderRouter: (name: string, _format: string, gzip: boolean) => {
    if (name !== 'edge-192.0.2.7') return undefined;
    const plain = Buffer.from(`routeros_up{router="${name}"} 1\n`);
    const body = gzip ? gzipSync(plain) : plain;
    return Promise.resolve({ parts: [body], length: body.length });
  },
  discover: (target: string, profile: string, timeoutMs: number, options?: { fromPage?: boolean }) => {
    calls.push({ target, profile, timeoutMs, ...(options?.fromPage === true ? { fromPage: true } : {}) });
    return Promise.resolve(answer);
  },
} as unknown as Endpoints;

beforeAll(async () => {
  const handle = createRouter(endpoints, pino({ level: 'silent' }));
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function probe(query: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const response = await fetch(`${base}/probe?${query}`, { headers });
  return { status: response.status, body: await response.text(), retryAfter: response.headers.get('retry-after') };
}

describe('/probe?target=HOST&profile=NAME', () => {
  it('hands target, profile and the scrape timeout less a margin to discover', async () => {
    calls.length = 0;
    answer = { kind: 'ready', router: 'edge-192.0.2.7' };
    await probe('target=192.0.2.7:443&profile=edge', { 'x-prometheus-scrape-timeout-seconds': '4.5' });
    expect(calls).toEqual([{ target: '192.0.2.7:443', profile: 'edge', timeoutMs: 4_000 }]);
  });

  it.each<[string, DiscoverResult, number, RegExp]>([
    ['ready: the router’s series', { kind: 'ready', router: 'edge-192.0.2.7' }, 200, /^routeros_up\{router="edge-192.0.2.7"\} 1/],
    ['timeout: what exists so far', { kind: 'timeout', router: 'edge-192.0.2.7' }, 200, /^routeros_up/],
    ['unknown_profile', { kind: 'unknown_profile' }, 404, /^No such profile\.\n$/],
    ['refused', { kind: 'refused', reason: 'not in the allow list of profile edge' }, 403, /^Refused: not in the allow list of profile edge\.\n$/],
    ['full', { kind: 'full', reason: 'profile edge holds its cap of 2 targets', retryAfterSeconds: 480 }, 429, /^Too many targets: profile edge holds its cap of 2 targets\.\n$/],
    // Accepted, but the scheduler's load that takes it in is still paced behind a burst of first probes (or a
    // reload forgot it meanwhile): retry, not "no such router … needs profile=" (which it had).
    ['ready, but not planned (yet, or any more)', { kind: 'ready', router: 'not-planned' }, 503, /^Not ready: the target is accepted/],
    ['timeout, not planned yet', { kind: 'timeout', router: 'not-planned' }, 503, /^Not ready: the target is accepted/],
    // Shutting down: nothing this process could serve later, so no Retry-After.
    ['closed', { kind: 'closed' }, 503, /^Shutting down: the exporter takes no new target in\.\n$/],
  ])('maps %s', async (_name, result, status, body) => {
    answer = result;
    const got = await probe('target=192.0.2.7&profile=edge');
    expect(got.status).toBe(status);
    expect(got.body).toMatch(body);
    if (status === 429) expect(got.retryAfter).toBe('480');
    if (status === 503) expect(got.retryAfter).toBe(result.kind === 'closed' ? null : '1');
  });

  it('tells the registry when a page of another site asked, so that it adds no target for one (found by review)', async () => {
    answer = { kind: 'ready', router: 'edge-192.0.2.7' };
    const port = new URL(base).port;
    const fromPage = async (headers: Record<string, string>): Promise<boolean> => {
      calls.length = 0;
      await probe('target=192.0.2.7&profile=edge', headers);
      return calls[0]?.fromPage === true;
    };
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }, { referer: 'http://evil.example/page.html' }] as Record<string, string>[]) {
      expect(await fromPage(headers), JSON.stringify(headers)).toBe(true);
    }
    // The exporter's own pages, the browser's word that nothing else asked (a proxy may rewrite Host), and clients
    // that send none of these (Prometheus).
    for (const headers of [{ referer: `http://127.0.0.1:${port}/` }, { 'sec-fetch-site': 'same-origin', referer: 'http://proxy.example/' }, { 'sec-fetch-site': 'none' }, {}] as Record<string, string>[]) {
      expect(await fromPage(headers), JSON.stringify(headers)).toBe(false);
    }
  });

  it('answers 404 "no such profile" when the app has no discovery at all (Endpoints.discover absent)', async () => {
    const { discover: _none, ...rest } = endpoints as Endpoints & { discover: unknown };
    const bare = createServer(createRouter(rest as Endpoints, pino({ level: 'silent' })));
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const address = bare.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const response = await fetch(`http://127.0.0.1:${port}/probe?target=192.0.2.7&profile=edge`);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('No such profile: the configuration has no profiles.\n');
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });

  it('keeps a registry’s reason to one bounded line', async () => {
    answer = { kind: 'refused', reason: `line one\r\nX-Injected: 1 ${'x'.repeat(500)}` };
    const got = await probe('target=192.0.2.7&profile=edge');
    expect(got.body.split('\n')).toHaveLength(2);
    expect(got.body.length).toBeLessThan(230);
  });

  it('bounds the wait it grants: default 10 s, minus 0.5 s, never below 100 ms or above 25 s', () => {
    expect(probeWaitMs({})).toBe(9_500);
    expect(probeWaitMs({ 'x-prometheus-scrape-timeout-seconds': '10' })).toBe(9_500);
    expect(probeWaitMs({ 'x-prometheus-scrape-timeout-seconds': '0.2' })).toBe(MIN_WAIT_MS);
    expect(probeWaitMs({ 'x-prometheus-scrape-timeout-seconds': '3600' })).toBe(MAX_WAIT_MS);
    for (const junk of ['', 'ten', '-5', '1e9', 'NaN', '0']) expect(probeWaitMs({ 'x-prometheus-scrape-timeout-seconds': junk }), junk).toBe(9_500);
  });
});

describe('/probe and /sd behind the guard', () => {
  let open: Exporter;
  let locked: Exporter;
  beforeAll(async () => {
    open = await startExporter({ limits: { maxConcurrentScrapes: 0 } });
    locked = await startExporter({ basicAuth: true });
  });
  afterAll(async () => {
    await open?.close();
    await locked?.close();
  });

  it('are scrapes: counted by the scrape cap like /metrics', async () => {
    expect(ROUTE_RULES['/probe']).toEqual({ methods: ['GET', 'HEAD'], scrape: true });
    expect(ROUTE_RULES['/sd']).toEqual({ methods: ['GET', 'HEAD'], scrape: true });
    // A cap of 0: every scrape is turned away, the liveness check is not.
    for (const path of ['/metrics', '/probe?target=hq', '/sd']) expect((await fetch(`http://127.0.0.1:${open.port}${path}`)).status, path).toBe(503);
    expect((await fetch(`http://127.0.0.1:${open.port}/-/healthy`)).status).toBe(200);
  });

  it('ask for the web config’s Basic users, as /metrics does', async () => {
    for (const path of ['/probe?target=hq', '/sd', '/metrics?scope=exporter']) {
      expect((await fetch(`http://127.0.0.1:${locked.port}${path}`)).status, path).toBe(401);
      expect((await fetch(`http://127.0.0.1:${locked.port}${path}`, { headers: { authorization: WEB_AUTH } })).status, path).toBe(200);
    }
  });

  it('refuse other methods with 405', async () => {
    const response = await fetch(`http://127.0.0.1:${locked.port}/probe?target=hq`, { method: 'POST', headers: { authorization: WEB_AUTH } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('a first probe waiting for its first collection holds no scrape slot', () => {
  // One slot in all: before, a first probe held it for its whole wait (up to the scrape's timeout, 25 s at most),
  // and a few first probes of routers that do not answer turned every other scrape away with 503.
  let gate: Server;
  let url: string;
  const waiting: (() => void)[] = [];
  const rendering: (() => void)[] = [];
  const gated = {
    renderRouter: (name: string, _format: string, gzip: boolean) => {
      const plain = Buffer.from(`routeros_up{router="${name}"} 1\n`);
      const body = gzip ? gzipSync(plain) : plain;
      const rendered = { parts: [body], length: body.length };
      if (name !== 'slow') return Promise.resolve(rendered);
      return new Promise((resolve) => rendering.push(() => resolve(rendered)));
    },
    discover: () => new Promise<DiscoverResult>((resolve) => waiting.push(() => resolve({ kind: 'timeout', router: 'edge-192.0.2.7' }))),
  } as unknown as Endpoints;

  beforeAll(async () => {
    const guarded = guard(createRouter(gated, pino({ level: 'silent' })), {
      web: undefined,
      logger: pino({ level: 'silent' }),
      limits: { ...DEFAULT_LIMITS, maxConcurrentScrapes: 1, maxScrapesPerClient: 1 },
    });
    gate = createServer(guarded.handle);
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    const address = gate.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => gate.close(resolve));
  });

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  }

  it('lets other scrapes through while it waits, and answers once the wait ends', async () => {
    const first = fetch(`${url}/probe?target=192.0.2.7&profile=edge`);
    await until(() => waiting.length === 1);
    const other = await fetch(`${url}/probe?target=configured`);
    expect(other.status).toBe(200);
    expect(await other.text()).toBe('routeros_up{router="configured"} 1\n');
    waiting.shift()?.();
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(await answered.text()).toMatch(/^routeros_up\{router="edge-192.0.2.7"\} 1/);
  });

  it('takes a slot again to render: 503 with Retry-After when none is free then', async () => {
    const first = fetch(`${url}/probe?target=192.0.2.7&profile=edge`);
    await until(() => waiting.length === 1);
    const holder = fetch(`${url}/probe?target=slow`);
    await until(() => rendering.length === 1);
    waiting.shift()?.();
    const answered = await first;
    expect(answered.status).toBe(503);
    expect(answered.headers.get('retry-after')).toBe('1');
    rendering.shift()?.();
    expect((await holder).status).toBe(200);
    // The slot came back with each answer: the next scrape is served.
    expect((await fetch(`${url}/probe?target=configured`)).status).toBe(200);
  });
});

describe('first probes waiting at once (found by review: 150,000 pipelined probes waited together, 0.9 GB)', () => {
  it(`let ${MAX_WAITING_PROBES_PER_CLIENT} of one client wait; the next are answered at once with what exists, and waits end as they free`, async () => {
    const held: (() => void)[] = [];
    const waited: number[] = [];
    const own = {
      renderRouter: endpoints.renderRouter,
      discover: (_target: string, _profile: string, timeoutMs: number) => {
        waited.push(timeoutMs);
        const result: DiscoverResult = { kind: 'timeout', router: 'edge-192.0.2.7' };
        return timeoutMs === 0 ? Promise.resolve(result) : new Promise<DiscoverResult>((resolve) => held.push(() => resolve(result)));
      },
    } as unknown as Endpoints;
    const local = createServer(createRouter(own, pino({ level: 'silent' })));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const address = local.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/probe?target=192.0.2.7&profile=edge`;
    try {
      const first = Array.from({ length: MAX_WAITING_PROBES_PER_CLIENT }, () => fetch(url));
      await expect.poll(() => held.length).toBe(MAX_WAITING_PROBES_PER_CLIENT);
      // Past the client's share: no wait, answered with what the target has (here its series).
      const past = await fetch(url);
      expect(past.status).toBe(200);
      expect(waited.at(-1)).toBe(0);
      // One wait ends: the next probe may wait again.
      held.shift()?.();
      await expect.poll(() => held.length).toBe(MAX_WAITING_PROBES_PER_CLIENT - 1);
      const again = fetch(url);
      await expect.poll(() => held.length).toBe(MAX_WAITING_PROBES_PER_CLIENT);
      expect(waited.at(-1)).toBeGreaterThan(0);
      for (const release of held.splice(0)) release();
      expect((await Promise.all([...first, again])).every((response) => response.status === 200)).toBe(true);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });
});

describe('first probes of an inventory from one Prometheus, each over a connection of its own (found by review)', () => {
  // Prometheus scrapes each target over its own connection: 256 waits per client held every one of the 64 connections
  // an address may open, and the next first probes' connections were closed as they came (100 at once: 36 reset).
  const held: { gone: AbortSignal | undefined; release: () => void }[] = [];
  let atOnce = 0;
  let server: Server;
  let port = 0;
  const own = {
    renderRouter: endpoints.renderRouter,
    discover: (_target: string, _profile: string, timeoutMs: number, options?: { gone?: AbortSignal }) => {
      const gone = options?.gone;
      const result: DiscoverResult = { kind: 'timeout', router: 'edge-192.0.2.7' };
      if (timeoutMs === 0) {
        atOnce++;
        return Promise.resolve(result);
      }
      return new Promise<DiscoverResult>((resolve) => {
        const release = (): void => resolve(result);
        held.push({ gone, release });
        // As the registry: a client gone before its wait began is not waited for.
        if (gone?.aborted === true) release();
        else gone?.addEventListener('abort', release, { once: true });
      });
    },
  } as unknown as Endpoints;

  beforeAll(async () => {
    server = await startServer({ handle: createRouter(own, pino({ level: 'silent' })) }, '127.0.0.1:0');
    port = Number(new URL(serverUrl(server)).port);
  });
  afterAll(async () => {
    for (const { release } of held.splice(0)) release();
    await closeServer(server, 5_000);
  });

  /** A first probe over a new connection; settles once it waits (discover was asked to) or its answer or error came. */
  function firstProbe(): { request: ClientRequest; answer: Promise<number | string>; started: Promise<void> } {
    const before = held.length;
    const request = httpGet({ host: '127.0.0.1', port, path: '/probe?target=192.0.2.7&profile=edge', agent: false });
    const answer = new Promise<number | string>((resolve) => {
      request.once('response', (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      });
      request.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    const started = (async () => {
      let settled = false;
      void answer.then(() => (settled = true));
      while (!settled && held.length === before) await new Promise((resolve) => setImmediate(resolve));
    })();
    return { request, answer, started };
  }

  it(`lets ${MAX_WAITING_PROBES_PER_CLIENT} wait and answers the rest at once: no connection is closed as it comes`, async () => {
    atOnce = 0;
    const probes = [];
    for (let i = 0; i < 100; i++) {
      const probe = firstProbe();
      await probe.started;
      probes.push(probe);
    }
    expect(held.length).toBe(MAX_WAITING_PROBES_PER_CLIENT);
    expect(atOnce).toBe(100 - MAX_WAITING_PROBES_PER_CLIENT);
    expect(MAX_WAITING_PROBES_PER_CLIENT).toBeLessThan(DEFAULT_LIMITS.maxConnectionsPerClient);
    // Answered at once, and each wait as it ends (one after the other: waits ending together would share 8 scrape slots).
    const waited = probes.slice(0, MAX_WAITING_PROBES_PER_CLIENT);
    for (const { release } of held.splice(0)) {
      release();
      await waited.shift()?.answer;
    }
    const answers = await Promise.all(probes.map((probe) => probe.answer));
    expect(answers.filter((answer) => answer !== 200)).toEqual([]);
  });

  it('ends the wait of a client that has gone, so its wait is free for the next first probe', async () => {
    const probes = [];
    for (let i = 0; i < MAX_WAITING_PROBES_PER_CLIENT; i++) {
      const probe = firstProbe();
      await probe.started;
      probes.push(probe);
    }
    expect(held.length).toBe(MAX_WAITING_PROBES_PER_CLIENT);
    // Gone: half with a FIN, half with a reset.
    for (const [i, probe] of probes.entries()) {
      if (i % 2 === 0) probe.request.destroy();
      else probe.request.socket?.resetAndDestroy();
    }
    await expect.poll(() => held.every(({ gone }) => gone?.aborted === true)).toBe(true);
    held.length = 0;
    atOnce = 0;
    const next = firstProbe();
    await next.started;
    // It waits: the waits of the clients that left are free again.
    expect(held.length).toBe(1);
    expect(atOnce).toBe(0);
    held.splice(0)[0]?.release();
    expect(await next.answer).toBe(200);
  });

  it('ends the waits of pipelined first probes whose client sent its FIN before their turn came (found by review)', async () => {
    held.length = 0;
    atOnce = 0;
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    let answers = '';
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1')));
    const request = 'GET /probe?target=192.0.2.7&profile=edge HTTP/1.1\r\nHost: x\r\n\r\n';
    // Three first probes and the FIN at once: the later ones reach the route after the socket's one 'end'.
    socket.end(request.repeat(3));
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Each was answered (none held for its whole timeout), and each that waited was ended as its client had gone.
    expect(answers.match(/^HTTP\/1\.1 200/gm)).toHaveLength(3);
    expect(held.every(({ gone }) => gone?.aborted === true)).toBe(true);
  });
});
