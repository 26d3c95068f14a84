/**
 * The server depends on a narrow interface (server/endpoints.ts), not on the whole app, and /health judges with
 * the app's injected clock rather than the wall clock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { closeServer, serverUrl, startServer } from '../../src/server/listen.js';
import type { HealthReport } from '../../src/health/types.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/log-capture.js';

const SERVER_DIR = new URL('../../src/server/', import.meta.url);
const APP_CLOCK = Date.UTC(2031, 0, 2, 3, 4, 5);

describe('the server and the app', () => {
  it('no file of src/server imports the app', () => {
    const files = readdirSync(SERVER_DIR).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) {
      const text = readFileSync(join(SERVER_DIR.pathname, name), 'utf8');
      expect(text, name).not.toMatch(/from '\.\.\/app\.js'/);
    }
  });

  describe('/health with an injected clock', () => {
    let app: App;
    let server: Server;
    beforeAll(async () => {
      const config = testConfig({
        listen: '127.0.0.1:0',
        defaults: { username: 'monitor', password: 'not-a-real-password' },
        routers: [{ name: 'hq', url: 'https://192.0.2.1' }],
      });
      app = createApp(config, { logger: captureLogs().logger, now: () => APP_CLOCK });
      server = await startServer(app, config.listen);
    });
    afterAll(async () => {
      await app.stop();
      await closeServer(server, 1_000);
    });

    it('checks at the app clock, not the wall clock', async () => {
      const body = (await (await fetch(`${serverUrl(server)}/health`)).json()) as HealthReport;
      expect(body.checkedAt).toBe(new Date(APP_CLOCK).toISOString());
    });

    it("serves the scheduler's runs in flight by cap on /metrics (nothing started: none)", async () => {
      const body = await (await fetch(`${serverUrl(server)}/metrics`)).text();
      expect(body).toContain('routeros_exporter_runs_in_flight{cap="quick"} 0\n');
      expect(body).toContain('routeros_exporter_runs_queued{cap="waiting"} 0\n');
    });
  });
});
