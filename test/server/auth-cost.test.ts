import fc from 'fast-check';
/**
 * A wrong password costs the same whether or not the username exists, at any bcrypt cost: unknown names are
 * checked at the users' own cost. With a fixed cost-10 dummy, a cost-6 user answered 16 times faster than an
 * unknown name (a cost-12 user 4 times slower, as a review measured), so timing told which names exist. Mixed
 * costs cannot all be hidden: the web config warns about them.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BasicAuth, dummyFor, MAX_SHARING_ONE_CHECK } from '../../src/server/auth.js';
import { BcryptWorker } from '../../src/server/bcrypt-worker.js';
import { bcryptCost, loadWebConfig } from '../../src/server/web-config.js';

const auth = new BasicAuth(pino({ level: 'silent' }));

afterAll(async () => {
  await auth.close();
});

/** The quickest of nine: a busy machine only ever adds time, so the least is the check's own cost. */
async function quickestMs(check: () => Promise<unknown>): Promise<number> {
  let quickest = Infinity;
  for (let i = 0; i < 9; i++) {
    const started = performance.now();
    await check();
    quickest = Math.min(quickest, performance.now() - started);
  }
  return quickest;
}

describe('the check for an unknown username', () => {
  it('uses a hash of the users’ highest cost, which no password matches', () => {
    const low = bcrypt.hashSync('a', 4);
    const high = bcrypt.hashSync('b', 6);
    expect(bcryptCost(dummyFor(new Map([['alice', low]])))).toBe(4);
    expect(bcryptCost(dummyFor(new Map([['alice', low], ['bob', high]])))).toBe(6);
    expect(dummyFor(new Map())).toMatch(/^\$2b\$10\$/);
    const dummy = dummyFor(new Map([['alice', low]]));
    expect(dummy).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    for (const guess of ['', 'a', 'password', 'x'.repeat(72)]) expect(bcrypt.compareSync(guess, dummy)).toBe(false);
  });

  it('takes as long as a wrong password for a user that exists: a check at the user\'s own cost', async () => {
    const users = new Map([['prometheus', bcrypt.hashSync('right', 6)]]);
    // Warm the worker first: its first check pays for starting it.
    await auth.check(users, { username: 'prometheus', password: 'warm-up' });
    const compare = vi.spyOn(BcryptWorker.prototype, 'compare');
    try {
      // A new wrong password each time: the same one again is remembered as wrong and costs no check.
      let guess = 0;
      const known = await quickestMs(() => auth.check(users, { username: 'prometheus', password: `wrong-${guess++}` }));
      const unknown = await quickestMs(() => auth.check(users, { username: 'nobody', password: `wrong-${guess++}` }));
      // What makes the cost the same, asserted exactly: every check, the unknown name's too, ran at cost 6.
      expect(compare).toHaveBeenCalledTimes(18);
      expect(compare.mock.calls.map(([, hash]) => bcryptCost(hash))).toEqual(Array.from({ length: 18 }, () => 6));
      // And timed, against a bug 16 times slower (a cost-10 dummy): the quickest of nine each.
      expect(unknown).toBeLessThan(known * 6 + 5);
      expect(known).toBeLessThan(unknown * 6 + 5);
    } finally {
      compare.mockRestore();
    }
  });
});

describe('a web config whose hashes have different costs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'routeros-auth-cost-'));

  it('is loaded with a warning naming the costs and the fix', () => {
    const path = join(dir, 'web.yml');
    writeFileSync(path, `basic_auth_users:\n  alice: "${bcrypt.hashSync('a', 4)}"\n  bob: "${bcrypt.hashSync('b', 5)}"\n`, { mode: 0o600 });
    const config = loadWebConfig(path);
    expect(config.users.size).toBe(2);
    expect(config.warnings.join('\n')).toContain('different bcrypt costs (4, 5)');
    expect(config.warnings.join('\n')).toContain('htpasswd -nBC 5');
  });

  it('with one cost, warns about nothing of the kind', () => {
    const path = join(dir, 'same.yml');
    writeFileSync(path, `basic_auth_users:\n  alice: "${bcrypt.hashSync('a', 4)}"\n  bob: "${bcrypt.hashSync('b', 4)}"\n`, { mode: 0o600 });
    expect(loadWebConfig(path).warnings.join('\n')).not.toContain('bcrypt costs');
  });
});

/** A BasicAuth of its own for one test, closed after it. */
async function withAuth(use: (own: BasicAuth) => Promise<void>): Promise<void> {
  const own = new BasicAuth(pino({ level: 'silent' }));
  try {
    await use(own);
  } finally {
    await own.close();
  }
}

describe('wrong guesses from one client (found by review: eight connections locked every new scraper out)', () => {
  it('never take the last free check from a client address with none running: another client still gets its check', async () => {
    await withAuth(async (own) => {
        const users = new Map([['prometheus', bcrypt.hashSync('right', 8)]]);
        const guesses = Array.from({ length: 8 }, (_, i) => own.check(users, { username: 'prometheus', password: `guess-${i}` }, '192.0.2.66'));
        const scraper = own.check(users, { username: 'prometheus', password: 'right' }, '192.0.2.10');
        const answers = await Promise.all(guesses);
        // Three of the guesser's eight were checked at once and four waited their turn; the eighth was turned away (429).
        expect(answers.filter((answer) => answer === false)).toHaveLength(7);
        expect(answers.filter((answer) => answer === undefined)).toHaveLength(1);
        expect(await scraper).toBe(true);
    });
  });

  it('behind one address (a reverse proxy), two guessing connections leave room for a scraper\'s check', async () => {
    await withAuth(async (own) => {
        const users = new Map([['prometheus', bcrypt.hashSync('right', 8)]]);
        const guesses = [0, 1].map((i) => own.check(users, { username: 'prometheus', password: `guess-${i}` }, '10.0.0.1'));
        const scraper = own.check(users, { username: 'prometheus', password: 'right' }, '10.0.0.1');
        expect(await Promise.all(guesses)).toEqual([false, false]);
        expect(await scraper).toBe(true);
    });
  });

  it('requests with the same credentials at once share one check: a scraper\'s parallel first scrapes are not turned away', async () => {
    await withAuth(async (own) => {
        const users = new Map([['prometheus', bcrypt.hashSync('right', 8)]]);
        const answers = await Promise.all(Array.from({ length: 5 }, () => own.check(users, { username: 'prometheus', password: 'right' }, '192.0.2.10')));
        expect(answers).toEqual([true, true, true, true, true]);
    });
  });

  it('a check that cannot start (no thread for the worker) gives its slot back: the client is not locked out after (found by review)', async () => {
    await withAuth(async (own) => {
      const users = new Map([['prometheus', bcrypt.hashSync('right', 4)]]);
      const failing = vi.spyOn(BcryptWorker.prototype, 'compare').mockImplementation(() => {
        throw new Error('ERR_WORKER_INIT_FAILED');
      });
      try {
        for (let i = 0; i < 4; i++) await expect(own.check(users, { username: 'prometheus', password: `p${i}` }, '192.0.2.9')).rejects.toThrow('ERR_WORKER_INIT_FAILED');
      } finally {
        failing.mockRestore();
      }
      // The worker starts again: the same address gets its check, and a second one beside it.
      expect(await Promise.all([own.check(users, { username: 'prometheus', password: 'right' }, '192.0.2.9'), own.check(users, { username: 'prometheus', password: 'other' }, '192.0.2.9')])).toEqual([true, false]);
    });
  });

  it('the same wrong credentials again are refused without a check', async () => {
    await withAuth(async (own) => {
        const users = new Map([['prometheus', bcrypt.hashSync('right', 10)]]);
        const credentials = { username: 'prometheus', password: 'wrong' };
        expect(await own.check(users, credentials, 'a')).toBe(false);
        const compare = vi.spyOn(BcryptWorker.prototype, 'compare');
        try {
          // From another connection of the same client, and at once: no check runs, so none is turned away either.
          const again = await Promise.all([own.check(users, credentials, 'a'), own.check(users, credentials, 'a')]);
          expect(again).toEqual([false, false]);
          // Counted, not timed: a 20 ms bound on two map lookups was one preemption from failing.
          expect(compare).not.toHaveBeenCalled();
        } finally {
          compare.mockRestore();
        }
        // The right password still checks out.
        expect(await own.check(users, { username: 'prometheus', password: 'right' }, 'a')).toBe(true);
    });
  });
});

/**
 * The worker's checks held by the test: each compare waits until the test finishes it, so who holds a check and who
 * waits is decided by the code under test, not by how fast bcrypt runs here.
 */
function heldChecks(): {
  started: () => number;
  finish: (index: number, ok?: boolean) => void;
  drain: (total: number) => Promise<void>;
  restore: () => void;
} {
  const held: ((ok: boolean) => void)[] = [];
  const spy = vi.spyOn(BcryptWorker.prototype, 'compare').mockImplementation(() => new Promise<boolean>((resolve) => held.push(resolve)));
  const finish = (index: number, ok = false): void => held[index]?.(ok);
  return {
    started: () => held.length,
    finish,
    // Ends checks as they are dealt until `total` have started, and ends those too.
    drain: async (total) => {
      for (let next = 0; next < total; next++) {
        await vi.waitFor(() => expect(held.length).toBeGreaterThan(next));
        finish(next);
      }
    },
    restore: () => spy.mockRestore(),
  };
}

describe('waiting for a check (found by review: four guessing addresses kept every new scraper on 429)', () => {
  const users = new Map([['prometheus', bcrypt.hashSync('right', 4)]]);
  const guess = (own: BasicAuth, client: string, n: number, waitMs?: number): Promise<boolean | undefined> =>
    own.check(users, { username: 'prometheus', password: `guess-${client}-${n}` }, client, waitMs);

  /** An auth of its own whose worker's checks the test holds and finishes (heldChecks). */
  async function held(use: (own: BasicAuth, checks: ReturnType<typeof heldChecks>) => Promise<void>): Promise<void> {
    const checks = heldChecks();
    try {
      await withAuth((own) => use(own, checks));
    } finally {
      checks.restore();
    }
  }

  /** Such an auth whose four checks are held by guessers of four addresses (checks 0–3), for a test to run beside them. */
  function busy(use: (own: BasicAuth, checks: ReturnType<typeof heldChecks>, guesses: Promise<boolean | undefined>[]) => Promise<void>): Promise<void> {
    return held(async (own, checks) => {
      const guesses = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].map((client) => guess(own, client, 0));
      expect(checks.started()).toBe(4);
      await use(own, checks, guesses);
    });
  }

  it('deals checks round-robin by address: a scraper behind four busy guessers is dealt one within four', async () => {
    await held(async (own, checks) => {
    // .1's three all start (an address may hold three; the fourth is kept for another), .2's first takes that.
    // The rest wait, their turns by address in the order they came: .2, .3, .4, then the scraper.
    const guesses = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].flatMap((client) => [0, 1, 2].map((n) => guess(own, client, n)));
    const scraper = own.check(users, { username: 'prometheus', password: 'right' }, '198.51.100.7');
    expect(checks.started()).toBe(4);
    for (let i = 0; i < 4; i++) checks.finish(i);
    // Before, the scraper was answered 429 at once, and again each time it came back while the guessing went on.
    await vi.waitFor(() => expect(checks.started()).toBe(8));
    checks.finish(7, true);
    expect(await scraper).toBe(true);
    await checks.drain(13);
    expect((await Promise.all(guesses)).every((answer) => answer === false)).toBe(true);
    });
  });

  it('turns away a fifth waiter of one address, and past 256 waiting makes room for a new address from the one with the most', async () => {
    await held(async (own, checks) => {
    // Three of one address start and four wait; its eighth is refused. Another address takes the fourth check.
    const first = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => guess(own, '192.0.2.1', n));
    expect(checks.started()).toBe(3);
    const other = guess(own, '192.0.2.99', 0);
    expect(checks.started()).toBe(4);
    expect(await first[7]).toBeUndefined();
    // 252 more waiting from 63 addresses, 4 each: 256 in all.
    const crowd = Array.from({ length: 63 }, (_, a) => [0, 1, 2, 3].map((n) => guess(own, `203.0.113.${String(a)}`, n))).flat();
    // The line is full: a new address takes the place of the newest waiter of the first address with the most.
    const newcomer = guess(own, '198.51.100.7', 0);
    expect(await first[6]).toBeUndefined();
    // An address already waiting gets no room that way.
    expect(await guess(own, '203.0.113.0', 9)).toBeUndefined();
    await checks.drain(4 + 3 + 252 + 1);
    expect(await newcomer).toBe(false);
    expect(await other).toBe(false);
    expect((await Promise.all(crowd)).every((answer) => answer === false)).toBe(true);
    expect(checks.started()).toBe(260);
    });
  });
  it('requests with the same credentials that waited share the check one of them was dealt (found by review: each burned one)', async () => {
    await busy(async (own, checks, guesses) => {
    const scrapes = [0, 1, 2].map(() => own.check(users, { username: 'prometheus', password: 'right' }, '198.51.100.7'));
    checks.finish(0);
    await vi.waitFor(() => expect(checks.started()).toBe(5));
    // The next checks freed go to the scraper's other two requests, which share the one under way.
    checks.finish(1);
    checks.finish(2);
    // Dealt, and gone on: no check of their own while the first is under way.
    await new Promise((resolve) => setImmediate(resolve));
    expect(checks.started()).toBe(5);
    checks.finish(4, true);
    expect(await Promise.all(scrapes)).toEqual([true, true, true]);
    expect(checks.started()).toBe(5);
    checks.finish(3);
    expect(await Promise.all(guesses)).toEqual([false, false, false, false]);
    });
  });

  it('a waiter whose request went away leaves the line: the next check goes to one still waiting (found by review)', async () => {
    await busy(async (own, checks, guesses) => {
    const gone = new AbortController();
    const left = own.check(users, { username: 'prometheus', password: 'from-a-closed-connection' }, '198.51.100.1', 8_000, gone.signal);
    const staying = own.check(users, { username: 'prometheus', password: 'right' }, '198.51.100.2');
    gone.abort();
    expect(await left).toBeUndefined();
    checks.finish(0);
    await vi.waitFor(() => expect(checks.started()).toBe(5));
    checks.finish(4, true);
    expect(await staying).toBe(true);
    for (const i of [1, 2, 3]) checks.finish(i);
    expect(await Promise.all(guesses)).toEqual([false, false, false, false]);
    expect(checks.started()).toBe(5);
    });
  });

  it("requests pipelined on a connection that is reset leave the line: the connection's close, not the response's (found by review)", async () => {
    await busy(async (own, checks, guesses) => {
    // A queued response hears nothing of a reset; only its connection does.
    const connection = Object.assign(new EventEmitter(), { remoteAddress: '198.51.100.3', destroyed: false });
    const statuses: number[] = [];
    const request = (password: string) => ({ headers: { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` }, socket: connection, url: '/metrics' });
    const response = () => {
      const res = { statusCode: 0, setHeader: () => undefined, writeHead: (status: number) => (statuses.push(status), res), end: () => undefined, headersSent: false };
      return res;
    };
    const pipelined = [0, 1, 2].map((i) => own.admit(users, request(`pipelined-${i}`) as never, response() as never));
    // One listener on the connection however many of its requests wait.
    expect(connection.listenerCount('close')).toBe(1);
    connection.emit('close');
    expect(await Promise.all(pipelined)).toEqual([false, false, false]);
    for (const i of [0, 1, 2, 3]) checks.finish(i);
    expect(await Promise.all(guesses)).toEqual([false, false, false, false]);
    // No check was dealt to them after the reset.
    expect(checks.started()).toBe(4);
    });
  });

  it(`lets ${MAX_SHARING_ONE_CHECK} requests wait on one check under way; more get 429 at once (pipelined, they grew memory by 250 MB; found by review)`, async () => {
    await held(async (own, checks) => {
      const same = () => own.check(users, { username: 'nobody', password: 'fresh' }, '198.51.100.9');
      const first = same();
      expect(checks.started()).toBe(1);
      const sharing = Array.from({ length: MAX_SHARING_ONE_CHECK + 4 }, same);
      // The four past the bound are answered before the check ends.
      const answered = await Promise.all(sharing.slice(MAX_SHARING_ONE_CHECK));
      expect(answered).toEqual([undefined, undefined, undefined, undefined]);
      checks.finish(0);
      expect(await first).toBe(false);
      expect((await Promise.all(sharing.slice(0, MAX_SHARING_ONE_CHECK))).every((answer) => answer === false)).toBe(true);
      expect(checks.started()).toBe(1);
    });
  });

  it('turns a waiter away after 2 s, and a closed server answers every waiter at once', async () => {
    const checks = heldChecks();
    vi.useFakeTimers();
    try {
      const own = new BasicAuth(pino({ level: 'silent' }));
      [0, 1, 2, 3].map((n) => guess(own, `192.0.2.${n}`, 0));
      const late = guess(own, '198.51.100.7', 0, 2_000);
      await vi.advanceTimersByTimeAsync(1_999);
      let answered = false;
      void late.then(() => (answered = true));
      await Promise.resolve();
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await late).toBeUndefined();
      const closing = guess(own, '198.51.100.8', 0, 2_000);
      await own.close();
      expect(await closing).toBeUndefined();
      // The checks it holds are the worker's, ended with it; nothing waits.
      expect(checks.started()).toBe(4);
    } finally {
      vi.useRealTimers();
      checks.restore();
    }
  });
});

describe('the line for checks, under any sequence (property)', () => {
  const users = new Map([['u', bcrypt.hashSync('right', 4)]]);
  // Arrivals most often, of enough credentials that checks queue; a few shared ones, finishes and closed connections.
  const op = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('arrive' as const), client: fc.nat(5), credential: fc.nat(11) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), client: fc.nat(5) }) },
  );

  it('never runs more than 4 checks at once, and answers every request once the checks end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const checks = heldChecks();
        const own = new BasicAuth(pino({ level: 'silent' }));
        try {
          const connections = Array.from({ length: 6 }, () => new AbortController());
          const answers: Promise<boolean | undefined>[] = [];
          let finished = 0;
          const turn = () => new Promise((resolve) => setImmediate(resolve));
          for (const step of ops) {
            if (step.kind === 'arrive') {
              const client = `10.0.0.${String(step.client)}`;
              answers.push(own.check(users, { username: 'u', password: `p${String(step.credential)}` }, client, 60_000, connections[step.client]?.signal));
            } else if (step.kind === 'finish') {
              if (finished < checks.started()) checks.finish(finished++);
            } else {
              connections[step.client]?.abort();
            }
            await turn();
            expect(checks.started() - finished).toBeLessThanOrEqual(4);
            expect(checks.started()).toBeLessThanOrEqual(answers.length);
          }
          // End every check as it is dealt: nobody is left waiting.
          while (finished < checks.started()) {
            checks.finish(finished++);
            await turn();
            expect(checks.started() - finished).toBeLessThanOrEqual(4);
          }
          const settled = await Promise.all(answers);
          expect(settled.every((answer) => answer === false || answer === undefined)).toBe(true);
        } finally {
          await own.close();
          checks.restore();
        }
      }),
      { numRuns: 200 },
    );
  });
});
