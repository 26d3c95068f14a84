/** Built-in defaults: what a key means when neither the router nor `defaults` sets it. */
import type { CollectorName, Config } from './types.js';

export const DEFAULT_LISTEN = '0.0.0.0:9731';
export const DEFAULT_LOG_LEVEL: Config['logLevel'] = 'info';
export const LOG_LEVELS: readonly Config['logLevel'][] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const DEFAULT_TIMEOUT_SECONDS = 10;

export const DEFAULT_SCHEDULES: Readonly<Record<CollectorName, string>> = {
  system: '*/15 * * * * *',
  wireguard: '*/15 * * * * *',
  // The set-up audit reads addresses, routes and firewall rules: heavier, and they rarely change.
  wireguard_setup: '0 */5 * * * *',
  ping: '*/30 * * * * *',
  bandwidth_test: '0 0 3 * * *',
};

export const DEFAULT_COLLECTORS: Readonly<Record<CollectorName, boolean>> = {
  system: true,
  wireguard: true,
  // Off by default: it needs read access to the firewall and routes, which some users do not grant.
  wireguard_setup: false,
  // These two only run for routers with targets configured.
  ping: true,
  bandwidth_test: true,
};

export const DEFAULT_HANDSHAKE_STALE_AFTER_SECONDS = 300;
export const DEFAULT_PING_LOSS_CRITICAL = 0.5;

export const DEFAULT_PING_COUNT = 3;
export const DEFAULT_PING_INTERVAL_SECONDS = 1;
/** RouterOS refuses shorter ping intervals. */
export const MIN_PING_INTERVAL_SECONDS = 0.01;
export const MAX_PING_COUNT = 100;
