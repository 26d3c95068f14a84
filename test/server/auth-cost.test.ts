/**
 * A wrong password costs the same whether or not the username exists, at any bcrypt cost: unknown names are
 * checked at the users' own cost. With a fixed cost-10 dummy, a cost-6 user answered 16 times faster than an
 * unknown name (a cost-12 user 4 times slower, as a review measured), so timing told which names exist. Mixed
 * costs cannot all be hidden: the web config warns about them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { BasicAuth, dummyFor } from '../../src/server/auth.js';
import { bcryptCost, loadWebConfig } from '../../src/server/web-config.js';

const auth = new BasicAuth(pino({ level: 'silent' }));

afterAll(async () => {
  await auth.close();
});

async function medianMs(check: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await check();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2] ?? 0;
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

  it('takes as long as a wrong password for a user that exists', async () => {
    const users = new Map([['prometheus', bcrypt.hashSync('right', 6)]]);
    // Warm the worker first: its first check pays for starting it.
    await auth.check(users, { username: 'prometheus', password: 'warm-up' });
    const known = await medianMs(() => auth.check(users, { username: 'prometheus', password: 'wrong' }));
    const unknown = await medianMs(() => auth.check(users, { username: 'nobody', password: 'wrong' }));
    // Same cost: the same few milliseconds, give or take a busy machine; a cost-10 dummy took 16 times longer.
    expect(unknown).toBeLessThan(known * 4 + 5);
    expect(known).toBeLessThan(unknown * 4 + 5);
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
