/**
 * V8's full garbage collection, for tests that measure what stays alive. `--expose-gc` set at run time does not add
 * `gc` to a context that already exists, so the function is taken from a new one.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

export const gc = runInNewContext('gc') as () => void;

/** The V8 heap in use after two full collections (the second finishes what finalisers of the first left). */
export function heapAfterCollection(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
