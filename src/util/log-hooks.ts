/**
 * The logger's last line of defence (pino hooks): whatever a caller passes, a log line carries no known secret,
 * no Authorization value, no character that steers a terminal or reorders text, and no unbounded string.
 * Errors are made safe where they are built (RouterOsError); this catches what reaches a log by another way
 * (a value a router sent, a field someone adds later).
 */
import type { LoggerOptions } from 'pino';
import { redactSecrets } from './redact.js';
import { cleanText, stripControls } from './text.js';

/** The most characters of a message; of any other string field. */
export const LOG_MESSAGE_LIMIT = 2_000;
export const LOG_FIELD_LIMIT = 1_000;
/** Plain objects and arrays are cleaned this deep; deeper values are left to the line scrub. */
const DEPTH = 4;

function cleanString(text: string, max: number): string {
  // Line breaks stay in multi-line fields (a stack); they are escaped in the JSON line anyway.
  return cleanText(text, max, false);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Strings cleaned inside plain objects and arrays; anything else (an Error, a Secret) passed on to pino as it is. */
function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanString(value, LOG_FIELD_LIMIT);
  if (value === null || typeof value !== 'object' || depth >= DEPTH) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => clean(item, depth + 1));
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = clean(field, depth + 1);
  return out;
}

/** Every string of a parsed line, however deep, redacted and stripped (no bound here: fields were bounded). */
function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(stripControls(redactSecrets(value), false));
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[scrubValue(key) as string] = scrubValue(field);
  return out;
}

/**
 * The serialised line, scrubbed as JSON (never as text, so a redaction cannot cross a string's quotes): secrets
 * and control characters out of every key and value, bindings and serialised errors included. A line that is not
 * JSON (it never should be) is scrubbed as text.
 */
export function scrubLine(line: string): string {
  const body = line.endsWith('\n') ? line.slice(0, -1) : line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return redactSecrets(stripControls(line, false));
  }
  return `${JSON.stringify(scrubValue(parsed))}${body === line ? '' : '\n'}`;
}

export const LOG_HOOKS: NonNullable<LoggerOptions['hooks']> = {
  logMethod(args, method) {
    const cleaned = args.map((arg) => (typeof arg === 'string' ? cleanString(arg, LOG_MESSAGE_LIMIT) : clean(arg, 0)));
    method.apply(this, cleaned as Parameters<typeof method>);
  },
  streamWrite: scrubLine,
};
