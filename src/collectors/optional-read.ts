/**
 * A read that only adds to a run: the router's uptime (a grace for peers after a reboot), its addresses (the tunnel
 * probes' sources), the ethernet link rates. Its failure leaves that part out of the run and fails nothing else: one
 * such read failing took the whole run with it, every peer "state unknown" or every interface series gone (found by
 * hostile testers). A stop is a stop: a read aborted with the run ends it. Each read made goes to `reads`, answered
 * or failed with why, for the job to log: a monitoring user whose group cannot run the ethernet monitor had no link
 * rates and no word of why.
 */
import { RouterOsError } from '../routeros/errors.js';
import type { JobContext, OptionalRead } from './types.js';

export async function readUnlessFailed<T>(
  context: Pick<JobContext, 'signal'>,
  read: () => Promise<T>,
  what: string,
  reads: OptionalRead[],
): Promise<T | undefined> {
  try {
    const value = await read();
    reads.push({ what });
    return value;
  } catch (error) {
    if (context.signal.aborted) throw error;
    // The client's messages are bounded and hold no secret (they are what a failed run logs); anything else is a
    // defect of ours, whose text is not the router's to show. The cause is the error's code alone, one of a closed
    // set: the HTTP status is whatever the far end sends, and a gateway answering 502 and 503 in turn was a new
    // cause, so a warning, every run (found by review).
    const failure =
      error instanceof RouterOsError ? { cause: error.code, message: error.message } : { cause: 'unexpected', message: 'the read failed unexpectedly' };
    reads.push({ what, failure });
    return undefined;
  }
}
