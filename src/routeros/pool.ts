/**
 * One client per router, kept across reloads while the router's connection settings stay the same,
 * so keep-alive connections survive a reload (each new connection is a login line in the router's log).
 */
import { createHash } from 'node:crypto';
import type { RouterConfig } from '../config/types.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { runSchedules } from '../config/runs.js';
import { DEFAULT_KEEP_ALIVE_MS, RouterOsClient } from './client.js';

/** Room past the shortest schedule: run times and jitter move a cycle's first request by a few seconds. */
const KEEP_ALIVE_MARGIN_MS = 10_000;
/** Past this an idle connection costs the router more than the rare reconnect (which resumes) costs us. */
const KEEP_ALIVE_MAX_MS = 300_000;

/**
 * How long to keep an idle connection: just past the router's shortest schedule, so every cycle finds the one
 * it left (a router that announces a shorter keep-alive still closes it first; the reconnect then resumes).
 */
export function keepAliveMsFor(router: RouterConfig): number {
  let shortest: number | undefined;
  for (const schedule of runSchedules(router)) {
    try {
      const seconds = cronIntervalSeconds(schedule);
      if (shortest === undefined || seconds < shortest) shortest = seconds;
    } catch {
      // Schedules are validated at load; an unreadable one sets no policy.
    }
  }
  if (shortest === undefined) return DEFAULT_KEEP_ALIVE_MS;
  return Math.min(KEEP_ALIVE_MAX_MS, Math.max(DEFAULT_KEEP_ALIVE_MS, shortest * 1000 + KEEP_ALIVE_MARGIN_MS));
}

/**
 * What a client is built from: URL, credentials, timeout, what becomes of an idle connection and TLS (the CA's
 * text, not its path: a moved file with the same certificates changes nothing). The scheduler's job definitions
 * count the same settings.
 */
export function connectionSettings(router: RouterConfig): unknown[] {
  return [
    router.url,
    router.username,
    router.password.reveal(),
    router.timeoutSeconds,
    router.idleConnection,
    router.tls.ca ?? null,
    router.tls.serverName ?? null,
    router.tls.insecureSkipVerify,
  ];
}

function connectionKey(router: RouterConfig): string {
  // A digest, so the key never holds the password itself.
  return createHash('sha256').update(JSON.stringify(connectionSettings(router))).digest('hex');
}

export class ClientPool {
  #clients = new Map<string, { router: RouterConfig; key: string; keepAliveMs: number; client: RouterOsClient }>();

  /**
   * The router's client, kept while its connection settings stay and its keep-alive is long enough for its
   * schedules: a reload that moved the shortest schedule past it (every 15 s to every 2 min) kept the client with
   * its 30 s, and every cycle found its connection closed (a reconnect, a login line in the router's log), where a
   * restart would not have. A new client for that is one reconnect; a keep-alive longer than needed is kept.
   */
  clientFor(router: RouterConfig): RouterOsClient {
    const existing = this.#clients.get(router.name);
    // The same settings object as last time: nothing to hash (a discovered target's load asks for every router).
    if (existing?.router === router) return existing.client;
    const key = connectionKey(router);
    const keepAliveMs = keepAliveMsFor(router);
    if (existing !== undefined && existing.key === key && existing.keepAliveMs >= keepAliveMs) {
      existing.router = router;
      return existing.client;
    }
    if (existing !== undefined) void existing.client.close();
    const client = new RouterOsClient({
      url: router.url,
      username: router.username,
      password: router.password,
      timeoutMs: router.timeoutSeconds * 1000,
      keepAliveMs,
      closeIdle: router.idleConnection === 'close',
      tls: {
        ...(router.tls.ca === undefined ? {} : { ca: router.tls.ca }),
        ...(router.tls.serverName === undefined ? {} : { serverName: router.tls.serverName }),
        insecureSkipVerify: router.tls.insecureSkipVerify,
      },
    });
    this.#clients.set(router.name, { router, key, keepAliveMs, client });
    return client;
  }

  /** Closes the clients of routers that are no longer configured. */
  retain(names: ReadonlySet<string>): void {
    for (const [name, entry] of this.#clients) {
      if (!names.has(name)) {
        void entry.client.close();
        this.#clients.delete(name);
      }
    }
  }

  async closeAll(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.allSettled(clients.map((entry) => entry.client.close()));
  }
}
