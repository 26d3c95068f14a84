/**
 * The logger's last line (src/util/log-hooks.ts): whatever is logged, the JSON line carries no registered secret,
 * no Basic encoding of it, no Authorization value, no terminal control (raw or escaped), no bidi override, and
 * no unbounded string; and it stays valid JSON. A property test feeds it random text around the secrets.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_HOOKS, REDACT_PATHS } from '../../src/cli/logger.js';
import { basicEncoding, registerCredentials } from '../../src/util/redact.js';
import { Secret } from '../../src/util/secret.js';
import { RouterOsError } from '../../src/routeros/errors.js';

const PASSWORD = 'Log-pw-"q\\uote"-8d1f';
const BASIC = basicEncoding('monitor', PASSWORD);
const OTHER_BASIC = basicEncoding('someone', 'not-known-to-us');
const KEY = new Secret('wg-key-5yq3Ld0iK1tCvI9mH0y8pQ==').reveal();
registerCredentials('monitor', PASSWORD);
// eslint-disable-next-line no-control-regex
const UNSAFE_RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const UNSAFE_ESCAPED = /(?<!\\)(?:\\\\)*\\(u00[01][0-9a-f]|u00[89][0-9a-f]|u007f|u202[a-e]|u206[6-9]|[bf])/i;

function logger(): { log: pino.Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const log = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' }, hooks: LOG_HOOKS }, stream);
  return { log, lines: () => chunks.join('').split('\n').filter((line) => line !== '') };
}

/** What must hold of every line, whatever was logged. */
function assertClean(line: string, secrets: readonly string[]): void {
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  for (const secret of [...secrets, ...escaped]) expect(line).not.toContain(secret);
  expect(line).not.toMatch(UNSAFE_RAW);
  expect(line).not.toMatch(UNSAFE_ESCAPED);
  expect(() => JSON.parse(line) as unknown).not.toThrow();
}

describe('the log hooks', () => {
  it('redact a registered password, its Basic encoding and any Authorization value, in the message and in fields', () => {
    const { log, lines } = logger();
    log.warn({ detail: `echo: Authorization: Basic ${BASIC}`, nested: { list: [PASSWORD, `Bearer ${OTHER_BASIC}`] } }, `collector failed: HTTP 500 (${PASSWORD} / Basic ${OTHER_BASIC} / ${KEY})`);
    log.info(`printf %s`, `monitor:${PASSWORD}`);
    const out = lines();
    expect(out).toHaveLength(2);
    for (const line of out) assertClean(line, [PASSWORD, BASIC, OTHER_BASIC, KEY, `monitor:${PASSWORD}`]);
    expect(out[0]).toContain('Authorization: Basic [REDACTED]');
    expect(out[0]).toContain('Bearer [REDACTED]');
  });

  it('drop terminal controls and bidi overrides, raw or escaped, and keep the line valid JSON', () => {
    const { log, lines } = logger();
    const noisy = '\x1b[2J\x1b]0;owned\x07 \u009b31m \u202eevil\u202c \b\f end \\u001b stays as text';
    log.error({ value: noisy }, noisy);
    const [line = ''] = lines();
    assertClean(line, []);
    const parsed = JSON.parse(line) as { msg: string; value: string };
    expect(parsed.msg).toBe('[2J]0;owned 31m evil  end \\u001b stays as text');
    expect(parsed.value).toBe(parsed.msg);
  });

  it('bound every string: a 100 KB message and field make a line of a few KB', () => {
    const { log, lines } = logger();
    const big = 'x'.repeat(100_000);
    log.warn({ detail: big, problems: [big, big] }, big);
    const [line = ''] = lines();
    expect(line.length).toBeLessThan(6_000);
    expect(line).toContain('more characters)');
  });

  it('leave Errors to the serialiser (their stack still logged) and numbers alone', () => {
    const { log, lines } = logger();
    log.warn({ err: new Error(`boom ${PASSWORD}`), count: 3 }, 'failed');
    const [line = ''] = lines();
    assertClean(line, [PASSWORD]);
    const parsed = JSON.parse(line) as { err: { type: string; stack: string }; count: number };
    expect(parsed.err.type).toBe('Error');
    expect(parsed.err.stack).toContain('boom [REDACTED]');
    expect(parsed.count).toBe(3);
  });

  it('a RouterOsError keeps of its cause the class and code alone: logged with its causes, none of what the router sent (found by review)', () => {
    // A certificate that names the wrong host: undici's error holds the names and the certificate itself.
    const refused = Object.assign(new Error('Hostname/IP does not match certificate\'s altnames: DNS:portal-7f3a.example'), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      cert: { subject: { CN: 'portal-7f3a.example' }, raw: Buffer.alloc(900, 1) },
    });
    const wrapped = new Error('connect failed', { cause: refused });
    const error = new RouterOsError('ROS_ERR_TLS', 'GET /rest/x: TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)', { cause: wrapped });
    expect(error.cause).toEqual({ name: 'Error', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const { log, lines } = logger();
    log.warn({ err: error }, 'failed');
    const [line = ''] = lines();
    expect(line).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(line).not.toContain('portal-7f3a');
    expect(line.length).toBeLessThan(4_000);
  });

  it('property: random text around the secrets never lets one through, and lines stay JSON', () => {
    const secrets = [PASSWORD, BASIC, KEY];
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(...secrets, `Basic ${OTHER_BASIC}`, 'authorization: ', '\x1b[', '\u009b', '\u202e', '\\', '"'),
    );
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    let runs = 0;
    const started = Date.now();
    fc.assert(
      fc.property(text, text, (message, field) => {
        runs++;
        const { log, lines } = logger();
        log.warn({ field, list: [field] }, message);
        for (const line of lines()) assertClean(line, [...secrets, OTHER_BASIC]);
      }),
      { numRuns: 1_000, interruptAfterTimeLimit: 5_000 },
    );
    console.log(`log hooks property: ${runs} inputs in ${Date.now() - started} ms`);
    expect(runs).toBeGreaterThan(100);
  });
});
