import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterStanding, unanswered } from '../../src/scheduler/standing.js';
import { ERROR_REASONS, type ErrorReason } from '../../src/routeros/errors.js';

describe("a router's standing", () => {
  it('is silent exactly when its last run found no answer (timeout, connect), whatever came before', () => {
    const outcome = fc.constantFrom<'ok' | ErrorReason>('ok', ...ERROR_REASONS);
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 30 }), (outcomes) => {
        const standing = new RouterStanding();
        for (const ran of outcomes) standing.ran(ran);
        const last = outcomes.at(-1);
        expect(standing.silent).toBe(last === 'timeout' || last === 'connect');
      }),
    );
  });

  it('counts only the failures without an answer as unanswered: the router that refuses or errs has answered', () => {
    expect(ERROR_REASONS.filter(unanswered)).toEqual(['timeout', 'connect']);
  });
});
