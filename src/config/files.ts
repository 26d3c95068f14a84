import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';

/** A file's text, or why it could not be read: `error` names the file, `reason` alone does not (password_file). */
export type ReadResult = { path: string; text: string } | { path: string; error: string; reason: string };

const WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent is not a directory',
};

/** What a path is when it is not a regular file: the reason a config file is refused. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * A config-named path that is not a regular file. Reading a FIFO blocks until someone writes to it, and a
 * device like /dev/zero never ends: either would hang loading, reload and shutdown. Code `ENOTREG`.
 */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  /** Like "it is a FIFO (named pipe), not a regular file". */
  readonly reason: string;

  constructor(path: string, stats: Stats) {
    const kind = kindOf(stats);
    const reason = stats.isDirectory() ? 'it is a directory (EISDIR)' : `it is ${kind}, not a regular file`;
    super(`${JSON.stringify(path)}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * The largest file the config names (itself, a password_file, a CA bundle, a web certificate): far above any
 * real one (a 5,000-router config is ~1.5 MB, the system's CA bundle ~0.2 MB), and small enough that a path
 * pointing at a disk image or a log fails at once instead of filling memory (a 200 MB password_file ran the
 * loader out of heap, which no catch can turn into a problem).
 */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A config-named file larger than MAX_FILE_BYTES. Code `EFBIG`. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'EFBIG';
  readonly reason: string;

  constructor(path: string, size: number) {
    const reason = `it is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB (${size} bytes): not a file the config can name`;
    super(`${JSON.stringify(path)}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * A config-named file that is not UTF-8 text. Decoded anyway, each bad byte became U+FFFD: a password file
 * saved as Latin-1 (`p\xe4ssword`) loaded, and the exporter sent another password than the file's. Code
 * `ENOTUTF8`.
 */
export class NotUtf8Error extends Error {
  readonly code = 'ENOTUTF8';
  readonly reason = 'it is not UTF-8 text (save it as UTF-8; a PEM certificate is ASCII)';
  /** Where the first byte that is not UTF-8 is: 1-based line, and column in bytes (for the config file itself). */
  readonly line: number;
  readonly column: number;

  constructor(path: string, bytes: Uint8Array) {
    super(`${JSON.stringify(path)}: it is not UTF-8 text`);
    const at = firstNonUtf8(bytes);
    const lineStart = bytes.lastIndexOf(0x0a, at - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
    this.line = line;
    this.column = at - lineStart + 1;
  }
}

/**
 * The offset of the first byte where `bytes` stops being UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF, no sequence cut short), or -1 when all of it is.
 */
export function firstNonUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const follow = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (follow === 0 || i + follow >= bytes.length) return i;
    for (let k = 1; k <= follow; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return i;
    const second = bytes[i + 1] as number;
    if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second > 0x9f) || (lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second > 0x8f)) return i;
    i += follow + 1;
  }
  return -1;
}

/** The bytes as text, refusing what is not UTF-8 (NotUtf8Error). */
function utf8Text(path: string, bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new NotUtf8Error(path, bytes);
  return bytes.toString('utf8');
}

// O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer before fstat can look at it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a regular file as UTF-8; refuses FIFOs, devices, sockets and directories without blocking on them, and
 * bytes that are not UTF-8.
 */
export function readRegularFileSync(path: string): string {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
    if (stats.size > MAX_FILE_BYTES) throw new FileTooLargeError(path, stats.size);
    return utf8Text(path, readFileSync(fd));
  } finally {
    closeSync(fd);
  }
}

/** The same, without holding the event loop for the read. */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, stats);
    if (stats.size > MAX_FILE_BYTES) throw new FileTooLargeError(path, stats.size);
    return utf8Text(path, await handle.readFile());
  } finally {
    await handle.close();
  }
}

/** A short reason for a failed read: words and the errno code, never the file's contents. */
export function readFailure(error: unknown): string {
  if (error instanceof NotRegularFileError || error instanceof FileTooLargeError || error instanceof NotUtf8Error) return error.reason;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? 'unreadable' : `${WORDS[code] ?? 'unreadable'} (${code})`;
}

/** The longest text quoted as a path in a message: far above a real one, far below a pasted key or certificate. */
const QUOTED_PATH_CHARS = 1024;

/**
 * A config-named path as a message may show it: quoted when it can be a path, described otherwise. A PEM block
 * pasted in place of a path (`key_file: |` and the key) was quoted whole by check-config, the reload's answer and
 * the log (found by review); text with line breaks or other control characters, a PEM marker, or longer than any
 * path is no path anyone meant, and may be a secret.
 */
export function shownPath(given: string, resolved: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  if (/[\u0000-\u001f\u007f-\u009f]/.test(given) || given.includes('-----') || resolved.length > QUOTED_PATH_CHARS) {
    return 'the file it names (not shown: text with line breaks, a PEM marker or over 1,024 characters is no path; give the path of the file that holds it)';
  }
  return JSON.stringify(resolved);
}

/**
 * Reads files named in the config, relative to the config's folder, once each (many routers often share
 * one password_file or CA bundle). Errors become short reasons; file contents never reach a message.
 * Only regular files are read (readRegularFileSync) unless a test passes its own reader.
 */
export function makeFileReader(baseDir: string, readFile: (path: string) => string = readRegularFileSync): (file: string) => ReadResult {
  const cache = new Map<string, ReadResult>();
  return (file) => {
    const path = resolve(baseDir, file);
    let result = cache.get(path);
    if (result === undefined) {
      try {
        result = { path, text: readFile(path) };
      } catch (error) {
        const reason = readFailure(error);
        result = { path, error: `cannot read ${shownPath(file, path)}: ${reason}`, reason };
      }
      cache.set(path, result);
    }
    return result;
  };
}
