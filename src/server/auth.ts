/**
 * HTTP Basic authentication against the web config's bcrypt hashes. A bcrypt check costs ~100 ms of CPU,
 * so a credential that checked out once is remembered (by a digest, never in clear) and scrapes stay cheap;
 * wrong guesses are remembered as wrong for a minute (by digest too), are limited in number at a time, and per
 * client address, and cost the same whether or not the username exists, so timing does not reveal usernames.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BcryptWorker } from './bcrypt-worker.js';
import { sendText } from './respond.js';
import { loggedPath } from './target.js';
import { bcryptCost } from './web-config.js';

/**
 * A bcrypt hash of a random string nobody knows, checked for unknown usernames to keep timing even. A check
 * costs what the hash's cost says, so an unknown name is checked against this hash at the highest cost of the
 * configured hashes (dummyFor): a fixed cost of 10 let a cost-12 user stand out four times slower, and so tell
 * that the name exists.
 */
const DUMMY_HASH = '$2b$10$VkZikHPHTeLDANMcTC6zO.KzePAnXypbXwJuGld7y2nhtLkekubom';
const dummies = new WeakMap<ReadonlyMap<string, string>, string>();

/**
 * The dummy hash for a user list: DUMMY_HASH's salt and digest at the highest cost among the users' hashes (the
 * same cost as theirs when they share one: a list of cost-4 hashes must not make unknown names the slow ones).
 */
export function dummyFor(users: ReadonlyMap<string, string>): string {
  let dummy = dummies.get(users);
  if (dummy === undefined) {
    let cost = 0;
    for (const hash of users.values()) cost = Math.max(cost, bcryptCost(hash));
    if (cost === 0) cost = bcryptCost(DUMMY_HASH);
    dummy = `$2b$${String(cost).padStart(2, '0')}$${DUMMY_HASH.slice(7)}`;
    dummies.set(users, dummy);
  }
  return dummy;
}
/** Remembered good credentials; bounded so a long run with rotating passwords cannot grow it without end. */
const CACHE_LIMIT = 64;
/** bcrypt checks waiting or running; more are turned away (429) instead of queued. */
const MAX_CHECKS = 4;
/**
 * The last free check is kept for a client address with none running: one client guessing from a few connections
 * held all four, and every scraper whose credentials were not remembered yet (after a restart, a rotation, a new
 * replica) got 429 for as long as it went on (found by review). Not one check per address: behind a reverse proxy
 * every client has the proxy's address, and two guessing connections would then have turned every other away.
 */
const RESERVED_FOR_NEW_CLIENTS = 1;
/**
 * Wrong credentials are remembered (by digest) this long: the same wrong guess again costs no bcrypt check. Bounded
 * like the good ones; a guesser that varies its guesses still gets one check at a time per address.
 */
const BAD_REMEMBERED_MS = 60_000;
const BAD_LIMIT = 1_024;
/** At most one log line per this interval about rejected credentials, with the count since the last. */
const LOG_EVERY_MS = 60_000;

const digest = (...parts: string[]): Buffer => createHash('sha256').update(parts.join('\u0000')).digest();

/** Requests whose credentials matched a configured user: they may use what needs a user (POST /-/reload). */
const authenticated = new WeakSet<IncomingMessage>();

export function isAuthenticated(req: IncomingMessage): boolean {
  return authenticated.has(req);
}

export interface Credentials {
  username: string;
  password: string;
}

/** The credentials of an `Authorization: Basic …` header, if it is one. */
export function parseBasic(header: string | undefined): Credentials | undefined {
  const match = /^Basic[ \t]+([A-Za-z0-9+/]+=*)[ \t]*$/i.exec(header ?? '');
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class BasicAuth {
  readonly #logger: Logger;
  readonly #good = new Set<string>();
  /** Wrong credentials by digest, with when they stop being remembered (monotonic ms). */
  readonly #bad = new Map<string, number>();
  /** bcrypt checks waiting or running, by client address, and in all. */
  readonly #perClient = new Map<string, number>();
  #running = 0;
  /** Checks under way by credentials' digest: requests with the same credentials meanwhile share the answer. */
  readonly #pending = new Map<string, Promise<boolean>>();
  readonly #bcrypt = new BcryptWorker(MAX_CHECKS);
  #rejected = 0;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * True when the credentials match a user, undefined when that needs a bcrypt check and too many wait already.
   * Every configured username is compared, in constant time, and unknown ones cost a check all the same.
   */
  async check(users: ReadonlyMap<string, string>, credentials: Credentials, client = ''): Promise<boolean | undefined> {
    const wanted = digest(credentials.username);
    let hash: string | undefined;
    for (const [name, candidate] of users) {
      if (timingSafeEqual(digest(name), wanted) && hash === undefined) hash = candidate;
    }
    const checked = hash ?? dummyFor(users);
    const key = digest(credentials.username, checked, credentials.password).toString('base64');
    if (hash !== undefined && this.#good.has(key)) return true;
    const now = performance.now();
    const badUntil = this.#bad.get(key);
    if (badUntil !== undefined && now < badUntil) return false;
    // Pipelined or parallel requests with the same credentials (a scraper's first scrapes after a restart) wait
    // for the one check rather than each taking a slot of their own.
    const pending = this.#pending.get(key);
    if (pending !== undefined) return (await pending) && hash !== undefined;
    const running = this.#perClient.get(client) ?? 0;
    if (!this.#bcrypt.available || (running > 0 && this.#running >= MAX_CHECKS - RESERVED_FOR_NEW_CLIENTS)) return undefined;
    this.#perClient.set(client, running + 1);
    this.#running++;
    let ok: boolean;
    try {
      // Inside the try: starting the worker may throw at once (no thread to be had), and the counts must come back.
      const compared = this.#bcrypt.compare(credentials.password, checked);
      this.#pending.set(key, compared);
      ok = await compared;
    } finally {
      this.#running--;
      this.#pending.delete(key);
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left <= 0) this.#perClient.delete(client);
      else this.#perClient.set(client, left);
    }
    if (!ok || hash === undefined) {
      if (this.#bad.size >= BAD_LIMIT) this.#bad.clear();
      this.#bad.set(key, performance.now() + BAD_REMEMBERED_MS);
      return false;
    }
    this.#bad.delete(key);
    if (this.#good.size >= CACHE_LIMIT) this.#good.clear();
    this.#good.add(key);
    return true;
  }

  /** Lets the request through (true), or answers it: 401 for missing or wrong credentials, 429 when too many wait. */
  async admit(users: ReadonlyMap<string, string>, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (users.size === 0) return true;
    const credentials = parseBasic(req.headers.authorization);
    const ok = credentials === undefined ? false : await this.check(users, credentials, req.socket.remoteAddress ?? '');
    if (ok === true) {
      authenticated.add(req);
      return true;
    }
    if (ok === undefined) {
      res.setHeader('retry-after', '1');
      sendText(res, 429, 'Too many authentication attempts at once; retry shortly.\n');
      return false;
    }
    if (credentials !== undefined) this.#noteRejected(req);
    res.setHeader('www-authenticate', 'Basic realm="routeros-exporter", charset="UTF-8"');
    sendText(res, 401, 'Unauthorized: this exporter requires HTTP Basic credentials.\n');
    return false;
  }

  /** Ends the bcrypt worker (the server closed). */
  close(): Promise<void> {
    return this.#bcrypt.close();
  }

  /** Wrong credentials, logged without the username (people type passwords into it) and at a bounded rate. */
  #noteRejected(req: IncomingMessage): void {
    this.#rejected++;
    // A rate is a duration: on the monotonic clock, so a wall clock set back an hour does not silence it.
    const now = performance.now();
    if (now - this.#loggedAt < LOG_EVERY_MS) return;
    this.#logger.warn(
      { remote: req.socket.remoteAddress, path: loggedPath(req), rejected: this.#rejected },
      'rejected HTTP requests with wrong credentials (basic_auth_users in the web config)',
    );
    this.#loggedAt = now;
    this.#rejected = 0;
  }
}
