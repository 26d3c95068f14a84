/**
 * The RouterOS REST client (spec §4): keep-alive connections per router (one for reads), HTTP Basic auth,
 * TLS verification on by default, a timeout on every request and a cap on the size of every reply.
 * It knows the generic surface only; what to ask for is the collectors' business.
 *
 * Read-only by design: the public methods are the ones production calls (list, getSingleton, and run for
 * the ping and bandwidth-test commands). Write verbs live in the tests' subclass, over the same `request`.
 */
import type { buildConnector, Client } from 'undici';
import type { Secret } from '../util/secret.js';
import { basicEncoding, registerCredentials } from '../util/redact.js';
import { RouterOsError } from './errors.js';
import { encodedReplyError, isIdentityEncoding, isJsonContentType, notDataError, parseJsonBodyInSlices } from './body.js';
import { MAX_INFORMATIONAL_ANSWERS, MAX_REPLY_PIECES, ReplyReader, type WholeReply } from './exchange.js';
import { finishInSlices, Slicer } from '../util/slices.js';
import { asSingleRecord, recordListSteps, type RouterRecord } from './records.js';
import { closedUnderneath, mapNetworkError, mapRedirect, mapStatusError, parseErrorBody, TIMEOUT_HINT, timedOutFailure } from './transport-errors.js';
import { encodeMenuPath, queryString } from './paths.js';
import { resumingConnector, type ResumingConnector } from './connector.js';
import type { HostLookups } from './lookup.js';
import { wireLimitFor } from './wire-meter.js';
import { KEEP_WARM_PATH, keepAliveHintMs } from './keep-warm.js';
import { unwatchAbort, watchAbort } from '../util/abort-watch.js';
import { Lane } from './lane.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface RouterOsTls {
  /** PEM certificates to trust instead of the system's roots. */
  ca?: string;
  serverName?: string;
  insecureSkipVerify?: boolean;
}

export interface RouterOsClientOptions {
  /** scheme://host[:port]; the client appends /rest. */
  url: string;
  username: string;
  password: Secret;
  timeoutMs: number;
  tls?: RouterOsTls;
  maxResponseBytes?: number;
  /**
   * Connections for console commands (POST: ping, bandwidth-test), which hold a connection for seconds; reads
   * (GET) share one connection of their own, so a router's jobs that fire together reuse it one after the
   * other instead of opening a connection each. Real routers slow down under parallel REST calls: keep it small.
   */
  connections?: number;
  /**
   * How long an idle connection is kept when the router does not say (no `Keep-Alive: timeout` hint), and the
   * longest a hint is believed: set it above the router's shortest schedule, so each cycle finds its connection
   * open. A shorter hint from the router wins (the router closes then); the reconnect resumes the TLS session.
   */
  keepAliveMs?: number;
  /**
   * Close each connection once it has been idle for CLOSE_IDLE_MS instead (`idle_connection: close`): a router's
   * jobs that fire together still share it, the next cycle reconnects and resumes the TLS session. `keepAliveMs`
   * is then unused, and no keep-warm read is made.
   */
  closeIdle?: boolean;
  /** Where the router's host name is looked up: the process's one queue (lookup.ts) unless a test gives its own. */
  lookups?: HostLookups;
}

/** Without a schedule to match: what undici and most servers use. */
export const DEFAULT_KEEP_ALIVE_MS = 30_000;
/**
 * Undici closes a connection this long before the router's announced keep-alive timeout, so it never sends a
 * request on a socket the router is closing. Undici's default, 2 s, closes a 30 s hint at 28 s.
 */
const KEEP_ALIVE_THRESHOLD_MS = 1_000;
/**
 * How long a connection that is closed when idle waits for more requests: the reads of a router's jobs that fire
 * together follow one another within milliseconds. At 2,000 routers collected in 3 s, at most ~200 connections
 * were open at once instead of 2,000 (the exporter's descriptors, sampled every 0.1 s through a cycle).
 */
export const CLOSE_IDLE_MS = 250;

/**
 * Marks the keep-warm read, with the lane and connection it keeps warm: it plans no keep-warm read of its own, so it
 * cannot sustain itself, and it goes over that connection only, if free, never waiting its turn.
 */
const KEEP_WARM = Symbol('keep-warm');
interface KeepWarmOptions extends RequestOptions {
  [KEEP_WARM]?: { lane: Lane; slot: number };
}

export interface RequestOptions {
  /** Overrides the client's timeout (e.g. a ping that takes count × interval). */
  timeoutMs?: number;
  /** Aborts the request (shutdown); the error is ROS_ERR_ABORTED. */
  signal?: AbortSignal;
}

/** A reply as data, the request as errors name it, and the clock its parse ran on. */
interface Answer {
  value: unknown;
  request: string;
  slicer: Slicer;
}

export interface ListOptions extends RequestOptions {
  /** Equality conditions, AND-combined by the router. */
  where?: Readonly<Record<string, string>>;
  /** Only these properties; always send it for menus with secrets or slow properties. */
  proplist?: readonly string[];
  /**
   * For menus that answer a list on some boards and one bare object on others (system/health: sensor rows on
   * RouterOS 7 hardware, an object on CHR and older firmware): a bare object comes back as a one-element list
   * instead of a shape error. The caller tells the forms apart by their keys.
   */
  objectAsList?: boolean;
}

/** Every verb the transport speaks. Production asks with GET and POST only (reads and console commands); the
 * write verbs exist for the test-only client in test/helpers/rest-client.ts, which goes through `request`. */
export type Method = 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';

export class RouterOsClient {
  readonly #origin: string;
  readonly #connector: ResumingConnector;
  /** This router's connects that wait for their host name's lookup (lookup.ts): none for an address. */
  #lookingUp = 0;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  /** Made once: undici only reads them, and a fleet makes thousands of requests per cycle. */
  readonly #readHeaders: Readonly<Record<string, string>>;
  readonly #bodyHeaders: Readonly<Record<string, string>>;
  /** GET: one connection, lent to one read at a time; the reads after it wait their turn, in order (lane.ts). */
  readonly #reads: Lane;
  /**
   * Everything else (console commands), on up to `connections` connections of their own, made on first use (most
   * routers never run a command).
   */
  #commands: Lane | undefined;
  readonly #commandConnections: number;
  readonly #commandOptions: Client.Options;
  /** Each lane's keep-warm reads, made by this client: one function for both lanes. */
  readonly #keepWarmSender = (lane: Lane, slot: number, timeoutMs: number): void => this.#sendKeepWarm(lane, slot, timeoutMs);
  /** Closed for good: a request after `close` fails on a destroyed Client instead of opening a connection. */
  #closed = false;
  /** How long undici keeps an idle connection when the router gives no hint, and the most it believes. */
  readonly #keepAliveMs: number;
  readonly #keepAliveMaxMs: number;
  /** `idle_connection: close`: no keep-warm read; undici closes the connection CLOSE_IDLE_MS after its last reply. */
  readonly #closeIdle: boolean;
  /** How many read connections were opened so far: a read that opened none went over a kept connection. */
  #readConnects = 0;

  constructor(options: RouterOsClientOptions) {
    const url = new URL(options.url);
    this.#origin = url.origin;
    // Built once; never logged, never part of an error (errors name only method and path). Registered for
    // redaction, so a router or proxy that echoes the header back cannot put it into an error or a log line.
    registerCredentials(options.username, options.password.reveal());
    const authorization = 'Basic ' + basicEncoding(options.username, options.password.reveal());
    // Literals rather than spreads, here and for the dispatchers' options below: on Node 20 an object spread and
    // then given more fields gets a V8 map of its own, three per router kept for good (6,000 at 2,000 routers).
    this.#readHeaders = { authorization, accept: 'application/json' };
    this.#bodyHeaders = { authorization, accept: 'application/json', 'content-type': 'application/json' };
    this.#timeoutMs = options.timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const tls = options.tls ?? {};
    this.#closeIdle = options.closeIdle === true;
    const keepAliveMs = this.#closeIdle ? CLOSE_IDLE_MS : (options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
    this.#keepAliveMs = keepAliveMs;
    // A router's longer hint must not keep a connection that is to close when idle.
    this.#keepAliveMaxMs = this.#closeIdle ? CLOSE_IDLE_MS : Math.max(keepAliveMs, DEFAULT_KEEP_ALIVE_MS);
    // One connector for reads and commands, so a session one of them got serves the other's reconnect too.
    const connect = (this.#connector = resumingConnector({
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
      rejectUnauthorized: tls.insecureSkipVerify !== true,
      timeoutMs: options.timeoutMs,
      ...(options.lookups === undefined ? {} : { lookups: options.lookups }),
      lookupWatch: { started: () => this.#lookingUp++, ended: () => this.#lookingUp-- },
      maxReplyWireBytes: wireLimitFor(this.#maxResponseBytes),
    }));
    const countedConnect: buildConnector.connector = (connectOptions, callback) => {
      this.#readConnects++;
      connect(connectOptions, callback);
    };
    const readOptions: Client.Options = {
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: this.#keepAliveMaxMs,
      keepAliveTimeoutThreshold: KEEP_ALIVE_THRESHOLD_MS,
      connect: countedConnect,
      pipelining: 1,
    };
    this.#reads = new Lane('read', 1, this.#origin, readOptions, this.#keepWarmSender);
    this.#commandOptions = {
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: this.#keepAliveMaxMs,
      keepAliveTimeoutThreshold: KEEP_ALIVE_THRESHOLD_MS,
      connect,
      pipelining: 1,
    };
    const connections = options.connections ?? 2;
    // Checked here, not at the first command: a bad count is the caller's mistake, not a router's failure.
    if (!Number.isInteger(connections) || connections < 1) throw new RangeError(`connections must be a whole number of at least 1, not ${connections}`);
    this.#commandConnections = connections;
  }

  /** The command connections, made on first use. */
  #commandLane(): Lane {
    return (this.#commands ??= new Lane('command', this.#commandConnections, this.#origin, this.#commandOptions, this.#keepWarmSender));
  }

  /** GET /<menu>: a list of records. */
  async list(menu: string, options: ListOptions = {}): Promise<RouterRecord[]> {
    const path = encodeMenuPath(menu) + queryString(options.where, options.proplist);
    const { value, request, slicer } = await this.request('GET', path, undefined, options);
    if (options.objectAsList === true && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return [asSingleRecord(value, request)];
    }
    // Checked in slices on the parse's clock, so the records share the budget of the parse's last slice: what a
    // record costs follows its fields, not the list's length (378 records of 10,000 fields took 0.5 s).
    try {
      return await finishInSlices(recordListSteps(value, request), slicer);
    } catch (error) {
      throw this.#failure(error, request, 'body', false, options.signal);
    }
  }

  /** GET /<menu> of a singleton menu such as system/resource. */
  async getSingleton(menu: string, options: ListOptions = {}): Promise<RouterRecord> {
    const path = encodeMenuPath(menu) + queryString(options.where, options.proplist);
    const { value, request } = await this.request('GET', path, undefined, options);
    return asSingleRecord(value, request);
  }

  /** POST /<command path>: any console command (spec §4.1): a list, an object, or [] as the router sends it. */
  async run(command: string, parameters: Readonly<Record<string, unknown>> = {}, options: RequestOptions = {}): Promise<unknown> {
    const { value } = await this.request('POST', encodeMenuPath(command), parameters, options);
    return value;
  }

  /** Closes the connections; requests not yet answered, waiting, or made after fail with ROS_ERR_ABORTED. */
  async close(): Promise<void> {
    this.#closed = true;
    // First: undici's destroy would wait for a connect under way, as long as the router's timeout.
    this.#connector.abortConnecting();
    await Promise.all([this.#reads.close(), this.#commands?.close()]);
  }

  /** How long undici keeps a connection open now that it is idle, from its last reply's header. */
  #idleExpiryMs(keepAlive: string | string[] | undefined): number {
    const hint = keepAliveHintMs(keepAlive);
    return hint === undefined ? this.#keepAliveMs : Math.min(hint - KEEP_ALIVE_THRESHOLD_MS, this.#keepAliveMaxMs);
  }

  /**
   * The keep-warm read over connection `slot` of `lane`, if it is open and free now; its failure is the next real
   * request's to report (it reconnects as it would have).
   */
  #sendKeepWarm(lane: Lane, slot: number, timeoutMs: number): void {
    if (this.#closed || !lane.has(slot) || lane.turns.isLent(slot)) return;
    // No longer than the connection has left: later it keeps nothing open, and a router that hangs on it must
    // not hold the next cycle's requests, which queue behind it, for a whole timeout.
    const options: KeepWarmOptions = { timeoutMs: Math.min(timeoutMs, this.#timeoutMs), [KEEP_WARM]: { lane, slot } };
    this.request('GET', KEEP_WARM_PATH, undefined, options).catch(() => undefined);
  }

  /**
   * The one request path: every public method and the tests' subclass go through it, so timeouts, the size
   * cap, redirects and error mapping cannot differ between what production does and what tests exercise.
   * `path` is already encoded (paths.ts) and starts with `/`.
   */
  protected async request(
    method: Method,
    path: string,
    body: unknown,
    options: RequestOptions,
  ): Promise<Answer> {
    const query = path.indexOf('?');
    const request = `${method} /rest${query < 0 ? path : path.slice(0, query)}`;
    // One plain timer per request, and no AbortSignal.timeout / AbortSignal.any, which cost a weak reference, a
    // finalizer and a DOMException each, thousands of times per cycle in a fleet.
    const stop: Stop = { stopped: false, timedOut: false, reason: undefined, notify: undefined };
    const halt = (reason: unknown, timedOut: boolean): void => {
      if (stop.stopped) return;
      Object.assign(stop, { stopped: true, timedOut, reason });
      stop.notify?.(reason);
    };
    const timer = setTimeout(() => halt(new Error('request timeout'), true), options.timeoutMs ?? this.#timeoutMs);
    timer.unref();
    const external = options.signal;
    const onAbort = (): void => halt(external?.reason, false);
    if (external?.aborted === true) onAbort();
    else if (external !== undefined) watchAbort(external, onAbort);
    try {
      if (stop.stopped) throw this.#failure(stop.reason, request, 'connect', stop.timedOut, external);
      let reply: WholeReply;
      const keepWarm = (options as KeepWarmOptions)[KEEP_WARM];
      // Reads go one after the other over the router's one read connection, commands (which hold theirs for
      // seconds: a ping runs count × interval) over theirs. Undici would queue them on its dispatchers too, but when
      // a connection cannot be made it left a queued request waiting past its own timeout; queued here, a request
      // waits only for those before it, and its timeout (or abort) ends the wait.
      const lane = keepWarm?.lane ?? (method === 'GET' ? this.#reads : this.#commandLane());
      let slot: number;
      if (keepWarm === undefined) slot = await this.#turn(lane, stop, request, external);
      else if (lane.turns.takeIf(keepWarm.slot)) slot = keepWarm.slot;
      else throw new RouterOsError('ROS_ERR_ABORTED', `${request}: not sent: its connection was taken meanwhile`, { request });
      const warmer = lane.warmer(slot);
      // Now that it has the connection: a request that waited its turn behind another ends no idle period.
      if (keepWarm === undefined) warmer.readStarted();
      // The reply's Keep-Alive header; null while no reply came or the reply closes its connection.
      let keepAlive: string | string[] | undefined | null = null;
      try {
        // A keep-warm read is not sent again: on a closed connection it has nothing left to keep, and sending it
        // once more would open a new connection only to keep that one (the next real read reconnects if it must).
        reply = await this.#exchange(method, path, body, request, stop, external, lane, slot, lane === this.#reads && keepWarm === undefined);
        // A reply that closes its connection (`Connection: close`) leaves nothing to keep warm: undici closes it
        // whatever the Keep-Alive hint says, and a keep-warm read would only open a connection of its own.
        keepAlive = closesConnection(reply.headers['connection']) ? null : reply.headers['keep-alive'];
      } finally {
        stop.notify = undefined;
        lane.turns.give(slot);
        if (keepWarm === undefined) {
          warmer.readEnded(this.#closeIdle || lane.turns.isLent(slot) || keepAlive === null ? undefined : this.#idleExpiryMs(keepAlive));
        }
      }
      return await this.#answer(method, reply, request, external);
    } finally {
      clearTimeout(timer);
      if (external !== undefined) unwatchAbort(external, onAbort);
    }
  }

  /** A connection of `lane` for this request, once its turn comes; its timeout or abort fails the wait. */
  async #turn(lane: Lane, stop: Stop, request: string, external: AbortSignal | undefined): Promise<number> {
    try {
      return await lane.turns.take(stop);
    } catch (error) {
      throw this.#failure(error, request, lane.kind === 'read' ? 'queue' : 'command queue', stop.timedOut, external);
    }
  }

  /**
   * Sends the request over connection `slot` of `lane` and reads the whole reply; halting `stop` meanwhile fails
   * it at once and aborts it.
   */
  async #exchange(
    method: Method,
    path: string,
    body: unknown,
    request: string,
    stop: Stop,
    external: AbortSignal | undefined,
    lane: Lane,
    slot: number,
    resendable: boolean,
  ): Promise<WholeReply> {
    if (stop.stopped) throw this.#failure(stop.reason, request, 'connect', stop.timedOut, external);
    const dispatcher = lane.client(slot, this.#closed);
    const connectsBefore = this.#readConnects;
    const reader = new ReplyReader(
      this.#maxResponseBytes,
      () => this.#tooLarge(request),
      () =>
        new RouterOsError(
          'ROS_ERR_PARSE',
          `${request}: the reply came in more than ${MAX_REPLY_PIECES} pieces of under 64 bytes; the read was stopped: check that nothing (a proxy) answers in the router's place`,
          { request },
        ),
      () =>
        new RouterOsError(
          'ROS_ERR_PARSE',
          `${request}: more than ${MAX_INFORMATIONAL_ANSWERS} informational answers (1xx) came before any reply; the read was stopped: check that nothing (a proxy) answers in the router's place`,
          { request },
        ),
    );
    stop.notify = (reason): void => reader.stop(reason);
    try {
      dispatcher.dispatch(
        body === undefined
          ? { method, path: `/rest${path}`, headers: this.#readHeaders }
          : { method, path: `/rest${path}`, headers: this.#bodyHeaders, body: JSON.stringify(body) },
        reader,
      );
      return await reader.reply;
    } catch (error) {
      if (reader.answered) throw this.#failure(error, request, 'body', stop.timedOut, external);
      if (!this.#closed) {
        // No reply came: whatever the connection's state, the next request over it starts on a fresh Client.
        lane.drop(dispatcher, slot);
        // A kept connection the router closed as the read went out (its idle timer firing as the request crossed
        // it, with or without a Keep-Alive hint): nothing came back, so the read goes once more, on a new
        // connection, within the same deadline. Only a read (a GET changes nothing on the router, so sending it
        // twice is harmless) the caller asked for (`resendable`), only once, and only from a kept connection: a
        // router that drops new connections fails as before, at once.
        if (resendable && !stop.stopped && this.#readConnects === connectsBefore && closedUnderneath(error)) {
          resent++;
          return this.#exchange(method, path, body, request, stop, external, lane, slot, false);
        }
      }
      throw this.#failure(error, request, 'connect', stop.timedOut, external);
    }
  }

  /**
   * A complete reply as data, or the error it stands for. A large reply is parsed in slices that give the event
   * loop back between them (body.ts), so a router's 30 MB answer does not hold every scrape and every other run.
   */
  async #answer(method: Method, reply: WholeReply, request: string, external: AbortSignal | undefined): Promise<Answer> {
    const { parts, length, headers } = reply;
    // A parse in slices stops at its next pause once the run is stopped (shutdown, reload, its deadline).
    const slicer = new Slicer({ signal: external });
    const status = reply.statusCode;
    if (status >= 400) {
      let parsed: unknown;
      try {
        parsed = length === 0 ? undefined : await parseJsonBodyInSlices(parts, request, slicer);
      } catch {
        parsed = undefined;
      }
      throw mapStatusError(status, parseErrorBody(parsed), request);
    }
    // Only a 2xx is an answer. A 3xx is never followed (undici follows none unless told to) nor believed,
    // whatever its body: an empty list from a captive portal's redirect is not "no peers".
    if (status >= 300) throw mapRedirect(status, headerText(headers['location']), request, this.#origin);
    if (status < 200) throw notDataError(request, status, headerText(headers['content-type']), length === 0);
    // DELETE answers nothing (spec §4); every other request is asked for data, and an empty reply is not data.
    if (method === 'DELETE' && length === 0) return { value: undefined, request, slicer };
    if (!isIdentityEncoding(headers['content-encoding'])) {
      throw encodedReplyError(request, status, headerValues(headers['content-encoding']) ?? '');
    }
    if (length === 0 || !isJsonContentType(headers['content-type'])) {
      // Every Content-Type given, as one: the first alone said JSON where a second said HTML (found by review).
      throw notDataError(request, status, headerValues(headers['content-type']), length === 0);
    }
    try {
      return { value: await parseJsonBodyInSlices(parts, request, slicer), request, slicer };
    } catch (error) {
      throw this.#failure(error, request, 'body', false, external);
    }
  }

  #tooLarge(request: string): RouterOsError {
    return new RouterOsError(
      'ROS_ERR_BODY_TOO_LARGE',
      `${request}: the reply is larger than ${this.#maxResponseBytes} bytes; the read was stopped: check the router for runaway entries in this menu`,
      { request },
    );
  }

  #failure(
    error: unknown,
    request: string,
    phase: 'queue' | 'command queue' | 'connect' | 'body',
    timedOut: boolean,
    external: AbortSignal | undefined,
  ): RouterOsError {
    if (error instanceof RouterOsError) return error;
    if (external?.aborted === true) {
      return new RouterOsError('ROS_ERR_ABORTED', `${request}: aborted (shutting down or reloading)`, { request, cause: error });
    }
    if (this.#closed) {
      // Its connection was closed by us, not lost: "cannot connect… is www-ssl enabled?" would send the operator to
      // a router that did nothing wrong (a ping in flight at shutdown, reload, or the router's removal).
      return new RouterOsError('ROS_ERR_ABORTED', `${request}: not completed: the router's client was closed (shutting down, reloading, or the router removed)`, { request, cause: error });
    }
    timedOut = timedOutFailure(error, timedOut);
    if (timedOut && phase === 'connect' && this.#lookingUp > 0) {
      // Its connect was still waiting for the router's address: "no answer" would blame a router never reached.
      return new RouterOsError(
        'ROS_ERR_DNS',
        `${request}: the router's host name was not resolved within the timeout (the DNS resolver answers slowly or not at all); check this machine's DNS resolver, or put the router's address in url`,
        { request, cause: error },
      );
    }
    if (timedOut) {
      // Timed out before it was sent, the router answered the reads ahead of it on its one connection (a keep-warm
      // read, or the same run's) too slowly for this one to have its turn: "no answer" would blame a request the
      // router never saw. Runs of other collectors never queue here: the scheduler gives them the router in turn.
      // A command waits so behind the router's other commands (ping targets of one router run side by side).
      const what =
        phase === 'queue'
          ? "not sent: still waiting for the router's connection behind its other reads when the timeout ran out (the router answers slowly; a longer timeout lets each read through)"
          : phase === 'command queue'
            ? "not sent: still waiting for one of the router's command connections behind its other commands when the timeout ran out (its pings or tests take longer than their schedule leaves; fewer targets or shorter pings let each through)"
            : 'no complete answer within the timeout';
      return new RouterOsError('ROS_ERR_TIMEOUT', `${request}: ${what}; ${TIMEOUT_HINT}`, { request, cause: error });
    }
    return mapNetworkError(error, request, phase === 'queue' || phase === 'command queue' ? 'connect' : phase, this.#origin.startsWith('http:') ? 'http' : 'https');
  }
}

/** Whether a reply's Connection header (any of its values) holds the `close` option. */
function closesConnection(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  return text.split(',').some((option) => option.trim().toLowerCase() === 'close');
}

/** A request's stop: its timeout or the caller's abort, and whom to tell (its wait in the queue, or its exchange). */
interface Stop {
  stopped: boolean;
  timedOut: boolean;
  reason: unknown;
  notify: ((reason: unknown) => void) | undefined;
}

/** Reads sent once more because their kept connection was closed under them, by every client in the process. */
let resent = 0;

/** How many reads were sent once more since the process started (routeros_exporter_reads_resent_total). */
export function readsResent(): number {
  return resent;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Every value of a header given more than once, as one text. */
function headerValues(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
