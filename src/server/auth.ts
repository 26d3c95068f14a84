/**
 * HTTP Basic authentication against the web config's bcrypt hashes. A bcrypt check costs ~100 ms of CPU,
 * so a credential that checked out once is remembered (by a digest, never in clear) and scrapes stay cheap;
 * wrong guesses are remembered as wrong for a minute (by digest too), run a few at a time with turns dealt by
 * client address, and cost the same whether or not the username exists, so timing does not reveal usernames.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { BcryptWorker } from './bcrypt-worker.js';
import { sendText } from './respond.js';
import { ScrapeSlots } from './slots.js';
import { probeWaitMs } from './probe-query.js';
import { loggedPath } from './target.js';
import { bcryptCost } from './web-config.js';
import { LogThrottle } from '../util/log-throttle.js';

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
/** bcrypt checks handed to the worker at once; more wait their turn (below). */
const MAX_CHECKS = 4;
/**
 * Requests that need a check when none is free wait, their turns dealt round-robin by client address, so guesses
 * from a few addresses cannot keep every other scraper on 429: four addresses each holding one check did that, for
 * as long as they went on (found by review). A wait is bounded in time (the scrape's own timeout, less a margin, at
 * most MAX_WAIT_MS), per address and in all; past that, 429. One worker checks ~10 cost-10 hashes a second, so a
 * scraper behind N guessing addresses is dealt its check after about N / 10 s: 2 s and 32 waiting in all held
 * against ~16 addresses only (found by review), 8 s and 256 against ~80.
 */
export const MAX_WAIT_MS = 8_000;
/** Requests that may wait on one check under way (a scraper's first parallel scrapes); more get 429. */
export const MAX_SHARING_ONE_CHECK = 16;
const MAX_WAITING_PER_CLIENT = 4;
const MAX_WAITING = 256;
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

/** One signal per connection, aborted when it closes: one listener however many of its requests wait. */
const closed = new WeakMap<object, AbortSignal>();

function closedSignal(socket: IncomingMessage['socket']): AbortSignal {
  let signal = closed.get(socket);
  if (signal === undefined) {
    const controller = new AbortController();
    if (socket.destroyed) controller.abort();
    else socket.once('close', () => controller.abort());
    signal = controller.signal;
    closed.set(socket, signal);
  }
  return signal;
}

/** Requests whose credentials matched a configured user: they may use what needs a user (POST /-/reload). */
const authenticated = new WeakSet<IncomingMessage>();

export function isAuthenticated(req: IncomingMessage): boolean {
  return authenticated.has(req);
}

/** A request waiting for a bcrypt check: settled true when one is dealt to it, false when it is turned away. */
interface Waiter {
  settle(dealt: boolean): void;
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
  /** Requests sharing a check under way, counted by its credentials' digest (MAX_SHARING_ONE_CHECK each). */
  readonly #sharing = new ScrapeSlots(Number.POSITIVE_INFINITY, MAX_SHARING_ONE_CHECK);
  /** Requests waiting for a check, by client address; the Map's order is the order of turns. */
  readonly #waiting = new Map<string, Waiter[]>();
  #waiters = 0;
  #rejected = 0;
  /** The latest rejected request's address and path, for the line that counts it. */
  #rejectedFrom: { remote: string | undefined; path: string | undefined } = { remote: undefined, path: undefined };
  readonly #rejectedLog = new LogThrottle(LOG_EVERY_MS, () => {
    this.#logger.warn(
      { ...this.#rejectedFrom, rejected: this.#rejected },
      'rejected HTTP requests with wrong credentials (basic_auth_users in the web config)',
    );
    this.#rejected = 0;
  });

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * True when the credentials match a user, undefined when that needs a bcrypt check and too many wait already.
   * Every configured username is compared, in constant time, and unknown ones cost a check all the same.
   */
  async check(
    users: ReadonlyMap<string, string>,
    credentials: Credentials,
    client = '',
    waitMs = MAX_WAIT_MS,
    gone?: AbortSignal,
  ): Promise<boolean | undefined> {
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
    if (pending !== undefined) {
      // Bounded: such a request writes nothing while it waits, so Node's brake on a connection whose answers pile up
      // never engaged, and one connection pipelining one unknown credential grew the exporter by 250 MB (found by
      // review). Past the bound, 429 at once: its bytes queue, and the brake holds.
      const shared = this.#sharing.take(key);
      if (shared === undefined) return undefined;
      try {
        return (await pending) && hash !== undefined;
      } finally {
        shared();
      }
    }
    const running = this.#perClient.get(client) ?? 0;
    if (this.#bcrypt.available && this.#running < MAX_CHECKS && (running === 0 || this.#running < MAX_CHECKS - RESERVED_FOR_NEW_CLIENTS)) {
      this.#take(client);
    } else {
      // Dealt a check already taken for it (#take), or turned away.
      if (!(await this.#wait(client, waitMs, gone))) return undefined;
      // The same credentials may have been checked, or be in check, while this one waited: a scraper's parallel
      // first requests each burned a check otherwise (found by review).
      const settled = this.#settled(key, hash);
      const sharing = this.#pending.get(key);
      if (settled !== undefined || sharing !== undefined) {
        this.#give(client);
        return settled ?? ((await sharing) === true && hash !== undefined);
      }
    }
    let ok: boolean;
    let compared: Promise<boolean> | undefined;
    try {
      // Inside the try: starting the worker may throw at once (no thread to be had), and the counts must come back.
      compared = this.#bcrypt.compare(credentials.password, checked);
      this.#pending.set(key, compared);
      ok = await compared;
    } finally {
      // Only its own: another check of these credentials may have started meanwhile (after the cache was cleared).
      if (compared !== undefined && this.#pending.get(key) === compared) this.#pending.delete(key);
      this.#give(client);
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
    // A wait for a check ends before the scraper would give up (its timeout header, less a margin), at most MAX_WAIT_MS.
    const waitMs = Math.min(MAX_WAIT_MS, probeWaitMs(req.headers));
    // Its connection gone while it waits, a request leaves the line: its check would be for nobody. The connection's
    // close, not the response's: a pipelined response still queued hears nothing of a reset (found by review).
    const ok = credentials === undefined ? false : await this.check(users, credentials, req.socket.remoteAddress ?? '', waitMs, closedSignal(req.socket));
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

  /** Ends the bcrypt worker (the server closed); whoever waits for a check is answered 429. */
  close(): Promise<void> {
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    this.#waiters = 0;
    for (const waiter of waiting) waiter.settle(false);
    this.#rejectedLog.close();
    return this.#bcrypt.close();
  }

  /** What is known of these credentials without a check: remembered as good or bad; undefined when a check is due. */
  #settled(key: string, hash: string | undefined): boolean | undefined {
    if (hash !== undefined && this.#good.has(key)) return true;
    const badUntil = this.#bad.get(key);
    return badUntil !== undefined && performance.now() < badUntil ? false : undefined;
  }

  #take(client: string): void {
    this.#running++;
    this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
  }

  /** A check is over: its slot goes to the next address in turn, if one waits. */
  #give(client: string): void {
    this.#running--;
    const left = (this.#perClient.get(client) ?? 1) - 1;
    if (left <= 0) this.#perClient.delete(client);
    else this.#perClient.set(client, left);
    while (this.#running < MAX_CHECKS && this.#waiting.size > 0) {
      const [next, waiters] = this.#waiting.entries().next().value as [string, Waiter[]];
      const waiter = waiters.shift() as Waiter;
      // The address goes to the back of the line, with what it has left.
      this.#waiting.delete(next);
      if (waiters.length > 0) this.#waiting.set(next, waiters);
      this.#waiters--;
      this.#take(next);
      waiter.settle(true);
    }
  }

  /** Waits for a check dealt to this address (true), or is turned away (false): too many wait, or the wait is over. */
  #wait(client: string, waitMs: number, gone?: AbortSignal): Promise<boolean> {
    const mine = this.#waiting.get(client) ?? [];
    if (mine.length >= MAX_WAITING_PER_CLIENT) return Promise.resolve(false);
    if (this.#waiters >= MAX_WAITING && !this.#evictFor(client)) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        settle: (dealt) => {
          clearTimeout(timer);
          // The signal is the connection's, shared by its requests for its life: no listener may stay behind.
          gone?.removeEventListener('abort', leave);
          resolve(dealt);
        },
      };
      /** Leaves the line unserved: its time is up, or its request went away (a check for nobody; found by review). */
      const leave = (): void => {
        clearTimeout(timer);
        gone?.removeEventListener('abort', leave);
        const waiters = this.#waiting.get(client);
        const at = waiters?.indexOf(waiter) ?? -1;
        if (waiters === undefined || at < 0) return;
        waiters.splice(at, 1);
        if (waiters.length === 0) this.#waiting.delete(client);
        this.#waiters--;
        resolve(false);
      };
      const timer = setTimeout(leave, waitMs);
      timer.unref();
      if (gone?.aborted === true) queueMicrotask(leave);
      else gone?.addEventListener('abort', leave, { once: true });
      mine.push(waiter);
      this.#waiting.set(client, mine);
      this.#waiters++;
    });
  }

  /**
   * Makes room for an address that waits for nothing yet, when all the room is taken: the newest waiter of the address
   * with the most goes (429). True when room was made; an address already waiting keeps its place, and no more.
   */
  #evictFor(client: string): boolean {
    if (this.#waiting.has(client)) return false;
    let most: Waiter[] | undefined;
    let mostOf = '';
    for (const [other, waiters] of this.#waiting) {
      if (most === undefined || waiters.length > most.length) [most, mostOf] = [waiters, other];
    }
    if (most === undefined || most.length < 2) return false;
    const evicted = most.pop() as Waiter;
    this.#waiters--;
    if (most.length === 0) this.#waiting.delete(mostOf);
    evicted.settle(false);
    return true;
  }

  /** Wrong credentials, logged without the username (people type passwords into it) and at a bounded rate. */
  #noteRejected(req: IncomingMessage): void {
    this.#rejected++;
    this.#rejectedFrom = { remote: req.socket.remoteAddress, path: loggedPath(req) };
    this.#rejectedLog.noted();
  }
}
