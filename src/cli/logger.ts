/**
 * pino JSON logs. Secrets are `Secret`s already; redaction catches anything that slips through by name, and the
 * hooks (src/util/log-hooks.ts) scrub every line of known secrets, Authorization values and terminal controls.
 */
import pino, { type Logger } from 'pino';
import type { Config } from '../config/types.js';
import { LOG_HOOKS } from '../util/log-hooks.js';

export { LOG_HOOKS };

export const REDACT_PATHS = [
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'privateKey',
  '*.privateKey',
  'presharedKey',
  '*.presharedKey',
];

/** Logs go to stdout for the daemon; commands whose stdout is their answer (once, check) log to stderr. */
export function createLogger(level: Config['logLevel'], destination: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'routeros-exporter' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: LOG_HOOKS,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ fd: destination, sync: destination === 2 }),
  );
}
