/**
 * GET /probe?target=NAME against the demo's emulated routers, collected once (so nothing changes between the
 * scrapes compared): each router's body holds exactly its lines of /metrics, all of them add up to /metrics
 * minus the exporter's own series, in both formats; gzip, HEAD, promtool, the strict OpenMetrics parser, and the
 * 400/404 answers.
 */
import { request, type Server } from 'node:http';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import { demoConfig } from '../../src/cli/demo-config.js';
import { MAX_TARGET_LENGTH } from '../../src/server/probe-query.js';
import { writeCa } from '../helpers/emulator-config.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseOpenMetrics } from '../metrics/openmetrics-parser.js';

const OPENMETRICS = 'application/openmetrics-text; version=1.0.0';
const FORMATS = [
  { name: 'text', accept: 'text/plain' },
  { name: 'openmetrics', accept: OPENMETRICS },
] as const;

let emulator: Emulator;
let app: App;
let server: Server;
let base: string;
let routers: string[];

beforeAll(async () => {
  emulator = await startEmulator({ scenario: 'demo' });
  const demo = demoConfig(emulator, { listen: '127.0.0.1:0', caFile: writeCa(emulator), logLevel: 'silent' });
  // Labels on one router: its probe body carries them on every series, as /metrics does.
  const config = { ...demo, routers: demo.routers.map((router) => (router.name === 'hq' ? { ...router, labels: { site: 'ams', role: 'core' } } : router)) };
  app = createApp(config, { logger: pino({ level: 'silent' }) });
  server = await startServer(app, config.listen);
  base = serverUrl(server);
  // One collection of every job, and no schedule: the bodies compared below come from the same snapshots.
  await app.collectOnce();
  routers = config.routers.map((router) => router.name);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  if (server !== undefined) await closeServer(server, 1_000);
  await emulator?.close();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(base + path, { headers });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

function sampleLines(body: string): string[] {
  return body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

function metricName(line: string): string {
  return /^[^{ ]+/.exec(line)?.[0] ?? '';
}

/** Family names a body declares (# TYPE). */
function families(body: string): string[] {
  return [...body.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] as string);
}

describe('GET /probe?target=NAME', () => {
  it.each(FORMATS)('every router’s body, concatenated, is /metrics minus the exporter’s own series ($name)', async ({ accept }) => {
    const whole = await get('/metrics', { accept });
    const own = await get('/metrics?scope=exporter', { accept });
    const ownFamilies = families(own.body);
    expect(ownFamilies).toEqual(expect.arrayContaining(['routeros_exporter_config_restart_required', 'process_start_time_seconds']));
    const isOwn = (line: string): boolean => ownFamilies.some((family) => metricName(line) === family || metricName(line).startsWith(`${family}_`));
    // The exporter's own body holds no router's series.
    for (const line of sampleLines(own.body)) expect(line).not.toContain('router=');

    const expected = sampleLines(whole.body).filter((line) => !isOwn(line));
    const probed: string[] = [];
    for (const router of routers) {
      const probe = await get(`/probe?target=${encodeURIComponent(router)}`, { accept });
      expect(probe.status).toBe(200);
      expect(probe.type).toBe(whole.type);
      const lines = sampleLines(probe.body);
      // Its own series only, its collector meta series among them.
      for (const line of lines) expect(line).toMatch(new RegExp(`\\{router="${router}"[,}]`));
      expect(lines.some((line) => line.startsWith('routeros_up{'))).toBe(true);
      expect(lines.some((line) => line.startsWith('routeros_collector_success{'))).toBe(true);
      expect(lines.some((line) => isOwn(line))).toBe(false);
      probed.push(...lines);
    }
    expect(expected.length).toBeGreaterThan(200);
    expect([...probed].sort()).toEqual([...expected].sort());
    console.log(`${routers.length} probe bodies add up to ${expected.length} of /metrics' ${sampleLines(whole.body).length} sample lines (${accept})`);
  });

  it('carries the router’s configured labels on every series', async () => {
    const lines = sampleLines((await get('/probe?target=hq')).body);
    for (const line of lines) expect(line).toMatch(/\{router="hq",role="core",site="ams"[,}]/);
  });

  it('is a valid exposition: promtool (text) and the strict OpenMetrics parser accept every router’s body, and the exporter’s own', async () => {
    for (const router of routers) {
      const text = await get(`/probe?target=${router}`);
      const check = await promtoolCheckMetrics(text.body);
      expect(check.output).toBe('');
      expect(check.code).toBe(0);
      const om = await get(`/probe?target=${router}`, { accept: OPENMETRICS });
      expect(om.body.endsWith('# EOF\n')).toBe(true);
      const parsed = parseOpenMetrics(om.body);
      expect(parsed.find((family) => family.name === 'routeros_up')?.samples).toHaveLength(1);
    }
    // The exporter's own series alone are a valid exposition too.
    const own = await get('/metrics?scope=exporter');
    expect((await promtoolCheckMetrics(own.body)).code).toBe(0);
    expect(parseOpenMetrics((await get('/metrics?scope=exporter', { accept: OPENMETRICS })).body).length).toBeGreaterThan(5);
  });

  it('gzip-compresses when accepted (same bytes inflated), and HEAD gives the length without a body', async () => {
    for (const { accept } of FORMATS) {
      const plain = await fetch(`${base}/probe?target=branch-1`, { headers: { accept, 'accept-encoding': 'identity' } });
      const plainBody = Buffer.from(await plain.arrayBuffer());
      // Node's fetch inflates by itself; a raw request keeps the bytes as sent.
      const zipped = await rawGet('/probe?target=branch-1', { accept, 'accept-encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers['vary']).toBe('Accept, Accept-Encoding');
      expect(gunzipSync(zipped.body).equals(plainBody)).toBe(true);
      // Compressed as one body, not family by family (4-5 × one deflate of the plain bytes before; found by review),
      // and the same bytes again while nothing changed; a gzip HEAD gives that length.
      expect(zipped.body.length).toBeLessThan(1.3 * deflateRawSync(plainBody, { level: 1 }).length + 32);
      expect((await rawGet('/probe?target=branch-1', { accept, 'accept-encoding': 'gzip' })).body.equals(zipped.body)).toBe(true);
      const zippedHead = await fetch(`${base}/probe?target=branch-1`, { method: 'HEAD', headers: { accept, 'accept-encoding': 'gzip' } });
      expect(Number(zippedHead.headers.get('content-length'))).toBe(zipped.body.length);
      const head = await fetch(`${base}/probe?target=branch-1`, { method: 'HEAD', headers: { accept, 'accept-encoding': 'identity' } });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBe(plainBody.length);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('answers 404 with a short text for a router it does not have', async () => {
    const answer = await get('/probe?target=nowhere');
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/^text\/plain/);
    expect(answer.body).toMatch(/^No such router/);
    expect(answer.body).not.toContain('nowhere');
    expect((await fetch(`${base}/probe?target=nowhere`, { method: 'HEAD' })).status).toBe(404);
  });

  it.each([
    ['/probe', /"target" parameter is required/],
    ['/probe?target=', /"target" is empty/],
    ['/probe?target=hq&target=branch-1', /give "target" once, not 2 times/],
    [`/probe?target=${'a'.repeat(MAX_TARGET_LENGTH + 1)}`, new RegExp(`longer than ${MAX_TARGET_LENGTH} characters`)],
    ['/probe?target=hq%0d%0aX-Injected:%201', /control character/],
    ['/probe?target=hq&profile=a&profile=b', /give "profile" once/],
  ])('answers 400 to %s', async (path, reason) => {
    const answer = await get(path);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(reason);
  });

  it('ignores parameters it does not know (module=, as in scrape configs written for other exporters)', async () => {
    expect((await get('/probe?module=routeros&target=hq')).status).toBe(200);
  });

  it('answers 404 "no such profile" for profile= when the configuration has no profiles', async () => {
    const answer = await get('/probe?target=192.0.2.7&profile=edge');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatch(/^No such profile/);
  });

  it('/metrics?scope= takes all or exporter, once', async () => {
    expect((await get('/metrics?scope=all')).status).toBe(200);
    expect((await get('/metrics?scope=routers')).status).toBe(400);
    expect((await get('/metrics?scope=exporter&scope=all')).status).toBe(400);
  });
});

async function rawGet(path: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
