/**
 * Refused TLS handshakes in the log: one line a minute at most, a count by Node's error code, never the error's
 * message (it may quote what a client sent), and a bounded number of reasons however many codes a flood brings.
 */
import { expect, it, vi } from 'vitest';
import { TlsRefusals } from '../../src/server/tls-refusals.js';
import { captureLogs } from '../helpers/log-capture.js';

const failure = (code: unknown, message = 'handshake failed'): Error => Object.assign(new Error(message), { code });

it('logs the first refusal at once, then counts until a minute has passed, by code', () => {
  const logs = captureLogs();
  let clock = 0;
  const refusals = new TlsRefusals(logs.logger, () => clock);
  refusals.note(failure('ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE'), '192.0.2.1');
  for (let i = 0; i < 5; i++) {
    clock += 10_000;
    refusals.note(failure(i % 2 === 0 ? 'ECONNRESET' : 'ERR_SSL_HTTP_REQUEST'), '192.0.2.2');
  }
  expect(logs.lines()).toHaveLength(1);
  clock += 10_000;
  refusals.note(failure('ECONNRESET'), '192.0.2.3');
  expect(logs.lines().map(({ refused, reasons, remote }) => ({ refused, reasons, remote }))).toEqual([
    { refused: 1, reasons: { ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE: 1 }, remote: '192.0.2.1' },
    { refused: 6, reasons: { ECONNRESET: 4, ERR_SSL_HTTP_REQUEST: 2 }, remote: '192.0.2.3' },
  ]);
});

it('keeps at most 8 reasons, counts odd or missing codes as other, and never logs a message', () => {
  const logs = captureLogs();
  let clock = 0;
  const refusals = new TlsRefusals(logs.logger, () => clock);
  refusals.note(failure('ECONNRESET'), undefined);
  for (let i = 0; i < 20; i++) refusals.note(failure(`ERR_SSL_CODE_${String(i)}`, 'Authorization: Basic c2VjcmV0'), '192.0.2.1');
  for (const code of [undefined, 42, 'lower case', 'X'.repeat(65)]) refusals.note(failure(code), '192.0.2.1');
  refusals.note(null, '192.0.2.1');
  clock += 60_000;
  refusals.note(failure('ECONNRESET'), '192.0.2.1');
  const last = logs.lines().at(-1) ?? {};
  const reasons = last['reasons'] as Record<string, number>;
  expect(Object.keys(reasons)).toHaveLength(9);
  // 12 codes past the first 8, the 5 odd ones, and the last ECONNRESET, which came when the 8 were taken.
  expect(reasons['other']).toBe(20 - 8 + 5 + 1);
  expect(last['refused']).toBe(26);
  expect(logs.text()).not.toContain('c2VjcmV0');
});

it('says a burst followed by silence once its minute is over, without waiting for another refusal (found by review)', async () => {
  vi.useFakeTimers();
  try {
    const logs = captureLogs();
    let clock = 0;
    const refusals = new TlsRefusals(logs.logger, () => clock);
    refusals.note(failure('ECONNRESET'), '192.0.2.1');
    clock += 10_000;
    refusals.note(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), undefined);
    refusals.note(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), '192.0.2.9');
    expect(logs.lines()).toHaveLength(1);
    clock += 50_000;
    await vi.advanceTimersByTimeAsync(50_000);
    expect(logs.lines().at(-1)).toMatchObject({ refused: 2, reasons: { UNABLE_TO_VERIFY_LEAF_SIGNATURE: 2 }, remote: '192.0.2.9' });
    refusals.close();
  } finally {
    vi.useRealTimers();
  }
});

it('counts a certificate that does not verify by its code even after other failures filled the reasons (found by review)', () => {
  const logs = captureLogs();
  let clock = 0;
  const refusals = new TlsRefusals(logs.logger, () => clock);
  refusals.note(failure('ECONNRESET'), undefined);
  for (let i = 0; i < 20; i++) refusals.note(failure(`ERR_SSL_CODE_${String(i)}`), '192.0.2.1');
  refusals.note(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), '192.0.2.9');
  refusals.note(failure('DEPTH_ZERO_SELF_SIGNED_CERT'), '192.0.2.9');
  // A client certificate made for servers only: a verification code without CERT in its name.
  refusals.note(failure('INVALID_PURPOSE'), '192.0.2.9');
  // Any other verification error (here: a client certificate's CA without keyCertSign), as Node names it.
  refusals.note(failure('UNSPECIFIED'), '192.0.2.9');
  // Not a verification code: still other once the reasons are full.
  refusals.note(failure('ERR_SSL_ANOTHER'), '192.0.2.9');
  clock += 60_000;
  refusals.note(failure('ECONNRESET'), '192.0.2.1');
  const reasons = (logs.lines().at(-1) ?? {})['reasons'] as Record<string, number>;
  expect(reasons['UNABLE_TO_VERIFY_LEAF_SIGNATURE']).toBe(1);
  expect(reasons['DEPTH_ZERO_SELF_SIGNED_CERT']).toBe(1);
  expect(reasons['INVALID_PURPOSE']).toBe(1);
  expect(reasons['UNSPECIFIED']).toBe(1);
  expect(reasons['ERR_SSL_ANOTHER']).toBeUndefined();
  expect(Object.keys(reasons).length).toBeLessThanOrEqual(8 + 29);
});
