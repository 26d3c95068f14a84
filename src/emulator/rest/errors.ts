/**
 * RouterOS-style failures (spec §7, real-formats §6). Handlers throw RestError; the HTTP layer
 * renders `{"detail":…,"error":<int>,"message":<reason>}` with `detail` only when there is one.
 */
import { STATUS_CODES } from 'node:http';

export class RestError extends Error {
  readonly status: number;
  readonly detail: string | undefined;

  constructor(status: number, detail?: string) {
    super(detail ?? STATUS_CODES[status] ?? String(status));
    this.status = status;
    this.detail = detail;
  }
}

/** `{detail?, error, message}`: `error` is the only number RouterOS ever sends (real-formats §0). */
export function errorBody(status: number, detail?: string): Record<string, string | number> {
  const body: Record<string, string | number> = { error: status, message: STATUS_CODES[status] ?? 'Error' };
  if (detail !== undefined) body['detail'] = detail;
  return body;
}

export const noSuchCommand = (word: string): RestError =>
  new RestError(400, `no such command or directory (${word})`);

/** A console command missing from an existing menu (DELETE on an interface → `remove`). */
export const notAcceptable = (word: string): RestError =>
  new RestError(406, `no such command or directory (${word})`);

export const notFound = (): RestError => new RestError(404);

export const badRequest = (detail: string): RestError => new RestError(400, detail);

export const unknownParameter = (name: string): RestError => badRequest(`unknown parameter ${name}`);

export const sessionClosed = (): RestError => badRequest('Session closed');

/** What real 7.x answers when a user lacks the policy for an action (real-formats §9). */
export const notEnoughPermissions = (): RestError => new RestError(500, 'not enough permissions (9)');
