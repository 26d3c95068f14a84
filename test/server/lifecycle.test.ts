/**
 * POST /-/reload is off unless enabled (--web.enable-lifecycle, like Prometheus) or only Basic users reach
 * it; other methods answer 405 with Allow: POST. The flag is parsed and carried into the config.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { applyOverrides } from '../../src/cli/overrides.js';
import { rawRequest } from './raw-client.js';
import { startExporter, WEB_AUTH, type Exporter, type ExporterOptions } from './exporter.js';
import { testConfig } from '../helpers/config.js';

let exporter: Exporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
});

async function reload(options: ExporterOptions, method = 'POST', auth = false): Promise<{ status: number | undefined; text: string; reloads: number }> {
  exporter ??= await startExporter(options);
  const before = exporter.logs.lines().filter((line) => line.msg === 'configuration reloaded').length;
  const answer = await rawRequest(`${method} /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${auth ? `Authorization: ${WEB_AUTH}\r\n` : ''}\r\n`, {
    port: exporter.port,
  });
  const after = exporter.logs.lines().filter((line) => line.msg === 'configuration reloaded').length;
  return { status: answer.status, text: answer.text, reloads: after - before };
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
