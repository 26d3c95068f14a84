/**
 * Host-name lookups for router connections, kept on this side of libuv's queue.
 *
 * Node resolves a router's host name with getaddrinfo on libuv's thread pool, which runs at most half its threads
 * (2 of 4) on such lookups and queues the rest in a queue nothing can shorten: a connect that times out leaves
 * its lookup queued. While the resolver does not answer, each lookup holds a thread for the resolver's whole
 * timeout (glibc: 5 s per attempt and server), so 2 run per ~10 s while every cycle queues one per router and
 * job: measured at 200 routers every 5 s, ~2,000 lookups a minute piled up, and when the resolver answered again
 * fresh connects waited behind all of them.
 *
 * Here a lookup waits in a queue of its own, one entry per name (every connect that wants a name while its
 * lookup waits or runs gets the same answer), and goes to libuv only when libuv would run it at once. A connect
 * wants its answer only until its connect timeout: an entry nobody wants any more leaves the queue without a
 * lookup. So however long a resolver outage lasts, what waits is at most one lookup per router name, and the
 * first lookups after it are those of connects that still wait. Nothing is cached: an answer serves the connects
 * that asked while it was looked up, and the system's resolver does the caching it is configured to do.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The shape of net.connect's `lookup` option and of dns.lookup with options. */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

interface Waiter {
  callback: LookupCallback;
  /** performance.now() after which the connect that asked has given up. */
  until: number;
}

interface Entry {
  hostname: string;
  options: LookupOptions;
  waiters: Waiter[];
  running: boolean;
}

export interface HostLookupsOptions {
  /** The resolver: dns.lookup unless a test gives another. */
  resolve?: LookupFunction;
  /** Lookups handed to the resolver at once; libuv's share for them unless given. */
  maxRunning?: number;
  now?: () => number;
}

/**
 * How many lookups libuv runs at once: half its thread pool, rounded up (libuv's `slow_io_work_running` limit),
 * from UV_THREADPOOL_SIZE as libuv reads it (4 unless set, at most 1,024).
 */
export function libuvLookupShare(poolSize: string | undefined = process.env['UV_THREADPOOL_SIZE']): number {
  const parsed = Number.parseInt(poolSize ?? '', 10);
  const threads = Number.isFinite(parsed) && parsed > 0 ? Math.min(parsed, 1024) : 4;
  return Math.max(1, Math.floor((threads + 1) / 2));
}

export class HostLookups {
  readonly #resolve: LookupFunction;
  readonly #maxRunning: number;
  readonly #now: () => number;
  /** Entries by name and options, waiting or running; a Map keeps the order they were asked in. */
  readonly #entries = new Map<string, Entry>();
  #running = 0;

  constructor(options: HostLookupsOptions = {}) {
    this.#resolve = options.resolve ?? (systemLookup as LookupFunction);
    this.#maxRunning = Math.max(1, options.maxRunning ?? libuvLookupShare());
    this.#now = options.now ?? (() => performance.now());
  }

  /** A lookup function for net.connect whose callers want an answer for at most `patienceMs`. */
  forConnects(patienceMs: number): LookupFunction {
    return (hostname, options, callback) => this.lookup(hostname, options, callback, patienceMs);
  }

  lookup(hostname: string, options: LookupOptions, callback: LookupCallback, patienceMs: number): void {
    const key = lookupKey(hostname, options);
    const now = this.#now();
    const waiter: Waiter = { callback, until: now + patienceMs };
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      // While a lookup hangs on a silent resolver, each cycle's connects join it: those that gave up leave.
      this.#dropExpired(entry, now);
      entry.waiters.push(waiter);
      return;
    }
    this.#entries.set(key, { hostname, options, waiters: [waiter], running: false });
    this.#pump();
  }

  /** Lookups waiting for their turn and running: for tests and the bench. */
  get counts(): { waiting: number; running: number } {
    return { waiting: this.#entries.size - this.#running, running: this.#running };
  }

  #pump(): void {
    if (this.#running >= this.#maxRunning) return;
    for (const [key, entry] of this.#entries) {
      if (this.#running >= this.#maxRunning) return;
      if (entry.running) continue;
      this.#dropExpired(entry, this.#now());
      if (entry.waiters.length === 0) {
        this.#entries.delete(key);
        continue;
      }
      entry.running = true;
      this.#running++;
      this.#start(key, entry);
    }
  }

  /**
   * Tells the connects that asked and have timed out that the lookup did not come in time: their own timers
   * have failed them (or are about to), and none is left without an answer.
   */
  #dropExpired(entry: Entry, now: number): void {
    if (entry.waiters.every((waiter) => waiter.until > now)) return;
    const expired = entry.waiters.filter((waiter) => waiter.until <= now);
    entry.waiters = entry.waiters.filter((waiter) => waiter.until > now);
    answerAll(expired, lookupTimedOut(entry.hostname));
  }

  #start(key: string, entry: Entry): void {
    let answered = false;
    const answer: LookupCallback = (error, address, family) => {
      // A resolver calls back once; a second call must not run the waiters twice or free a second slot.
      if (answered) return;
      answered = true;
      this.#running--;
      this.#entries.delete(key);
      try {
        answerAll(entry.waiters, error, address, family);
      } finally {
        this.#pump();
      }
    };
    try {
      this.#resolve(entry.hostname, entry.options, answer);
    } catch (error) {
      // dns.lookup throws on arguments it refuses (a name net.connect would never pass): an answer like any other.
      answer(error as NodeJS.ErrnoException, '', undefined);
    }
  }
}

/**
 * Calls every waiter back; one that throws (net's does not) does not keep the others from their answer, and the
 * first error thrown is thrown again after, as the resolver's own callback would have thrown it.
 */
function answerAll(waiters: readonly Waiter[], error: NodeJS.ErrnoException | null, address: string | LookupAddress[] = '', family?: number): void {
  let thrown: { error: unknown } | undefined;
  for (const waiter of waiters) {
    try {
      waiter.callback(error, address, family);
    } catch (caught) {
      thrown ??= { error: caught };
    }
  }
  if (thrown !== undefined) throw thrown.error;
}

/** What a connect that gave up while its lookup waited is told: getaddrinfo's "try again later". */
function lookupTimedOut(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}: no lookup slot before the connect timed out`), {
    code: 'EAI_AGAIN',
    syscall: 'getaddrinfo',
    hostname,
  });
}

/** The options that change an answer, with the name: equal keys get one lookup. */
function lookupKey(hostname: string, options: LookupOptions): string {
  const { family, hints, all, order, verbatim } = options as LookupOptions & { order?: string };
  return `${hostname}\u0000${String(family)}\u0000${String(hints)}\u0000${String(all)}\u0000${String(order)}\u0000${String(verbatim)}`;
}

/** The process's lookups: every router's connects share libuv's pool, so they share one queue. */
export const hostLookups = new HostLookups();
