/** Built-in defaults: what a key means when neither the router nor `defaults` sets it. */
import { byCollector, type CollectorName } from '../collectors/descriptors.js';
import type { Config, IdleConnection } from './types.js';

export const DEFAULT_LISTEN = '0.0.0.0:9731';
export const DEFAULT_LOG_LEVEL: Config['logLevel'] = 'info';
export const LOG_LEVELS: readonly Config['logLevel'][] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const DEFAULT_TIMEOUT_SECONDS = 10;
/** Kept: a steady state costs no TLS handshake per cycle (and no login line per cycle in the router's log). */
export const DEFAULT_IDLE_CONNECTION: IdleConnection = 'keep';

/** Each collector's default schedule and on/off state, from its catalog descriptor. */
export const DEFAULT_SCHEDULES: Readonly<Record<CollectorName, string>> = byCollector((collector) => collector.defaultSchedule);
export const DEFAULT_COLLECTORS: Readonly<Record<CollectorName, boolean>> = byCollector((collector) => collector.defaultEnabled);

export const DEFAULT_HANDSHAKE_STALE_AFTER_SECONDS = 300;
export const DEFAULT_PING_LOSS_CRITICAL = 0.5;

export const DEFAULT_PING_COUNT = 3;
export const DEFAULT_PING_INTERVAL_SECONDS = 1;
/** RouterOS refuses shorter ping intervals. */
export const MIN_PING_INTERVAL_SECONDS = 0.01;
export const MAX_PING_COUNT = 100;
