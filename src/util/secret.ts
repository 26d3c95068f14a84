import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';

/**
 * A value that must never be printed: logs, errors, JSON and util.inspect all see "[REDACTED]".
 * Only `reveal()` gives the plain text, so every place that uses a password is easy to find.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
