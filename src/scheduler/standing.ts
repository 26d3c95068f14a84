/**
 * Whether a router answers, as its last run found: a run that failed because the router did not answer in time
 * or could not be reached (reason `timeout` or `connect`) makes it silent; any other end of a run (a success, or
 * a failure the router answered with) makes it answering again. The scheduler gives silent routers' runs permits
 * of their own (scheduler.ts), so routers that hang cannot hold the permits the answering ones need: each of
 * their runs waits out its timeout, and at 2,000 routers 100 that hang held every one of the 32 for most of each
 * cycle (`npm run bench -- --fleet --hung 100`).
 */
import type { ErrorReason } from '../routeros/errors.js';

/** Failures that say the router did not answer, as opposed to answering with an error. */
export function unanswered(reason: ErrorReason): boolean {
  return reason === 'timeout' || reason === 'connect';
}

export class RouterStanding {
  #silent = false;

  /** True when the router's last run ended without an answer from it. */
  get silent(): boolean {
    return this.#silent;
  }

  /** Records how a run of the router ended: 'ok', or the reason it failed. */
  ran(outcome: 'ok' | ErrorReason): void {
    this.#silent = outcome !== 'ok' && unanswered(outcome);
  }
}
