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

/**
 * Registers again every Secret in a config tree (objects and arrays, walked once each): a reload that failed or was
 * refused leaves the running config in force, and its values must be kept again, not left to the cap behind what
 * the refused load registered (util/redact.ts; found by review).
 */
export function registerSecretsIn(tree: unknown): void {
  const seen = new Set<object>();
  // Each value once: routers that share a password each hold a Secret of their own, and its forms cost ~0.2 ms.
  const registered = new Set<string>();
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (value instanceof Secret) {
      const text = value.reveal();
      if (!registered.has(text)) registerSecret(text);
      registered.add(text);
    } else if (Array.isArray(value)) stack.push(...value);
    else if (!(value instanceof RegExp)) stack.push(...Object.values(value));
  }
}
