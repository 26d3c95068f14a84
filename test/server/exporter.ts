/**
 * The exporter's real server for these tests: createApp + startServer on 127.0.0.1, with one configured
 * router that is never polled (nothing is started), optionally behind a web config with a Basic user.
 */
import type { Server } from 'node:http';
import bcrypt from 'bcryptjs';
import { createApp, type App } from '../../src/app.js';
import type { ServerLimits } from '../../src/server/guard.js';
import { closeServer, startServer } from '../../src/server/listen.js';
import { WebConfigSource } from '../../src/server/web-source.js';
import { testConfig } from '../helpers/config.js';
import type { Config } from '../../src/config/types.js';
import { tempFile } from '../helpers/emulator-config.js';
import { captureLogs } from '../helpers/log-capture.js';
import { makeCert } from '../security/tls-helpers.js';

export const WEB_USER = 'prometheus';
export const WEB_PASSWORD = 'fuzz-web-password';
export const WEB_AUTH = `Basic ${Buffer.from(`${WEB_USER}:${WEB_PASSWORD}`).toString('base64')}`;

export interface Exporter {
  app: App;
  server: Server;
  port: number;
  logs: ReturnType<typeof captureLogs>;
  close(): Promise<void>;
}

export interface ExporterOptions {
  basicAuth?: boolean;
  /** With basicAuth: the web config's http_server_config.headers too (X-Content-Type-Options: nosniff). */
  headers?: boolean;
  enableLifecycle?: boolean;
  limits?: Partial<ServerLimits>;
  /** Configured routers (never polled); default 1. */
  routers?: number;
  /** Serve HTTPS with a self-signed certificate (the web config's tls_server_config). */
  tls?: boolean;
  /** What a reload reads (the app's loadConfig); absent: the running config again. */
  loadConfig?: () => Promise<Config>;
}

export async function startExporter(options: ExporterOptions = {}): Promise<Exporter> {
  const logs = captureLogs();
  const cert = options.tls === true ? await makeCert() : undefined;
  const webText =
    (options.basicAuth === true ? `basic_auth_users: { ${WEB_USER}: "${bcrypt.hashSync(WEB_PASSWORD, 4)}" }\n` : '') +
    (options.basicAuth === true && options.headers === true ? 'http_server_config: { headers: { X-Content-Type-Options: nosniff } }\n' : '') +
    (cert === undefined ? '' : `tls_server_config: { cert_file: "${tempFile('cert.pem', cert.cert)}", key_file: "${tempFile('key.pem', cert.key)}" }\n`);
  const web = webText === '' ? undefined : new WebConfigSource(tempFile('web.yml', webText), { logger: logs.logger });
  const config = testConfig({
    listen: '127.0.0.1:0',
    defaults: { username: 'monitor', password: 'not-a-real-password' },
    // Never polled: the app is not started, so no connection is ever tried.
    routers: Array.from({ length: options.routers ?? 1 }, (_, i) => ({ name: i === 0 ? 'hq' : `branch-${i}`, url: 'https://127.0.0.1:9' })),
  });
  const app = createApp(options.enableLifecycle === true ? { ...config, enableLifecycle: true } : config, {
    logger: logs.logger,
    jitter: false,
    ...(options.loadConfig === undefined ? {} : { loadConfig: options.loadConfig }),
  });
  const server = await startServer(app, '127.0.0.1:0', { logger: logs.logger, ...(web === undefined ? {} : { web }), limits: options.limits ?? {} });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    app,
    server,
    port,
    logs,
    close: async () => {
      await closeServer(server, 500);
      await app.stop();
    },
  };
}
