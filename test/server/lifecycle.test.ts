/**
 * POST /-/reload is off unless enabled (--web.enable-lifecycle, like Prometheus) or only Basic users reach
 * it; other methods answer 405 with Allow: POST. The flag is parsed and carried into the config.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { crossSite } from '../../src/server/cross-site.js';
import { parseCli } from '../../src/cli/args.js';
import { applyOverrides } from '../../src/cli/overrides.js';
import { openSocket, rawRequest } from './raw-client.js';
import { MAX_IGNORED_BODY_BYTES } from '../../src/server/request-arrival.js';
import { startExporter, WEB_AUTH, type Exporter, type ExporterOptions } from './exporter.js';
import { testConfig } from '../helpers/config.js';
import { ConfigError, type Config } from '../../src/config/types.js';

let exporter: Exporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
});

/** Reloads the exporter has logged so far (it logs before it answers). */
function reloadsLogged(running: Exporter): number {
  return running.logs.lines().filter((line) => line.msg === 'configuration reloaded').length;
}

/** Sends `request` as it is to the exporter (started with `options` if none runs) and counts the reloads it made. */
async function send(request: string, options: ExporterOptions, halfClose = false): Promise<{ status: number | undefined; text: string; reloads: number }> {
  exporter ??= await startExporter(options);
  const before = reloadsLogged(exporter);
  const answer = await rawRequest(request, { port: exporter.port, halfClose });
  return { status: answer.status, text: answer.text, reloads: reloadsLogged(exporter) - before };
}

function reload(options: ExporterOptions, method = 'POST', auth = false): Promise<{ status: number | undefined; text: string; reloads: number }> {
  return send(`${method} /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${auth ? `Authorization: ${WEB_AUTH}\r\n` : ''}\r\n`, options);
}

describe('POST /-/reload', () => {
  it('is refused with 403 by default, saying how to enable it, and reloads nothing', async () => {
    const answer = await reload({});
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('--web.enable-lifecycle');
    expect(answer.text).toContain('basic_auth_users');
    expect(answer.reloads).toBe(0);
  });

  it('reloads with --web.enable-lifecycle', async () => {
    const answer = await reload({ enableLifecycle: true });
    expect(answer.status).toBe(200);
    expect(answer.reloads).toBe(1);
  });

  it('reloads for an authenticated user when the web config has Basic users, without the flag', async () => {
    const answer = await reload({ basicAuth: true }, 'POST', true);
    expect(answer.status).toBe(200);
    expect(answer.reloads).toBe(1);
    expect((await reload({ basicAuth: true }, 'POST', false)).status).toBe(401);
  });

  it.each([
    ['Origin: http://evil.example\r\n', 403, 0],
    ['Origin: null\r\n', 403, 0],
    ['Sec-Fetch-Site: cross-site\r\n', 403, 0],
    ['Sec-Fetch-Site: same-site\r\n', 403, 0],
    ['Origin: http://x\r\nSec-Fetch-Site: same-origin\r\n', 200, 1],
    // The same origin written otherwise: the scheme's port given or not, a trailing dot, another case.
    ['Origin: http://x:80\r\n', 200, 1],
    ['Origin: http://X.\r\n', 200, 1],
    ['', 200, 1],
  ])('a page of another site cannot reload, even enabled or with cached credentials (%j): %i (found by review)', async (headers, status, reloads) => {
    const answer = await send(`POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${headers}\r\n`, { enableLifecycle: true });
    expect(answer.status).toBe(status);
    expect(answer.reloads).toBe(reloads);
    if (status === 403) expect(answer.text).toContain('another site');
  });

  it('answers a refused config\'s problems with secrets redacted, as its log line has them (found by review)', async () => {
    // The running password, typed where a duration belongs: the problem quotes the value.
    const loadConfig = (): Promise<Config> => Promise.reject(new ConfigError('config.yml', [{ path: 'routers[0].timeout', message: '"not-a-real-password" is not a duration' }]));
    const answer = await send('POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n', { enableLifecycle: true, loadConfig });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('is not a duration');
    expect(answer.text).not.toContain('not-a-real-password');
  });

  it.each(['PUT', 'GET', 'DELETE'])('%s answers 405 with Allow: POST, even when enabled', async (method) => {
    const answer = await reload({ enableLifecycle: true }, method);
    expect(answer.status).toBe(405);
    expect(answer.text.toLowerCase()).toContain('allow: post');
    expect(answer.reloads).toBe(0);
  });

  it('the same for /-/./reload and http://x/-/reload', async () => {
    exporter = await startExporter({});
    for (const target of ['/-/./reload', '/x/../-/reload', 'http://x/-/reload']) {
      const answer = await rawRequest(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`, { port: exporter.port });
      expect(answer.status, target).toBe(403);
    }
  });
});

describe('POST /-/reload acts only on a request that arrived whole', () => {
  const enabled: ExporterOptions = { enableLifecycle: true };
  const head = (headers: string): string => `POST /-/reload HTTP/1.1\r\nHost: x\r\n${headers}\r\n`;

  it('a body cut by the client closing reloads nothing (before, the reload ran on the head and 200 came before the 400)', async () => {
    const answer = await send(`${head('Content-Length: 10\r\n')}abcde`, enabled, true);
    expect(answer.reloads).toBe(0);
    expect(answer.text).not.toContain(' 200 ');
    expect(answer.status).toBe(400);
  });

  it('a body cut by a reset reloads nothing', async () => {
    exporter ??= await startExporter(enabled);
    const socket = await openSocket({ port: exporter.port });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    socket.write(`${head('Content-Length: 10\r\n')}abcde`);
    socket.resetAndDestroy();
    await closed;
    // A reload that did run logs before it answers; a later request on its own connection is answered after it.
    expect((await send(head('Content-Length: 0\r\n'), enabled)).reloads).toBe(1);
    expect(reloadsLogged(exporter)).toBe(1);
  });

  it.each([
    ['a body by Content-Length', `${head('Content-Length: 5\r\n')}hello`],
    ['a chunked body', `${head('Transfer-Encoding: chunked\r\n')}5\r\nhello\r\n0\r\n\r\n`],
    ['no body', head('')],
  ])('%s is read (and ignored) and the reload runs', async (_name, request) => {
    const answer = await send(request, enabled);
    expect(answer.status).toBe(200);
    expect(answer.reloads).toBe(1);
  });

  it('a client that expects 100-continue is invited to send its body, then reloaded', async () => {
    const answer = await send(`${head('Expect: 100-continue\r\nContent-Length: 5\r\n')}hello`, enabled);
    expect(answer.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    expect(answer.status).toBe(200);
    expect(answer.reloads).toBe(1);
  });

  it('sends 100 Continue exactly when Node reads the request as expecting it (found by review)', async () => {
    // A list with 100-continue in it: Node hands it over as expecting 100, so it is invited.
    const listed = await send(`${head('Expect: 100-continue, x-other\r\nContent-Length: 5\r\n')}hello`, enabled);
    expect(listed.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    expect(listed.status).toBe(200);
    // HTTP/1.0: the expectation is ignored (RFC 9110 §10.1.1), no 1xx that a 1.0 client could take for the answer.
    const old = await send(`POST /-/reload HTTP/1.0\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello`, enabled);
    expect(old.text).not.toContain(' 100 ');
    expect(old.status).toBe(200);
    expect(listed.reloads + old.reloads).toBe(2);
  });

  it.each([
    ['declared', head(`Content-Length: ${MAX_IGNORED_BODY_BYTES + 1}\r\n`)],
    ['chunked', `${head('Transfer-Encoding: chunked\r\n')}${(MAX_IGNORED_BODY_BYTES + 1).toString(16)}\r\n${'x'.repeat(MAX_IGNORED_BODY_BYTES + 1)}\r\n`],
  ])('a body over the limit (%s) is refused with 413 and reloads nothing', async (_name, request) => {
    const answer = await send(request, enabled);
    expect(answer.status).toBe(413);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.reloads).toBe(0);
  });
});

describe('--web.enable-lifecycle', () => {
  it('is off unless given, and is carried into the config (applied again at each reload)', () => {
    const config = testConfig({ routers: [{ name: 'hq', url: 'https://127.0.0.1:9', username: 'u', password: 'p' }] });
    expect(parseCli(['--config', 'x.yml'], {}).enableLifecycle).toBeUndefined();
    expect(applyOverrides(config, parseCli(['--config', 'x.yml'], {})).enableLifecycle).toBeUndefined();
    const options = parseCli(['--config', 'x.yml', '--web.enable-lifecycle'], {});
    expect(options.enableLifecycle).toBe(true);
    expect(applyOverrides(config, options).enableLifecycle).toBe(true);
  });
});

describe('crossSite', () => {
  const request = (host: string, origin: string, encrypted = false): IncomingMessage => ({ headers: { host, origin }, socket: { encrypted } }) as unknown as IncomingMessage;

  it.each([
    ['exp.example:443', 'https://exp.example', true, false],
    ['exp.example:80', 'http://exp.example', false, false],
    ['exp.example.:9436', 'http://exp.example:9436', false, false],
    ['[0:0:0:0:0:0:0:1]:9436', 'http://[::1]:9436', false, false],
    ['exp.example:9436', 'http://other.example:9436', false, true],
    ['exp.example', 'http://other.example', true, true],
    // A proxy that ends TLS and passes the name alone, to a plain-HTTP exporter (found by review).
    ['exp.example', 'https://exp.example', false, false],
    ['exp.example:8443', 'https://exp.example', false, true],
    // Another port of the same host, where Host gives the port: another origin.
    ['exp.example:9731', 'http://exp.example:8080', false, true],
    ['exp.example:80', 'https://exp.example', false, true],
  ])('Host %s, Origin %s (TLS %s): cross-site %s (found by review)', (host, origin, encrypted, cross) => {
    expect(crossSite(request(host, origin, encrypted))).toBe(cross);
  });

  it('reads a Referer where no Origin came (an image or a link to a plain-HTTP address sends only that; found by review)', () => {
    const referred = (host: string, referer: string, origin?: string): IncomingMessage =>
      ({ headers: { host, referer, ...(origin === undefined ? {} : { origin }) }, socket: {} }) as unknown as IncomingMessage;
    expect(crossSite(referred('exp.example:9731', 'http://exp.example:9731/graph?g0.expr=up'))).toBe(false);
    expect(crossSite(referred('exp.example:9731', 'http://evil.example/page.html'))).toBe(true);
    expect(crossSite(referred('exp.example:9731', 'http://exp.example:8080/'))).toBe(true);
    expect(crossSite(referred('exp.example:9731', 'not a url'))).toBe(true);
    // The Origin, when there is one, is what counts.
    expect(crossSite(referred('exp.example:9731', 'http://evil.example/', 'http://exp.example:9731'))).toBe(false);
  });
});
