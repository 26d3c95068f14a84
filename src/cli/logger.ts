/**
 * pino JSON logs. Secrets are `Secret`s already; redaction catches anything that slips through by name, and the
 * hooks (src/util/log-hooks.ts) scrub every line of known secrets, Authorization values and terminal controls.
 */
import { closeSync, constants, fstatSync, openSync, write, writeSync } from 'node:fs';
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
/** The daemon's last write to stdout failed (a full disk, a reader gone) and none has succeeded since. */
let writeFailing = false;

/**
 * Log lines held in memory, at most `maxBytes` of them, and written to stderr once the command's answer is out
 * (check). Written as they came, a monitoring system that reads stderr with stdout (Icinga) showed a JSON log line
 * as the status line, 300 dead routers wrote half a megabyte beside the answer, and a stderr reader that took
 * nothing held the check past its deadline (the writes were synchronous; found by review).
 */
export class HeldLogLines {
  readonly #maxBytes: number;
  readonly #lines: string[] = [];
  #bytes = 0;
  #dropped = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** pino's destination: a line is kept while it fits with room for the note, and counted once one did not. */
  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.#dropped > 0 || this.#bytes + bytes > this.#maxBytes - NOTE_ROOM) {
      this.#dropped++;
      return;
    }
    this.#lines.push(line);
    this.#bytes += bytes;
  }

  /** The lines held, then one saying how many were left out (a line in the same JSON shape). */
  text(): string {
    if (this.#dropped === 0) return this.#lines.join('');
    const note = { level: 'warn', time: new Date().toISOString(), service: 'routeros-exporter', dropped: this.#dropped, msg: `${this.#dropped} more log line(s) left out: at most ${this.#maxBytes} bytes of logs are written, after the answer` };
    return `${this.#lines.join('')}${JSON.stringify(note)}\n`;
  }

  /** Writes the lines to stderr without waiting for its reader (writeWithoutWaiting). Nothing is held after. */
  release(): void {
    const text = this.text();
    this.#lines.length = 0;
    this.#bytes = 0;
    this.#dropped = 0;
    if (text !== '') writeWithoutWaiting(2, text);
  }
}

/** Bytes kept free of lines for the note on those left out (~200 bytes), so lines and note fit the cap together. */
const NOTE_ROOM = 256;

/**
 * Writes `text` (at most a page) to `fd` now or never. A pipe is written through a descriptor of its own opened
 * non-blocking (Linux's /proc/self/fd), which refuses what would wait without changing the flags the pipe's other
 * holders see: a pipe already full took the write to the background, where the exit waited for it, past the
 * check's deadline (found by review). A page or less goes into a pipe whole or not at all. Anything else (a file,
 * a terminal; no /proc) is written in the background.
 */
function writeWithoutWaiting(fd: number, text: string): void {
  let fifo: boolean;
  try {
    fifo = fstatSync(fd).isFIFO();
  } catch {
    return;
  }
  if (fifo) {
    let own: number | undefined;
    try {
      own = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch {
      own = undefined;
    }
    if (own !== undefined) {
      try {
        writeSync(own, text);
      } catch {
        // Full (EAGAIN) or gone (EPIPE): the lines are dropped rather than waited for.
      } finally {
        closeSync(own);
      }
      return;
    }
  }
  write(fd, text, () => undefined);
}

/**
 * Logs go to stdout for the daemon; commands whose stdout is their answer log to stderr (once) or hold their lines
 * until it is written (check: HeldLogLines).
 */
export function createLogger(level: Config['logLevel'], destination: 1 | 2 | HeldLogLines = 1): Logger {
  const stream = destination instanceof HeldLogLines ? destination : fdDestination(destination);
  const logger = pinoOn(level, stream);
  if (!(destination instanceof HeldLogLines)) noteDroppedLines(stream as DropNoteDestination, logger);
  return logger;
}

/** The exporter's pino logger writing to `stream`. */
export function pinoOn(level: Config['logLevel'], stream: pino.DestinationStream): Logger {
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

/** What noteDroppedLines needs of a destination: its `drop` and `drain` events. */
type DropNoteDestination = Pick<Destination, 'on'> & { destroyed?: boolean };

/**
 * Says, in one warning through `logger`, how many lines `stream` dropped: while stdout's reader stalled and
 * MAX_PENDING_LOG_BYTES were held, or one line larger than that on its own. Dropped without a word before, a
 * line over the bound left an operator with nothing. The warning goes out on the turn after a drop; after it, the
 * next waits until the reader has taken all that was held (`drain`) and counts every line left out until then (the
 * first included, when it was dropped as well): at most two notes per stall, not one per dropped line.
 */
export function noteDroppedLines(stream: DropNoteDestination, logger: Logger): void {
  let dropped = 0;
  let noting = false;
  let noteLost = false;
  let due = false;
  let waitingForDrain = false;
  const note = (): void => {
    due = false;
    if (dropped === 0 || stream.destroyed === true) return;
    const count = dropped;
    noting = true;
    noteLost = false;
    try {
      logger.warn(
        { component: 'logging', dropped: count },
        `${count} log line(s) left out: stdout's reader did not take them in time (at most ${MAX_PENDING_LOG_BYTES} bytes are held for it), or a line was larger than that on its own`,
      );
    } finally {
      noting = false;
    }
    if (!noteLost) dropped -= count;
    waitingForDrain = true;
  };
  const noteSoon = (): void => {
    if (due) return;
    due = true;
    setImmediate(note).unref();
  };
  stream.on('drop', () => {
    if (noting) {
      noteLost = true;
      return;
    }
    dropped++;
    if (!waitingForDrain) noteSoon();
  });
  stream.on('drain', () => {
    waitingForDrain = false;
    if (dropped > 0) noteSoon();
  });
}

function fdDestination(fd: 1 | 2): Destination {
  const sync = fd === 2;
  const stream = pino.destination({
    fd,
    sync,
    ...(sync ? {} : { maxLength: MAX_PENDING_LOG_BYTES, retryEAGAIN: () => Date.now() < giveUpAt }),
  });
  if (!sync) asynchronous = stream;
  // A write that fails (ENOSPC: the disk under a log file is full; EPIPE, EIO) is no reason to stop collecting: the
  // daemon's lines wait, up to MAX_PENDING_LOG_BYTES, for the next line's write to succeed, and those past that are
  // counted (noteDroppedLines); a command's stderr line is dropped. Unheard, the error ended the daemon through its
  // exit, where the flush retried the failing write every 100 ms for good (no HTTP answers, SIGTERM ignored, until
  // the disk had room), and aborted `once` at its first warning with no exposition written (found by a hostile tester).
  stream.on('error', () => {
    writeFailing = true;
  });
  stream.on('write', () => {
    writeFailing = false;
  });
  // The flush pino makes as the process exits retries any failing write but a refusal without end: while writes
  // fail, what is held is dropped instead (a stopped daemon whose stdout is on a full disk never exited).
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = (): void => {
    if (!writeFailing) flushSync();
  };
  return stream;
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
    // Nothing while writes fail (fdDestination).
    stream.flushSync();
  } catch {
    // The reader took nothing within the time: what is held is dropped.
  }
  // A destination let go of is one pino's own flush at exit passes over.
  stream.destroy();
}
