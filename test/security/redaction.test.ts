/**
 * The redaction registry and router-text cleaning (src/util/redact.ts, src/util/text.ts) on their own: forms of a
 * password, cuts that never leave half a secret, controls, the size cap, and a cost that does not grow with the
 * number of registered passwords.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SECRETS, basicEncoding, redactSecrets, registerCredentials, registerSecret, registeredSecretCount } from '../../src/util/redact.js';
import { safeText, terminalText } from '../../src/util/text.js';

describe('redaction', () => {
  it('every form of a password: as is, user:password, Basic, JSON-escaped', () => {
    const password = 'Pw "with" \\ quotes-7c1';
    registerCredentials('monitor', password);
    const escaped = JSON.stringify(password).slice(1, -1);
    const text = `a ${password} b monitor:${password} c ${basicEncoding('monitor', password)} d ${escaped} e`;
    expect(redactSecrets(text)).toBe('a [REDACTED] b [REDACTED] c [REDACTED] d [REDACTED] e');
  });

  it('a password under 4 characters is not registered, but its Basic encoding is', () => {
    registerCredentials('ab', 'xyz');
    expect(redactSecrets('xyz stays')).toBe('xyz stays');
    expect(redactSecrets(`Basic-less ${basicEncoding('ab', 'xyz')}`)).toBe('Basic-less [REDACTED]');
  });

  it('Authorization values of credentials nobody registered', () => {
    const other = basicEncoding('someone', 'unknown-password');
    expect(redactSecrets(`proxy said: Authorization: Basic ${other}, bye`)).toBe('proxy said: Authorization: Basic [REDACTED], bye');
    expect(redactSecrets(`{"authorization":"Bearer eyJhbGciOi.x-y_z"}`)).toBe('{"authorization":"Bearer [REDACTED]"}');
    // A scheme may come first ("Token abc"), so one more word goes too: harmless, and never half a value.
    expect(redactSecrets('authorization=opaque-token-1 next; then')).toBe('authorization=[REDACTED]; then');
    expect(redactSecrets('HTTP basic authentication, basic realm')).toBe('HTTP basic authentication, basic realm');
  });

  it('a cut never leaves part of a secret, and says how much was cut', () => {
    const secret = 'S3cret-straddling-the-cut';
    registerSecret(secret);
    for (let at = 280; at <= 300; at++) {
      const out = safeText(`${'x'.repeat(at)}${secret}${'y'.repeat(500)}`);
      expect(out).not.toMatch(/S3c|cut/);
      expect(out).toMatch(/… \(\d+ more characters\)$/);
      expect(out.length).toBeLessThan(330);
    }
  });

  it('a secret split by escape sequences is whole again after stripping, and redacted', () => {
    registerSecret('Split-secret-42');
    const out = safeText('detail: Split\u001b[0m-secr\u202eet-42 end');
    expect(out).toBe('detail: Split[0m-secret-42 end');
    expect(safeText('Spl\u001bit-secret-42')).toBe('[REDACTED]');
  });

  it('strips controls (tab and line breaks become spaces) and never cuts a surrogate pair in half', () => {
    expect(safeText('a\tb\r\nc\u0007d\u009be\u200ff\ufeffg')).toBe('a b cdefg');
    const out = safeText(`${'x'.repeat(9)}😀😀`, 10);
    expect(out.startsWith('x'.repeat(9) + '…')).toBe(true);
  });

  it('terminal text keeps lines, drops carriage returns and controls', () => {
    expect(terminalText('line 1\r\nline 2\u001b[2J\u0085')).toBe('line 1\nline 2[2J');
  });

  it(`keeps at most ${MAX_SECRETS} values, the oldest going first`, () => {
    registerSecret('First-of-many-0001');
    for (let i = 0; i < MAX_SECRETS; i++) registerSecret(`filler-secret-${i}`);
    expect(registeredSecretCount()).toBe(MAX_SECRETS);
    expect(redactSecrets('First-of-many-0001')).toBe('First-of-many-0001');
    expect(redactSecrets(`filler-secret-${MAX_SECRETS - 1}`)).toBe('[REDACTED]');
  });

  it('costs about the same with thousands of registered passwords', () => {
    const message = 'GET /rest/interface/wireguard/peers: HTTP 500: Internal Server Error (some detail the router sent); the router failed';
    const n = 20_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) safeText(message);
    const micros = ((performance.now() - started) / n) * 1000;
    console.log(`safeText with ${registeredSecretCount()} registered values: ${micros.toFixed(2)} µs per 120-character message`);
    // A scan of every value would take milliseconds here; the prefix index keeps it to a few microseconds.
    expect(micros).toBeLessThan(200);
  });
});
