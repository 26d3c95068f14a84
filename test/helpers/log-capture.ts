/** A pino logger whose JSON lines are kept in memory, to assert on what operators would read. */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { LOG_HOOKS, REDACT_PATHS } from '../../src/cli/logger.js';

export function captureLogs(): { logger: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' }, hooks: LOG_HOOKS }, stream);
  const text = (): string => chunks.join('');
  const lines = (): Record<string, unknown>[] =>
    text()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, text };
}
