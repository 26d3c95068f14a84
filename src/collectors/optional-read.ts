/**
 * A read that only adds to a run: the router's uptime (a grace for peers after a reboot), its addresses (the tunnel
 * probes' sources), the ethernet link rates. Its failure leaves that part out of the run and fails nothing else: one
 * such read failing took the whole run with it, every peer "state unknown" or every interface series gone (found by
 * hostile testers). A stop is a stop: a read aborted with the run ends it.
 */
import type { JobContext } from './types.js';

export async function readUnlessFailed<T>(context: Pick<JobContext, 'signal'>, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (context.signal.aborted) throw error;
    return undefined;
  }
}
