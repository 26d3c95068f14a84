/**
 * A command's answer on stdout. A stdout that cannot be written (its file on a full disk: ENOSPC; a reader gone:
 * EPIPE) fails the write with one clear error: stdout then also emits `error`, and with no listener that ended the
 * process with a raw stack trace and status 1, which Nagios reads as WARNING (found by a hostile tester).
 */

let listening = false;

/** Writes `data` to stdout; resolves once it is written, rejects with `cannot write to stdout: CODE` if it cannot be. */
export function writeStdout(data: string | Uint8Array): Promise<void> {
  if (!listening) {
    listening = true;
    // The write's callback says what failed; the stream's `error`, emitted after it, has nothing to add.
    process.stdout.on('error', () => undefined);
  }
  return new Promise((resolve, reject) => {
    process.stdout.write(data, (error) => {
      if (error === null || error === undefined) resolve();
      else reject(new Error(`cannot write to stdout: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    });
  });
}
