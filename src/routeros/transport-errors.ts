/**
 * Maps what can go wrong on the wire (Node/undici errors, HTTP statuses and RouterOS error bodies)
 * onto RouterOsError codes, so the rest of the daemon never inspects foreign error types.
 */
import { RouterOsError, type RouterErrorBody } from './errors.js';

const TLS_CODE = /CERT|SSL|TLS|EPROTO|UNABLE_TO_|HOSTNAME|ALTNAME|ERR_OSSL/;
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

function codeChain(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** What to do about a timeout: shared by the client's own deadline and undici's header/body timeouts. */
export const TIMEOUT_HINT = 'the router may be overloaded, or a firewall drops the traffic: check the router, or raise timeout';

/** The operator's next step for a TLS failure, by the code Node gives it. */
function tlsHint(code: string): string {
  if (/EXPIRED|NOT_YET_VALID/.test(code)) {
    return "the router's certificate is outside its validity period: renew it on the router (/certificate) and check both clocks";
  }
  if (/ALTNAME|HOSTNAME/.test(code)) {
    return "the router's certificate does not name the host in url: set tls.server_name to a name it holds, or reissue it for that host";
  }
  if (/SELF_SIGNED|UNABLE_TO_|UNTRUSTED/.test(code)) {
    return "the router's certificate is not trusted: put its CA (or the self-signed certificate itself) in tls.ca_file";
  }
  return 'check that url uses https, the www-ssl service has a certificate, and tls.ca_file / tls.server_name match it';
}

/** A failure before any response headers arrived. `phase` tells whether the body was being read. */
export function mapNetworkError(error: unknown, request: string, phase: 'connect' | 'body'): RouterOsError {
  if (error instanceof RouterOsError) return error;
  const codes = codeChain(error);
  const detail = codes[0] ?? (error instanceof Error ? error.message : 'unknown error');
  const tls = codes.find((code) => TLS_CODE.test(code));
  if (tls !== undefined) {
    return new RouterOsError('ROS_ERR_TLS', `${request}: TLS handshake failed (${tls}); ${tlsHint(tls)}`, { request, cause: error });
  }
  if (codes.some((code) => code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')) {
    return new RouterOsError('ROS_ERR_TIMEOUT', `${request}: the router did not answer in time; ${TIMEOUT_HINT}`, { request, cause: error });
  }
  if (phase === 'body') {
    return new RouterOsError('ROS_ERR_PARSE', `${request}: the reply was cut off while reading its body (${detail}); the connection dropped mid-reply: check the network path and the router's load`, {
      request,
      cause: error,
    });
  }
  if (codes.some((code) => DNS_CODES.has(code))) {
    return new RouterOsError('ROS_ERR_DNS', `${request}: cannot resolve the router's host name (${detail}); check the host in url and this machine's DNS resolver`, { request, cause: error });
  }
  if (codes.some((code) => CONNECT_CODES.has(code))) {
    return new RouterOsError('ROS_ERR_CONNECT', `${request}: cannot connect to the router (${detail}); is www-ssl enabled and reachable?`, {
      request,
      cause: error,
    });
  }
  return new RouterOsError('ROS_ERR_CONNECT', `${request}: request failed (${detail})`, { request, cause: error });
}

export function parseErrorBody(value: unknown): RouterErrorBody | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { error, message, detail } = value as Record<string, unknown>;
  const code = typeof error === 'number' ? error : typeof error === 'string' ? Number(error) : NaN;
  if (!Number.isInteger(code) || typeof message !== 'string') return undefined;
  return typeof detail === 'string' ? { error: code, message, detail } : { error: code, message };
}

const NO_SUCH_COMMAND = /no such command/i;

/** A failure status. RouterOS says "no such command or directory" with 400 (unknown menu) or 406 (unknown command). */
export function mapStatusError(status: number, body: RouterErrorBody | undefined, request: string): RouterOsError {
  const said = body === undefined ? '' : `: ${body.message}${body.detail === undefined ? '' : ` (${body.detail})`}`;
  const options = { status, request, ...(body === undefined ? {} : { body }) };
  if (status === 401 || status === 403) {
    return new RouterOsError(
      'ROS_ERR_AUTH',
      `${request}: HTTP ${status}${said}; check the username and password, and that the user's group has the read, api and rest-api policies`,
      options,
    );
  }
  if ((status === 400 || status === 406) && body?.detail !== undefined && NO_SUCH_COMMAND.test(body.detail)) {
    return new RouterOsError(
      'ROS_ERR_UNSUPPORTED',
      `${request}: the router does not have this menu or command${said}; upgrade RouterOS, or turn this collector off for the router (collectors:)`,
      options,
    );
  }
  if (status === 404) {
    return new RouterOsError(
      'ROS_ERR_NOT_FOUND',
      `${request}: HTTP 404${said}; check that url is the router itself (no path) and that it runs RouterOS 7.1 or later`,
      options,
    );
  }
  if (status >= 500) return new RouterOsError('ROS_ERR_HTTP_5XX', `${request}: HTTP ${status}${said}; ${serverErrorHint(body)}`, options);
  return new RouterOsError(
    'ROS_ERR_HTTP_4XX',
    `${request}: HTTP ${status}${said}; the router refused the request: report it with the RouterOS version if it persists`,
    options,
  );
}

/** RouterOS answers 500 when the user's group lacks a policy (real-formats §9); otherwise the router itself failed. */
function serverErrorHint(body: RouterErrorBody | undefined): string {
  const detail = body?.detail ?? '';
  if (/not allowed/i.test(detail)) return "the user's group lacks the api policy: give it read,api,rest-api";
  if (/not enough permissions/i.test(detail)) return "the user's group lacks the read policy: give it read,api,rest-api";
  return "the router failed to answer (see its log); the next scheduled run tries again";
}
