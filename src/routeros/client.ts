/**
 * The RouterOS REST client (spec §4): one keep-alive connection pool per router, HTTP Basic auth,
 * TLS verification on by default, a timeout on every request and a cap on the size of every reply.
 * It knows the generic surface only; what to ask for is the collectors' business.
 *
 * Read-only by design: the public methods are the ones production calls (list, getSingleton, and run for
 * the ping and bandwidth-test commands). Write verbs live in the tests' subclass, over the same `request`.
 */
import { Pool, type Dispatcher } from 'undici';
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
  /** Concurrent connections to this router; real routers slow down under parallel REST calls, so keep it small. */
  connections?: number;
}

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
  readonly #pool: Pool;

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
    this.#pool = new Pool(this.#origin, {
      connections: options.connections ?? 2,
      keepAliveTimeout: 30_000,
      connect: {
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
        rejectUnauthorized: tls.insecureSkipVerify !== true,
      },
    });
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
    await this.#pool.destroy();
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

    let response: Dispatcher.ResponseData;
    try {
      response = await this.#pool.request({
        method,
        path: `/rest${path}`,
        headers,
        signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw this.#failure(error, request, 'connect', timeout, options.signal);
    }

    let bytes: Buffer;
    try {
      bytes = await this.#readCapped(response, request);
    } catch (error) {
      throw this.#failure(error, request, 'body', timeout, options.signal);
    }

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

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
