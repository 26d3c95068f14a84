/**
 * Backoff for jobs that keep failing: skip runs for a while, doubling up to a cap, so a router with a
 * wrong password is not hammered with logins (RouterOS logs every one) and a dead router costs little.
 * Authentication failures back off after the first failure and up to 10 minutes; everything else after
 * a few, and only up to 2 minutes, so a router that comes back is seen soon.
 */
import type { ErrorReason } from '../routeros/errors.js';

export interface BackoffPolicy {
  /** Consecutive failures before backing off, per reason class. */
  authThreshold: number;
  otherThreshold: number;
  initialSeconds: number;
  /** Longest backoff after authentication failures. */
  maxSeconds: number;
  /** Longest backoff after any other failure. */
  otherMaxSeconds: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { authThreshold: 1, otherThreshold: 3, initialSeconds: 30, maxSeconds: 600, otherMaxSeconds: 120 };

export class Backoff {
  /** Consecutive failures of one class (authentication, or any other): a streak of the other class ends it. */
  #failures = 0;
  #auth = false;
  #until = 0;
  readonly #policy: BackoffPolicy;

  constructor(policy: BackoffPolicy = DEFAULT_BACKOFF) {
    this.#policy = policy;
  }

  /** True while runs should be skipped. */
  active(now: number): boolean {
    return now < this.#until;
  }

  /** Seconds until the next attempt (0 when not backing off). */
  remainingSeconds(now: number): number {
    return Math.max(0, Math.ceil((this.#until - now) / 1000));
  }

  succeeded(): void {
    this.#failures = 0;
    this.#until = 0;
  }

  /**
   * Records a failure; returns the backoff in seconds now in force (0 for none). The streak counts failures of one
   * class: eight timeouts and then a refused login started the login's backoff at 10 minutes instead of 30 s (found
   * by review); a router answering again, if only to refuse, begins a streak of its own.
   */
  failed(reason: ErrorReason, now: number): number {
    const auth = reason === 'auth';
    if (auth !== this.#auth) {
      this.#auth = auth;
      this.#failures = 0;
    }
    this.#failures++;
    const threshold = auth ? this.#policy.authThreshold : this.#policy.otherThreshold;
    if (this.#failures < threshold) return 0;
    const exponent = this.#failures - threshold;
    const cap = auth ? this.#policy.maxSeconds : this.#policy.otherMaxSeconds;
    const seconds = Math.min(cap, this.#policy.initialSeconds * 2 ** Math.min(exponent, 20));
    this.#until = now + seconds * 1000;
    return seconds;
  }
}
