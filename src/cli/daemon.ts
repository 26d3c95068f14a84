/**
 * The long-running daemon: app + HTTP server + signals. SIGHUP reloads; SIGTERM/SIGINT stop the schedules,
 * abort in-flight requests, close the server and exit 0 within 10 s.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { releaseLogs } from './logger.js';
import { createApp, type App, type AppDeps } from '../app.js';
import type { Config } from '../config/types.js';
import { closeServer, serverUrl, startServer } from '../server/listen.js';
import { WebConfigSource } from '../server/web-source.js';
import { limitBufferPool } from '../util/buffer-pool.js';
import { limitHeapGrowth } from '../util/heap-growth.js';
import { capYoungGeneration } from '../util/young-generation.js';
import { VERSION } from '../version.js';
import type { StartingSignals } from './starting-signals.js';

export const SHUTDOWN_DEADLINE_MS = 10_000;

export interface Daemon {
  app: App;
  server: Server;
  url: string;
  shutdown(signal: string): Promise<void>;
}

export async function startDaemon(
  config: Config,
  logger: Logger,
  loadConfig: AppDeps['loadConfig'],
  onStopped: () => Promise<void> = async () => {},
): Promise<Daemon> {
  // Before any router is polled: every TLS connection keeps a few pool bytes for its life (buffer-pool.ts).
  limitBufferPool();
  // Before the first collection: what each cycle keeps is garbage in the old generation a cycle later (heap-growth.ts).
  limitHeapGrowth();
  // An invalid web config stops the start here, before any router is polled (ConfigError, path web_config_file).
  const web = new WebConfigSource(config.webConfigFile, { logger });
  const app = createApp(config, {
    logger,
    prepareReload: (next) => web.prepare(next.webConfigFile, next.source),
    ...(loadConfig === undefined ? {} : { loadConfig }),
  });
  // And its young generation, which V8 lets grow far past what a cycle needs and keeps (young-generation.ts). Here,
  // where nothing above can fail any more: a stop below gives V8 its own growth back.
  const youngGeneration = capYoungGeneration();
  let server: Server;
  try {
    server = await startServer(app, config.listen, { web, logger });
  } catch (error) {
    try {
      await app.stop();
    } finally {
      youngGeneration?.stop();
    }
    throw error;
  }
  try {
    app.start();
  } catch (error) {
    // A daemon that started half-way (some schedules on, the listener open) would answer unready for good and never
    // exit: it is stopped and closed, within the shutdown's deadline, and the start's error ends the start.
    const deadline = setTimeout(() => {
      logger.error('stopping after a failed start took past the shutdown deadline; exiting');
      releaseLogs();
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      await app.stop();
    } catch (stopError) {
      logger.error({ err: stopError }, 'stopping after a failed start failed too');
    } finally {
      youngGeneration?.stop();
      await closeServer(server, SHUTDOWN_DEADLINE_MS / 2);
      clearTimeout(deadline);
    }
    throw error;
  }
  const url = serverUrl(server);
  logger.info(
    { listen: config.listen, url, routers: config.routers.length, version: VERSION, tls: web.https, basic_auth: (web.current()?.users.size ?? 0) > 0 },
    'routeros-exporter started',
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ signal }, 'shutting down');
      const deadline = setTimeout(() => {
        logger.error('shutdown deadline passed; exiting anyway');
        releaseLogs();
        process.exit(0);
      }, SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      try {
        await app.stop();
        await closeServer(server, SHUTDOWN_DEADLINE_MS / 2);
        await onStopped();
      } finally {
        youngGeneration?.stop();
      }
      clearTimeout(deadline);
      logger.info('stopped');
      logger.flush?.();
    })();
    return stopping;
  };
  return { app, server, url, shutdown };
}

/** Wires process signals to a daemon; resolves when it has stopped. A SIGHUP held while it started reloads now. */
export function handleSignals(daemon: Daemon, logger: Logger, starting?: StartingSignals): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const reload = (): void => {
      // Once shutting down, a reload would start what is being stopped (and log a success for it).
      if (stopping) return;
      logger.info('SIGHUP: reloading configuration');
      void daemon.app.reload();
    };
    const stop = (signal: string): void => {
      // A second SIGTERM or Ctrl-C while stopping is ignored: without a listener it would end the process by the
      // signal, before the demo's cleanup and with no exit code.
      if (stopping) return;
      stopping = true;
      // The SIGHUP listener stays: without one, a SIGHUP while the process exits would end it by the signal.
      void daemon.shutdown(signal).then(resolve);
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', reload);
    // After its own listener is on, so that no SIGHUP finds none.
    starting?.release();
    if (starting?.reloadWanted === true) {
      logger.info('SIGHUP while starting: reloading configuration');
      void daemon.app.reload();
    }
  });
}
