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

type Destination = ReturnType<typeof pino.destination>;

/**
 * The most bytes of log lines held while stdout's reader does not take them (a stalled journald or container log
 * pipe); lines past it are dropped rather than held without bound (RSS grew 10 MB a minute with one stalled).
 */
const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;
/** How long the last lines may wait for a stalled reader once the process is to exit (releaseLogs). */
const RELEASE_MS = 1_000;

/** The daemon's asynchronous log destination, which releaseLogs lets go of. */
let asynchronous: Destination | undefined;
/** Once set: a write the reader refuses (EAGAIN) is retried only until then. */
let giveUpAt = Number.POSITIVE_INFINITY;

/** Logs go to stdout for the daemon; commands whose stdout is their answer (once, check) log to stderr. */
export function createLogger(level: Config['logLevel'], destination: 1 | 2 = 1): Logger {
  const sync = destination === 2;
  const stream = pino.destination({
    fd: destination,
    sync,
    ...(sync ? {} : { maxLength: MAX_PENDING_LOG_BYTES, retryEAGAIN: () => Date.now() < giveUpAt }),
  });
  if (!sync) asynchronous = stream;
  return pino(
    {
      level,
      base: { service: 'routeros-exporter' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: LOG_HOOKS,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}

/**
 * Before the process exits: the log lines still held are written if stdout's reader takes them within RELEASE_MS,
 * else dropped. pino writes what it holds at exit itself, retrying for as long as the reader refuses: with a stalled
 * reader (a full pipe) SIGTERM stopped everything and then never exited, past the shutdown's deadline, until the
 * supervisor killed it (found by review).
 */
export function releaseLogs(): void {
  const stream = asynchronous;
  if (stream === undefined || (stream as { destroyed?: boolean }).destroyed === true) return;
  giveUpAt = Date.now() + RELEASE_MS;
  try {
    stream.flushSync();
  } catch {
    // The reader took nothing within the time: what is held is dropped.
  }
  // A destination let go of is one pino's own flush at exit passes over.
  stream.destroy();
}
