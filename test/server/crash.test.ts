/**
 * No request ends the process: targets `new URL()` refuses (`//` ended the daemon, the demo and the emulator),
 * absolute-form and asterisk-form targets, CONNECT, and a route that throws all get an HTTP answer, with and
 * without Basic authentication in front.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './raw-client.js';
import { startExporter, WEB_AUTH, type Exporter } from './exporter.js';

const escaped: unknown[] = [];
const onEscape = (error: unknown): void => void escaped.push(error);

beforeAll(() => {
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
afterAll(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

describe.each([
  ['without authentication', false],
  ['behind Basic authentication', true],
])('the exporter %s', (_name, basicAuth) => {
  let exporter: Exporter;
  beforeAll(async () => {
    exporter = await startExporter({ basicAuth });
  });
  afterAll(async () => exporter.close());
  afterEach(() => expect(escaped).toEqual([]));

  const send = (line: string, headers = ''): ReturnType<typeof rawRequest> =>
    rawRequest(`${line}\r\nHost: x\r\n${basicAuth ? `Authorization: ${WEB_AUTH}\r\n` : ''}${headers}\r\n`, { port: exporter.port });

  it('answers GET // with 404 and keeps serving', async () => {
    expect((await send('GET // HTTP/1.1')).status).toBe(404);
    expect((await send('GET /metrics HTTP/1.1')).status).toBe(200);
  });

  it.each([
    ['GET /// HTTP/1.1', 404],
    ['GET //metrics HTTP/1.1', 404],
    ['GET /%zz HTTP/1.1', 400],
    ['GET /%2F HTTP/1.1', 400],
    ['GET * HTTP/1.1', 400],
    ['OPTIONS * HTTP/1.1', 400],
    ['GET ftp://x/metrics HTTP/1.1', 400],
    ['GET http://x/metrics HTTP/1.1', 200],
    ['GET http://[::1 HTTP/1.1', 200],
    ['GET https:// HTTP/1.1', 200],
    ['DELETE /metrics HTTP/1.1', 405],
    ['CONNECT x:443 HTTP/1.1', 405],
  ])('%s answers %i', async (line, status) => {
    const answer = await send(line);
    expect(answer.status, answer.statusLine).toBe(status);
  });

  it('answers a request without credentials with 401 whatever its target', async () => {
    if (!basicAuth) return;
    for (const target of ['//', '/metrics', 'http://x/metrics']) {
      expect((await rawRequest(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`, { port: exporter.port })).status).toBe(401);
    }
  });
});

describe('a route that throws', () => {
  it('answers 500, logs one line and the server keeps serving', async () => {
    const exporter = await startExporter();
    try {
      const render = exporter.app.exposition.render.bind(exporter.app.exposition);
      exporter.app.exposition.render = () => {
        throw new Error('boom');
      };
      expect((await rawRequest('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n', { port: exporter.port })).status).toBe(500);
      expect(exporter.logs.lines().filter((line) => line.msg === 'request failed')).toHaveLength(1);
      exporter.app.exposition.render = render;
      expect((await rawRequest('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n', { port: exporter.port })).status).toBe(200);
      expect(escaped).toEqual([]);
    } finally {
      await exporter.close();
    }
  });
});
