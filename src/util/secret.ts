import { inspect } from 'node:util';
import { registerSecret } from './redact.js';

const REDACTED = '[REDACTED]';

/**
 * A value that must never be printed: logs, errors, JSON and util.inspect all see "[REDACTED]".
 * Only `reveal()` gives the plain text, so every place that uses a password is easy to find. Its value is also
 * registered for redaction (src/util/redact.ts): if it reaches printed text by another way, it is scrubbed there.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    // Known process-wide from now on, so the logger and error messages can redact it wherever it shows up.
    registerSecret(value);
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
