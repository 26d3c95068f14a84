import { resolve } from 'node:path';

export type ReadResult = { path: string; text: string } | { path: string; error: string };

const WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent is not a directory',
};

/**
 * Reads files named in the config, relative to the config's folder, once each (many routers often share
 * one password_file or CA bundle). Errors become short reasons; file contents never reach a message.
 */
export function makeFileReader(baseDir: string, readFile: (path: string) => string): (file: string) => ReadResult {
  const cache = new Map<string, ReadResult>();
  return (file) => {
    const path = resolve(baseDir, file);
    let result = cache.get(path);
    if (result === undefined) {
      try {
        result = { path, text: readFile(path) };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException | undefined)?.code;
        const reason = code === undefined ? 'unreadable' : `${WORDS[code] ?? 'unreadable'} (${code})`;
        result = { path, error: `cannot read ${JSON.stringify(path)}: ${reason}` };
      }
      cache.set(path, result);
    }
    return result;
  };
}
