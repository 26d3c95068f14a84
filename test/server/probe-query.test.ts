/**
 * The /probe query check on arbitrary query strings (fast-check, bounded in time): it never throws, and what it
 * accepts is exactly one target (and at most one profile), within the length bounds and free of control
 * characters; the reason it gives never echoes the value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PROFILE_LENGTH, MAX_TARGET_LENGTH, parseProbeQuery } from '../../src/server/probe-query.js';
import { MAX_TARGET_LENGTH as DISCOVERY_MAX_TARGET_LENGTH, parseTarget } from '../../src/discovery/target.js';
import { retryAfterHeader } from '../../src/server/respond.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

describe('parseProbeQuery on arbitrary queries', () => {
  it('accepts only one bounded, clean target and at most one bounded, clean profile', () => {
    const piece = fc.oneof(
      fc.constantFrom('target', 'profile', 'module', 'target%00', '%', '=', '&', '%0a', '%zz', 'hq', '192.0.2.1:443', '+'),
      fc.string({ maxLength: 12 }),
      fc.string({ minLength: 250, maxLength: 300 }),
    );
    const query = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));
    let tried = 0;
    const started = Date.now();
    fc.assert(
      fc.property(query, (raw) => {
        tried++;
        const params = new URLSearchParams(raw);
        const parsed = parseProbeQuery(params);
        const targets = params.getAll('target');
        const profiles = params.getAll('profile');
        if (parsed.ok) {
          expect(targets).toEqual([parsed.target]);
          expect(parsed.target.length).toBeGreaterThan(0);
          expect(parsed.target.length).toBeLessThanOrEqual(MAX_TARGET_LENGTH);
          expect(CONTROL.test(parsed.target)).toBe(false);
          expect(profiles).toEqual(parsed.profile === undefined ? [] : [parsed.profile]);
          if (parsed.profile !== undefined) {
            expect(parsed.profile.length).toBeLessThanOrEqual(MAX_PROFILE_LENGTH);
            expect(CONTROL.test(parsed.profile)).toBe(false);
          }
        } else {
          expect(parsed.reason.length).toBeLessThan(80);
          for (const value of [...targets, ...profiles]) if (value.length > 12) expect(parsed.reason).not.toContain(value);
        }
      }),
      { numRuns: 2_000, interruptAfterTimeLimit: 5_000 },
    );
    console.log(`probe query property: ${tried} random query strings tried in ${Date.now() - started} ms`);
  });
});

describe('the target bound', () => {
  it('lets through every target a profile accepts, up to the discovery bound (a 258-character name:port once got 400)', () => {
    const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.net`;
    const target = `${host}:8443`;
    expect(target.length).toBe(258);
    expect(parseTarget(target)).toBeDefined();
    expect(parseProbeQuery(new URLSearchParams({ target, profile: 'p' }))).toEqual({ ok: true, target, profile: 'p' });
    // One constant: the longest the query lets through is the longest a target may be.
    expect(MAX_TARGET_LENGTH).toBe(DISCOVERY_MAX_TARGET_LENGTH);
  });
});

describe('Retry-After', () => {
  it('is whole seconds from 0 to a day, whatever figure it is given (a forget_after of 10^18 h made 3.6e+21: found by a hostile tester)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(3.6e21, -1, 0.2, Number.NaN, Number.POSITIVE_INFINITY)), (seconds) => {
        const header = retryAfterHeader(seconds);
        expect(header).toMatch(/^\d+$/);
        expect(Number(header)).toBeLessThanOrEqual(86_400);
        if (Number.isFinite(seconds) && seconds >= 0 && seconds <= 86_400) expect(Number(header) === Math.ceil(seconds)).toBe(true);
      }),
    );
  });
});
