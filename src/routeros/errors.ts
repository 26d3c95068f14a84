/**
 * Typed errors of the RouterOS transport layer. Match on `code`, never on message text.
 * `reason` is a small closed set: it becomes the `reason` label of routeros_collector_errors_total.
 * Messages and router bodies are made safe when an error is built: whatever a router sent, no error carries a
 * terminal control, a known secret or an Authorization value, and none is longer than MESSAGE_LIMIT.
 */
import { MESSAGE_LIMIT, safeText } from '../util/text.js';

export const ERROR_REASONS = [
  'timeout',
  'connect',
  'tls',
  'auth',
  'http_4xx',
  'http_5xx',
  'parse',
  'unsupported',
  'redirect',
] as const;

export type ErrorReason = (typeof ERROR_REASONS)[number];

/** The JSON body RouterOS sends with a failure status (spec §7). */
export interface RouterErrorBody {
  error: number;
  message: string;
  detail?: string;
}

export type RouterOsErrorCode =
  | 'ROS_ERR_TIMEOUT'
  | 'ROS_ERR_ABORTED'
  | 'ROS_ERR_CONNECT'
  | 'ROS_ERR_DNS'
  | 'ROS_ERR_TLS'
  | 'ROS_ERR_AUTH'
  | 'ROS_ERR_PERMISSION'
  | 'ROS_ERR_REDIRECT'
  | 'ROS_ERR_NOT_FOUND'
  | 'ROS_ERR_HTTP_4XX'
  | 'ROS_ERR_HTTP_5XX'
  | 'ROS_ERR_UNSUPPORTED'
  | 'ROS_ERR_BODY_TOO_LARGE'
  | 'ROS_ERR_PARSE'
  | 'ROS_ERR_SHAPE'
  | 'ROS_ERR_DECODE'
  /** A reply that is data, but more than the exporter will work through (e.g. the set-up audit's rule checks). */
  | 'ROS_ERR_TOO_MUCH';

const REASON_BY_CODE: Record<RouterOsErrorCode, ErrorReason> = {
  ROS_ERR_TIMEOUT: 'timeout',
  ROS_ERR_ABORTED: 'timeout',
  ROS_ERR_CONNECT: 'connect',
  ROS_ERR_DNS: 'connect',
  ROS_ERR_TLS: 'tls',
  ROS_ERR_AUTH: 'auth',
  // The user's group lacks a policy: as much an access problem as a wrong password, and as pointless to retry
  // soon (the scheduler's auth backoff applies).
  ROS_ERR_PERMISSION: 'auth',
  ROS_ERR_REDIRECT: 'redirect',
  ROS_ERR_NOT_FOUND: 'http_4xx',
  ROS_ERR_HTTP_4XX: 'http_4xx',
  ROS_ERR_HTTP_5XX: 'http_5xx',
  ROS_ERR_UNSUPPORTED: 'unsupported',
  ROS_ERR_BODY_TOO_LARGE: 'parse',
  ROS_ERR_PARSE: 'parse',
  ROS_ERR_SHAPE: 'parse',
  ROS_ERR_DECODE: 'parse',
  ROS_ERR_TOO_MUCH: 'parse',
};

export interface RouterOsErrorOptions {
  /** HTTP status, when the router answered. */
  status?: number;
  /** The router's own error body, when it sent one. */
  body?: RouterErrorBody;
  /** Method and path of the request (never the URL's credentials, never headers). */
  request?: string;
  /** The user policy the router refused the request for, when that is known (ROS_ERR_PERMISSION). */
  policy?: string;
  cause?: unknown;
}

export class RouterOsError extends Error {
  override readonly name = 'RouterOsError';
  readonly code: RouterOsErrorCode;
  readonly reason: ErrorReason;
  readonly status: number | undefined;
  readonly body: RouterErrorBody | undefined;
  readonly request: string | undefined;
  readonly policy: string | undefined;

  constructor(code: RouterOsErrorCode, message: string, options: RouterOsErrorOptions = {}) {
    super(safeMessage(message), options.cause === undefined ? undefined : { cause: causeSummary(options.cause) });
    this.code = code;
    this.reason = REASON_BY_CODE[code];
    this.status = options.status;
    this.body = options.body === undefined ? undefined : safeBody(options.body);
    this.request = options.request === undefined ? undefined : safeText(options.request, MESSAGE_LIMIT);
    this.policy = options.policy;
  }

  /**
   * A short operator phrase for a refusal ("refused: the user's group lacks the api policy"), for /health and
   * `check`; undefined for other failures, whose reason says enough.
   */
  get summary(): string | undefined {
    if (this.code === 'ROS_ERR_PERMISSION' && this.policy !== undefined) return `refused: the user's group lacks the ${this.policy} policy`;
    if (this.code === 'ROS_ERR_AUTH') return "refused: wrong username or password, or the user's group lacks the rest-api policy";
    return undefined;
  }
}

/** What an error keeps of the failure beneath it (`cause`). */
export interface CauseSummary {
  readonly name: string;
  readonly code: string | undefined;
}

/**
 * A cause as its class and code alone: undici's and Node's errors carry what the router sent (a certificate's
 * names and the certificate itself, the bytes a parser refused) in their messages and properties, which a log line
 * that serialised the error with its causes would print unbounded and unredacted (found by review). The code is the
 * first in the cause's own chain, which is what tells failures apart.
 */
function causeSummary(cause: unknown): CauseSummary {
  let code: string | undefined;
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && code === undefined && current !== null && typeof current === 'object'; depth++) {
    const candidate = (current as { code?: unknown }).code;
    if (typeof candidate === 'string') code = safeText(candidate, CAUSE_TEXT_LIMIT);
    current = (current as { cause?: unknown }).cause;
  }
  const name = cause instanceof Error ? cause.name : typeof cause;
  return { name: safeText(name, CAUSE_TEXT_LIMIT), code };
}

const CAUSE_TEXT_LIMIT = 60;

/** A whole message: our words around router text already cut to size; the last line against anything that slipped. */
function safeMessage(message: string): string {
  return safeText(message, MESSAGE_LIMIT);
}

function safeBody(body: RouterErrorBody): RouterErrorBody {
  const message = safeText(body.message);
  return body.detail === undefined ? { error: body.error, message } : { error: body.error, message, detail: safeText(body.detail) };
}

/** A RouterOS value that does not decode (a duration, number or boolean in an unknown form). */
export class DecodeError extends RouterOsError {
  constructor(message: string, options: RouterOsErrorOptions = {}) {
    super('ROS_ERR_DECODE', message, options);
  }
}

export function isRouterOsError(error: unknown): error is RouterOsError {
  return error instanceof RouterOsError;
}

/**
 * The operator phrase of a failure for /health and `check` ("refused: the user's group lacks the api policy"),
 * or undefined when the reason says enough. Already safe to print: it holds no router text.
 */
export function summaryOf(error: unknown): string | undefined {
  return isRouterOsError(error) ? error.summary : undefined;
}

/** The bounded metric reason of any error: unknown failures count as `parse`, the catch-all for bad data. */
export function reasonOf(error: unknown): ErrorReason {
  return isRouterOsError(error) ? error.reason : 'parse';
}
