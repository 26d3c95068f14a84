/**
 * Logs verdict changes as collections land: after each recorded run the router is evaluated again and its
 * states compared with the last ones (changes.ts). One pino child per router; lines carry an `event` field.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import { diff, observe, type Observed } from './changes.js';
import { evaluateRouter } from './evaluate.js';

export interface WatchDeps {
  store: Pick<SnapshotStore, 'subscribe' | 'snapshots'>;
  /** The current config (it changes on reload). */
  config: () => Config;
  logger: Logger;
  now?: () => number;
}

/** Starts logging verdict changes; returns the function that stops it. */
export function watchVerdicts(deps: WatchDeps): () => void {
  const now = deps.now ?? Date.now;
  const states = new Map<string, Observed>();
  const loggers = new Map<string, Logger>();
  return deps.store.subscribe((name) => {
    const router = deps.config().routers.find((candidate) => candidate.name === name);
    if (router === undefined) {
      states.delete(name);
      loggers.delete(name);
      return;
    }
    const evaluation = evaluateRouter(router, deps.store.snapshots(name), now());
    const { lines, next } = diff(states.get(name), observe(evaluation, router), evaluation.seen);
    states.set(name, next);
    if (lines.length === 0) return;
    let logger = loggers.get(name);
    if (logger === undefined) {
      logger = deps.logger.child({ router: name, component: 'health' });
      loggers.set(name, logger);
    }
    for (const line of lines) logger[line.level](line.fields, line.message);
  });
}
