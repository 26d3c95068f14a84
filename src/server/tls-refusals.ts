/**
 * TLS handshakes the HTTPS server refused, logged at a bounded rate. Node drops them without a word unless someone
 * listens (`tlsClientError`), so a Prometheus whose client certificate the `client_ca_file` does not verify saw its
 * scrapes fail while the exporter's log said nothing (found by review). A port scan or a plain-HTTP client on the
 * TLS port fails the same way, so the line is a count by reason, once a minute at most, not a line per handshake.
 */
import type { Logger } from 'pino';
import { LogThrottle } from '../util/log-throttle.js';

/** At most one line per this interval, with what was refused since the last. */
const LOG_EVERY_MS = 60_000;
/** Reasons counted apart; others count as `other`, so a flood of odd codes cannot grow the line. */
const MAX_REASONS = 8;
const CODE = /^[A-Z0-9_]{1,64}$/;
/**
 * The verification codes Node reports for a client certificate that does not verify (what an operator looks for:
 * its 28 named ones, and UNSPECIFIED for the rest) are counted apart beyond MAX_REASONS: a client bringing other
 * failures first filled the reasons, and the one that mattered read as `other` (found by review). A fixed set,
 * named (a pattern missed INVALID_PURPOSE, a client certificate made for servers only), so the line stays bounded.
 */
const VERIFICATION_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'OUT_OF_MEM',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  // Every other verification error (a CA without keyCertSign, an unhandled critical extension, a key too small):
  // Node names them all so (found by review).
  'UNSPECIFIED',
]);

export class TlsRefusals {
  readonly #logger: Logger;
  readonly #byReason = new Map<string, number>();
  #refused = 0;
  #remote: string | undefined;
  readonly #log: LogThrottle;

  constructor(logger: Logger, now?: () => number) {
    this.#logger = logger;
    this.#log = new LogThrottle(LOG_EVERY_MS, () => this.#say(), now);
  }

  note(error: unknown, remote: string | undefined): void {
    const code = (error as { code?: unknown } | null)?.code;
    // Node's codes (ERR_SSL_…, ECONNRESET) only: never the message, which may quote what the client sent.
    let reason = typeof code === 'string' && CODE.test(code) ? code : 'other';
    if (!this.#byReason.has(reason)) {
      const room = VERIFICATION_CODES.has(reason) ? MAX_REASONS + VERIFICATION_CODES.size : MAX_REASONS;
      if (this.#byReason.size >= room) reason = 'other';
    }
    this.#byReason.set(reason, (this.#byReason.get(reason) ?? 0) + 1);
    this.#refused++;
    this.#remote = remote ?? this.#remote;
    this.#log.noted();
  }

  /** The server closed: what is still counted is said now. */
  close(): void {
    this.#log.close();
  }

  #say(): void {
    this.#logger.warn(
      { remote: this.#remote, refused: this.#refused, reasons: Object.fromEntries(this.#byReason) },
      'TLS handshakes refused (a client certificate client_ca_file does not verify, a TLS version or cipher not offered, a client that is not TLS or left)',
    );
    this.#refused = 0;
    this.#remote = undefined;
    this.#byReason.clear();
  }
}
