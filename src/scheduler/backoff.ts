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
  /**
   * Failures since the last success, per class (authentication, anything else): one class's failures neither end
   * nor feed the other's streak. Fed by both, eight timeouts put a refused login's first backoff at 10 minutes;
   * ended by the other, a router that drops the exporter for a minute after each refused login kept the login's
   * backoff at 30 s, 60 logins an hour (both found by review).
   */
  #authFailures = 0;
  #otherFailures = 0;
  #until = 0;
  /** Whether this backoff has let a run through already (letThrough). */
  #letThrough = false;
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

  /** Milliseconds until the next attempt, exactly (0 when not backing off): when the gauge is to show 0 again. */
  remainingMs(now: number): number {
    return Math.max(0, this.#until - now);
  }

  succeeded(): void {
    this.#authFailures = 0;
    this.#otherFailures = 0;
    this.#until = 0;
    this.#letThrough = false;
  }

  /**
   * Lets one run through a backoff in force (a reload's run of a job it replaced), once per backoff, which that run's
   * failure extends: reloads that change a failing router's job every few seconds made a login each (found by
   * review). True when not backing off.
   */
  letThrough(now: number): boolean {
    if (!this.active(now)) return true;
    if (this.#letThrough) return false;
    this.#letThrough = true;
    return true;
  }

  /**
   * Records a failure; returns the seconds until the next attempt (0 when not backing off). A backoff in force is
   * never shortened by a failure of the other class below its threshold: the figure said 0 while runs were skipped.
   */
  failed(reason: ErrorReason, now: number): number {
    // A failure of the run let through a backoff continues that backoff: it lets no other through (it did, so
    // each reload's run let the next one through). One after the backoff ended starts a new one that may.
    const during = this.active(now);
    const auth = reason === 'auth';
    const failures = auth ? ++this.#authFailures : ++this.#otherFailures;
    const threshold = auth ? this.#policy.authThreshold : this.#policy.otherThreshold;
    if (failures >= threshold) {
      const exponent = failures - threshold;
      const cap = auth ? this.#policy.maxSeconds : this.#policy.otherMaxSeconds;
      const seconds = Math.min(cap, this.#policy.initialSeconds * 2 ** Math.min(exponent, 20));
      const until = now + seconds * 1000;
      if (until >= this.#until) {
        this.#until = until;
        if (!during) this.#letThrough = false;
        // Said as computed: (until - now) / 1000 may come back a hair over, and rounded up to one more second.
        return seconds;
      }
    }
    return this.remainingSeconds(now);
  }
}
