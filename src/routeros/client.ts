/**
 * The RouterOS REST client (spec §4): keep-alive connections per router (one for reads), HTTP Basic auth,
 * TLS verification on by default, a timeout on every request and a cap on the size of every reply.
 * It knows the generic surface only; what to ask for is the collectors' business.
 *
 * Read-only by design: the public methods are the ones production calls (list, getSingleton, and run for
 * the ping and bandwidth-test commands). Write verbs live in the tests' subclass, over the same `request`.
 */
import type { Socket } from 'node:net';
import { buildConnector, Pool, type Dispatcher } from 'undici';
import type { Secret } from '../util/secret.js';
import { basicEncoding, registerCredentials } from '../util/redact.js';
import { RouterOsError } from './errors.js';
import { isJsonContentType, notDataError, parseJsonBody } from './body.js';
import { asRecordList, asSingleRecord, type RouterRecord } from './records.js';
import { mapNetworkError, mapRedirect, mapStatusError, parseErrorBody, TIMEOUT_HINT } from './transport-errors.js';
import { encodeMenuPath, queryString } from './paths.js';

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
}

/** Without a schedule to match: what undici and most servers use. */
export const DEFAULT_KEEP_ALIVE_MS = 30_000;
/**
 * Undici closes a connection this long before the router's announced keep-alive timeout, so it never sends a
 * request on a socket the router is closing. Undici's default, 2 s, closes a 30 s hint at 28 s.
 */
const KEEP_ALIVE_THRESHOLD_MS = 1_000;

export interface RequestOptions {
  /** Overrides the client's timeout (e.g. a ping that takes count × interval). */
  timeoutMs?: number;
  /** Aborts the request (shutdown); the error is ROS_ERR_ABORTED. */
  signal?: AbortSignal;
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
  readonly #authorization: string;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  /**
   * GET: one connection, requests one after the other. A one-connection Pool, not a bare undici Client, although
   * a Pool's queue costs ~18 KiB idle against a Client's ~2 KiB: a Client whose connect failed (a certificate that
   * does not verify) left every later request waiting past its timeout; the Pool replaces the failed connection.
   */
  readonly #reads: Pool;
  /** Everything else, made on first use (most routers never run a command). */
  #commands: Pool | undefined;
  readonly #commandOptions: Pool.Options;

  constructor(options: RouterOsClientOptions) {
    const url = new URL(options.url);
    this.#origin = url.origin;
    // Built once; never logged, never part of an error (errors name only method and path). Registered for
    // redaction, so a router or proxy that echoes the header back cannot put it into an error or a log line.
    registerCredentials(options.username, options.password.reveal());
    this.#authorization = 'Basic ' + basicEncoding(options.username, options.password.reveal());
    this.#timeoutMs = options.timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const tls = options.tls ?? {};
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    const shared: Pool.Options = {
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: Math.max(keepAliveMs, DEFAULT_KEEP_ALIVE_MS),
      keepAliveTimeoutThreshold: KEEP_ALIVE_THRESHOLD_MS,
      // One connector for both pools, so a session one of them got serves the other's reconnect too.
      connect: resumingConnector({
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
        rejectUnauthorized: tls.insecureSkipVerify !== true,
      }),
    };
    this.#reads = new Pool(this.#origin, { ...shared, pipelining: 1, connections: 1 });
    this.#commandOptions = { ...shared, connections: options.connections ?? 2 };
  }

  #poolFor(method: Method): Dispatcher {
    if (method === 'GET') return this.#reads;
    this.#commands ??= new Pool(this.#origin, this.#commandOptions);
    return this.#commands;
  }

  /** GET /<menu>: a list of records. */
  async list(menu: string, options: ListOptions = {}): Promise<RouterRecord[]> {
    const path = encodeMenuPath(menu) + queryString(options.where, options.proplist);
    const { value, request } = await this.request('GET', path, undefined, options);
    if (options.objectAsList === true && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return [asSingleRecord(value, request)];
    }
    return asRecordList(value, request);
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

  /** Closes the connections; in-flight requests fail with ROS_ERR_ABORTED or a connect error. */
  async close(): Promise<void> {
    await Promise.all([this.#reads.destroy(), this.#commands?.destroy()]);
  }

  /** The tail of the reads in flight: a router's reads go one after the other over its one connection. */
  #readsDone: Promise<unknown> = Promise.resolve();

  /**
   * Runs a read once the reads before it have finished. Undici would queue them on the one connection too, but
   * when that connection cannot be made (a certificate for another name) it left the queued request waiting
   * past its own timeout; queued here, a read waits only for those before it, and its timeout still runs.
   */
  async #oneReadAtATime<T>(
    exchange: () => Promise<T>,
    signal: AbortSignal,
    request: string,
    timeout: AbortSignal,
    callerSignal: AbortSignal | undefined,
  ): Promise<T> {
    const before = this.#readsDone;
    const turn = before.then(
      () => undefined,
      () => undefined,
    );
    const result = (async (): Promise<T> => {
      let abort: (() => void) | undefined;
      try {
        await Promise.race([
          turn,
          new Promise<never>((_, reject) => {
            abort = (): void => reject(this.#failure(signal.reason, request, 'connect', timeout, callerSignal));
            if (signal.aborted) abort();
            else signal.addEventListener('abort', abort, { once: true });
          }),
        ]);
      } finally {
        if (abort !== undefined) signal.removeEventListener('abort', abort);
      }
      return exchange();
    })();
    this.#readsDone = result.catch(() => undefined);
    return result;
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
  ): Promise<{ value: unknown; request: string }> {
    const request = `${method} /rest${path.split('?')[0] ?? ''}`;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.#timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    const headers: Record<string, string> = { authorization: this.#authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';

    const exchange = async (): Promise<{ response: Dispatcher.ResponseData; bytes: Buffer }> => {
      signal.throwIfAborted();
      let response: Dispatcher.ResponseData;
      try {
        response = await this.#poolFor(method).request({
          method,
          path: `/rest${path}`,
          headers,
          signal,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        throw this.#failure(error, request, 'connect', timeout, options.signal);
      }
      try {
        return { response, bytes: await this.#readCapped(response, request) };
      } catch (error) {
        throw this.#failure(error, request, 'body', timeout, options.signal);
      }
    };
    const { response, bytes } = method === 'GET' ? await this.#oneReadAtATime(exchange, signal, request, timeout, options.signal) : await exchange();

    const status = response.statusCode;
    if (status >= 400) {
      let parsed: unknown;
      try {
        parsed = bytes.length === 0 ? undefined : parseJsonBody(bytes, request);
      } catch {
        parsed = undefined;
      }
      throw mapStatusError(status, parseErrorBody(parsed), request);
    }
    // Only a 2xx is an answer. A 3xx is never followed (undici follows none unless told to) nor believed,
    // whatever its body: an empty list from a captive portal's redirect is not "no peers".
    if (status >= 300) throw mapRedirect(status, headerText(response.headers['location']), request);
    if (status < 200) throw notDataError(request, status, headerText(response.headers['content-type']), bytes.length === 0);
    // DELETE answers nothing (spec §4); every other request is asked for data, and an empty reply is not data.
    if (method === 'DELETE' && bytes.length === 0) return { value: undefined, request };
    if (bytes.length === 0 || !isJsonContentType(response.headers['content-type'])) {
      throw notDataError(request, status, headerText(response.headers['content-type']), bytes.length === 0);
    }
    return { value: parseJsonBody(bytes, request), request };
  }

  async #readCapped(response: Dispatcher.ResponseData, request: string): Promise<Buffer> {
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#maxResponseBytes) {
      response.body.destroy();
      throw this.#tooLarge(request);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > this.#maxResponseBytes) {
        response.body.destroy();
        throw this.#tooLarge(request);
      }
      chunks.push(buffer);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
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
    phase: 'connect' | 'body',
    timeout: AbortSignal,
    external: AbortSignal | undefined,
  ): RouterOsError {
    if (error instanceof RouterOsError) return error;
    if (external?.aborted === true) {
      return new RouterOsError('ROS_ERR_ABORTED', `${request}: aborted (shutting down or reloading)`, { request, cause: error });
    }
    if (timeout.aborted) {
      return new RouterOsError('ROS_ERR_TIMEOUT', `${request}: no complete answer within the timeout; ${TIMEOUT_HINT}`, {
        request,
        cause: error,
      });
    }
    return mapNetworkError(error, request, phase);
  }
}

/**
 * Undici's connector offers the router's last TLS session on the next connect, so a reconnect after the router
 * closed an idle connection is a resumption, not a full handshake, when the router allows it. But undici holds
 * that session through a WeakRef: in a busy process the garbage collector drops it between two cycles and the
 * reconnect is a full handshake again. Holding the newest session here keeps it (about 1–2 KB per router). Each
 * client has its own connector, so there is no fleet-wide cache to outgrow.
 */
function resumingConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  // Typed as returning nothing; it returns the socket it made, which lets the listener below be attached before
  // the handshake (a TLS 1.2 session comes during it, a TLS 1.3 ticket after it).
  const build = (): ((connectOptions: buildConnector.Options, callback: buildConnector.Callback) => Socket | undefined) =>
    buildConnector({ ...options, maxCachedSessions: 1 }) as (
      connectOptions: buildConnector.Options,
      callback: buildConnector.Callback,
    ) => Socket | undefined;
  let connect = build();
  const holder: { session?: Buffer } = {};
  const keep = (value: Buffer): void => {
    // The 'session' event hands every listener the Buffer undici's cache refers to.
    holder.session = value;
  };
  return (connectOptions, callback) => {
    let attached = false;
    const socket = connect(connectOptions, (...args) => {
      const [error, made] = args;
      if (error !== null) {
        // A connection that failed — a certificate that did not verify among others — may already have handed
        // over a session (a TLS 1.3 ticket can come before the name check fails). It must never be offered
        // again: forget it, and undici's cache with it.
        holder.session = undefined;
        connect = build();
      } else if (!attached && made !== null) {
        made.on('session', keep);
      }
      callback(...args);
    });
    if (socket !== undefined) {
      socket.on('session', keep);
      attached = true;
    }
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
