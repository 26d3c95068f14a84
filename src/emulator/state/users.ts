/** Console users of one router and HTTP Basic authentication against them (spec §5). */
import { timingSafeEqual } from 'node:crypto';
import { ALL_POLICIES } from '../types.js';
import type { UserSeed } from '../types.js';

export interface User {
  readonly name: string;
  password: string;
  readonly policies: ReadonlySet<string>;
}

export const DEFAULT_USERS: readonly UserSeed[] = [{ name: 'admin', password: '' }];

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Users {
  readonly #byName = new Map<string, User>();

  constructor(seeds: readonly UserSeed[]) {
    for (const s of seeds) {
      this.#byName.set(s.name, { name: s.name, password: s.password, policies: new Set(s.policies ?? ALL_POLICIES) });
    }
  }

  get(name: string): User | undefined {
    return this.#byName.get(name);
  }

  /** The user of an `Authorization: Basic …` header whose password matches, else undefined. */
  authenticate(header: string | undefined): User | undefined {
    const m = /^Basic\s+([A-Za-z0-9+/=]*)\s*$/i.exec(header ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const user = this.#byName.get(decoded.slice(0, colon));
    return user !== undefined && sameText(user.password, decoded.slice(colon + 1)) ? user : undefined;
  }
}
