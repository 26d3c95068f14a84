/**
 * Maps what can go wrong on the wire (Node/undici errors, HTTP statuses and RouterOS error bodies)
 * onto RouterOsError codes, so the rest of the daemon never inspects foreign error types.
 */
import { RouterOsError, type RouterErrorBody } from './errors.js';
import { longestSecretLength, redactSecrets } from '../util/redact.js';
import { shownRouterText, WITHHELD } from './shown-text.js';
import { WIRE_OVERRUN_CODE, WireOverrunError } from './wire-meter.js';

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

/** Codes undici and Node give a request whose connection the other side closed or reset before any reply. */
const CLOSED_UNDERNEATH = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** Whether a request failed because its connection was closed under it (the error's own code, not its causes'). */
export function closedUnderneath(error: unknown): boolean {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && CLOSED_UNDERNEATH.has(code) && unexpectedAnswer(error) === undefined;
}

/**
 * undici's own closes of a connection whose answer it would not take, told apart from a close by the other side
 * only by their message: a `100 Continue` to a request that sent no `Expect` ("bad response"), a `101` switch of
 * protocols nobody asked for ("bad upgrade"). Something answered: they were `connect`, the router counted as
 * silent, and the read was sent again as if its kept connection had been closed under it.
 */
function unexpectedAnswer(error: unknown): string | undefined {
  for (const { code, message } of causeChain(error)) {
    if (code !== 'UND_ERR_SOCKET') continue;
    if (message === 'bad response') return 'a 100 Continue nobody asked for';
    if (message === 'bad upgrade') return 'a switch of protocols (101) nobody asked for';
  }
  return undefined;
}

/** An error and its causes, five deep at most: where the codes and classes of a transport failure are read. */
function causeChain(error: unknown): { code?: unknown; name?: unknown; message?: unknown }[] {
  const chain: { code?: unknown; name?: unknown; message?: unknown }[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    chain.push(current as { code?: unknown; name?: unknown; message?: unknown });
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function codeChain(error: unknown): string[] {
  return causeChain(error).flatMap(({ code }) => (typeof code === 'string' ? [code] : []));
}

/**
 * Whether a failure is the router's timeout running out: the client's own deadline, or undici's connect timeout,
 * which is set to the same timeout and whose coarse timer can fire a little before the deadline does. A router
 * that accepts TCP and never answers TLS was `connect` or `timeout` by which timer won; it is `timeout` (runbook).
 */
export function timedOutFailure(error: unknown, deadlinePassed: boolean): boolean {
  return deadlinePassed || codeChain(error).includes('UND_ERR_CONNECT_TIMEOUT');
}

/** What to do about a timeout: shared by the client's own deadline and undici's header/body timeouts. */
export const TIMEOUT_HINT = 'the router may be overloaded, or a firewall drops the traffic: check the router, or raise timeout';

/** The operator's next step for a TLS failure, by the code Node gives it. */
function tlsHint(code: string): string {
  // Plain HTTP where TLS was expected: the port is the www service's (RouterOS serves http:// there).
  if (/WRONG_VERSION_NUMBER|HTTP_REQUEST|UNKNOWN_PROTOCOL/.test(code)) {
    return "that port answers without TLS, as RouterOS's www service (http) does: use the www-ssl service's port (443 by default) in url, or http:// for www";
  }
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

/** undici's refusals of a head it read: what answered sent bytes, but no HTTP reply undici could take. */
const NOT_HTTP_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/** Whether undici's HTTP parser refused what came back (its error has no code, only its class's name). */
function parserRefused(error: unknown): boolean {
  return causeChain(error).some(({ name }) => name === 'HTTPParserError');
}

/**
 * Whether the parser's refusal was of a body the connection's close ended early (llhttp's "Invalid EOF state",
 * given only in the message): a cut, not bytes that were no HTTP.
 */
function parserCutOff(error: unknown): boolean {
  return causeChain(error).some(({ name, message }) => name === 'HTTPParserError' && typeof message === 'string' && /invalid eof state/i.test(message));
}

/** A failure before any response headers arrived. `phase` tells whether the body was being read. */
export function mapNetworkError(error: unknown, request: string, phase: 'connect' | 'body', scheme: 'http' | 'https' = 'https'): RouterOsError {
  if (error instanceof RouterOsError) return error;
  const codes = codeChain(error);
  if (codes.includes(WIRE_OVERRUN_CODE)) {
    // Before the head or after it: the router, or what answers in its place, sent without end, not a reply.
    const overrun = causeChain(error).find((link): link is WireOverrunError => link instanceof WireOverrunError);
    return new RouterOsError('ROS_ERR_PARSE', `${request}: ${overrunText(overrun)}; the read was stopped: check that nothing (a proxy) answers in the router's place`, { request });
  }
  // Something answered, with bytes that are no HTTP reply (a head over undici's 16 KiB, two Content-Lengths, a
  // control byte in a header, another protocol on the port): the router, or what stands in its place, answered.
  // It was `connect` ("is www-ssl enabled and reachable?"), and the router counted as silent (found by review). No
  // cause kept: the parser's error holds the raw bytes it refused, unredacted. Before the head only: the same
  // errors once the head has come are a body cut off as the connection closed (below; found by review).
  const refused = parserRefused(error);
  const notHttp = codes.find((code) => NOT_HTTP_CODES.has(code)) ?? (refused ? 'malformed head' : unexpectedAnswer(error));
  if (notHttp !== undefined && phase === 'connect') {
    return new RouterOsError(
      'ROS_ERR_PARSE',
      `${request}: the answer was not a valid HTTP reply (${notHttp}); something other than the router's www-ssl service answers on that port, or a proxy in between mangles the reply: check url's port and the path to the router`,
      { request },
    );
  }
  const detail = codes[0] ?? (error instanceof Error ? error.message : 'unknown error');
  const tls = codes.find((code) => TLS_CODE.test(code));
  if (tls !== undefined) {
    return new RouterOsError('ROS_ERR_TLS', `${request}: TLS handshake failed (${tls}); ${tlsHint(tls)}`, { request, cause: error });
  }
  if (codes.some((code) => code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')) {
    return new RouterOsError('ROS_ERR_TIMEOUT', `${request}: the router did not answer in time; ${TIMEOUT_HINT}`, { request, cause: error });
  }
  if (phase === 'body' && (codes.includes('UND_ERR_HEADERS_OVERFLOW') || (refused && !parserCutOff(error)))) {
    // Bytes that came but are no HTTP body (a chunk size that is no number, trailers past undici's bound): the reply
    // was mangled, not cut; "check the network path" sent operators the wrong way.
    return new RouterOsError(
      'ROS_ERR_PARSE',
      `${request}: the reply's body was not valid HTTP (${refused ? 'malformed body' : 'trailers too large'}); something other than the router answers, or a proxy in between mangles the reply: check url and the path to the router`,
      { request },
    );
  }
  if (phase === 'body') {
    return new RouterOsError(
      'ROS_ERR_PARSE',
      `${request}: the reply was cut off while reading its body (${refused ? 'malformed body' : detail}); the connection dropped mid-reply: check the network path and the router's load`,
      refused ? { request } : { request, cause: error },
    );
  }
  if (codes.some((code) => DNS_CODES.has(code))) {
    return new RouterOsError('ROS_ERR_DNS', `${request}: cannot resolve the router's host name (${detail}); check the host in url and this machine's DNS resolver`, { request, cause: error });
  }
  if (codes.some((code) => CONNECT_CODES.has(code))) {
    // RouterOS serves http:// through its www service and https:// through www-ssl: the hint names the one url asks
    // of. A TLS port asked in plain HTTP closes at the first bytes, which reads as no connection: said too.
    const hint = scheme === 'http' ? 'is the www service (http) enabled and reachable, and is the port not the www-ssl one (which wants https://)?' : 'is www-ssl enabled and reachable?';
    return new RouterOsError('ROS_ERR_CONNECT', `${request}: cannot connect to the router (${detail}); ${hint}`, {
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
/** RouterOS 7 refusals of a user whose group lacks a policy (real-formats §9, seen on 7.23.7 with 500). */
const NOT_ALLOWED = /not allowed \(9\)|std failure: not allowed/i;
const NOT_ENOUGH_PERMISSIONS = /not enough permissions/i;
/** Commands the `test` policy grants (ping, traceroute, bandwidth-test, fetch… per the RouterOS user manual). */
const TEST_COMMANDS = /^\w+ \/rest\/(ping|traceroute|tool\/(bandwidth-test|traceroute|fetch|ping|flood-ping|speed-test|sniffer|torch|e-mail))(\/|$)/;

/** The policy a refused request needed, from what it was: a test command, a change, or a read. */
function policyFor(request: string): string {
  if (TEST_COMMANDS.test(request)) return 'test';
  if (/^(PUT|PATCH|DELETE) /.test(request)) return 'write';
  return 'read';
}

const POLICY_FIX =
  "give the group read, api and rest-api (and test for ping and bandwidth tests): /user group set GROUP policy=read,api,rest-api,test; a changed group may need the user to log in again";

/** A failure status. RouterOS says "no such command or directory" with 400 (unknown menu) or 406 (unknown command). */
/** The failure statuses RouterOS 7 answers with (routeros-real-formats §6, and 403 where a group lacks read). */
const ROUTEROS_STATUSES = new Set([400, 403, 404, 406, 500, 501]);

/**
 * A RouterOS failure's body as the error keeps it: each part shown (shownRouterText) or said to be withheld, so
 * that nothing reading the error later finds what its message left out.
 */
function shownBody(body: RouterErrorBody): RouterErrorBody {
  const message = shownRouterText(body.message) ?? `[${WITHHELD}]`;
  return body.detail === undefined ? { error: body.error, message } : { error: body.error, message, detail: shownRouterText(body.detail) ?? WITHHELD };
}

export function mapStatusError(status: number, reply: RouterErrorBody | undefined, request: string): RouterOsError {
  const body = reply === undefined ? undefined : shownBody(reply);
  const said = body === undefined ? '' : `: ${body.message}${body.detail === undefined ? '' : ` (${body.detail})`}`;
  const options = { status, request, ...(body === undefined ? {} : { body }) };
  // RouterOS's own words decide what the failure is, whether shown or not.
  const detail = reply?.detail ?? '';
  if (status === 401) {
    // 7.x answers 401 to a wrong password and to a group without rest-api alike (real-formats §9), always with
    // the same words ("Unauthorized"). Nothing of the reply is printed: what answers a refused login in the
    // router's place (a proxy, a portal) is where credentials are echoed, in forms no redaction can know them by
    // (base64 of the password alone, hex, its case changed).
    return new RouterOsError(
      'ROS_ERR_AUTH',
      `${request}: refused: wrong username or password, or the user's group lacks the rest-api policy (HTTP 401); check the password, and that the group has read, api and rest-api`,
      options,
    );
  }
  if (!ROUTEROS_STATUSES.has(status)) {
    // A status RouterOS does not answer with (a proxy's 407, a gateway's 502 or 504, a 503): something in between
    // answered, and what it says is where the request's credentials are echoed, in forms no redaction knows them
    // all by (its case changed, hex). Nothing of it is printed, as for a 401 (found by review).
    return new RouterOsError(
      status >= 500 ? 'ROS_ERR_HTTP_5XX' : 'ROS_ERR_HTTP_4XX',
      `${request}: HTTP ${status}, a status RouterOS does not answer with: something between the exporter and the router answered (what it said is not shown); check that url points at the router itself, and the log of any proxy in between`,
      { status, request },
    );
  }
  const policy =
    status >= 500 && NOT_ALLOWED.test(detail)
      ? 'api'
      : status === 403 || (status >= 500 && NOT_ENOUGH_PERMISSIONS.test(detail))
        ? policyFor(request)
        : undefined;
  if (policy !== undefined) {
    return new RouterOsError(
      'ROS_ERR_PERMISSION',
      `${request}: refused: the user's group lacks the ${policy} policy (HTTP ${status}${said}); ${POLICY_FIX}`,
      { ...options, policy },
    );
  }
  if ((status === 400 || status === 406) && NO_SUCH_COMMAND.test(detail)) {
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
  if (status >= 500) {
    return new RouterOsError('ROS_ERR_HTTP_5XX', `${request}: HTTP ${status}${said}; the router failed to answer (see its log); the next scheduled run tries again`, options);
  }
  return new RouterOsError(
    'ROS_ERR_HTTP_4XX',
    `${request}: HTTP ${status}${said}; the router refused the request: report it with the RouterOS version if it persists`,
    options,
  );
}

/**
 * A 3xx. Never followed: the request carries the router's credentials, and a redirect may point anywhere (a
 * captive portal, a proxy's login page, another host). `location` is the router's Location header, if any.
 */
export function mapRedirect(status: number, location: string | undefined, request: string, origin?: string): RouterOsError {
  const options = { status, request };
  if (status === 304) {
    return new RouterOsError(
      'ROS_ERR_REDIRECT',
      `${request}: HTTP 304 Not Modified to a request that set no condition: something between the exporter and the router (a cache or proxy) answers instead of it; point url at the router itself`,
      options,
    );
  }
  return new RouterOsError(
    'ROS_ERR_REDIRECT',
    `${request}: HTTP ${status} redirect${location === undefined ? '' : ` to ${describeLocation(location, origin)}`}, not followed (it would carry the credentials elsewhere): set url to the router's own https:// address, and check that no proxy or captive portal stands in between`,
    options,
  );
}

/** Whether a redirect's host (and port) is the router's own: its origin's, default ports spelled or not. */
function sameAuthority(host: string, scheme: string, origin: string | undefined): boolean {
  if (origin === undefined) return false;
  let own: URL;
  try {
    own = new URL(origin);
  } catch {
    return false;
  }
  const protocol = scheme === '' ? own.protocol : scheme.toLowerCase();
  const defaultPort = protocol === 'https:' ? ':443' : protocol === 'http:' ? ':80' : '';
  const lower = host.toLowerCase();
  const given = defaultPort !== '' && lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
  return given === own.host.toLowerCase() || (protocol !== own.protocol && given === own.hostname.toLowerCase());
}

/** The most characters of a redirect's target printed. */
const LOCATION_LIMIT = 200;

/**
 * Where a redirect points, as the router sent it, without what could be credentials (userinfo, query, fragment)
 * and bounded. Never the URL parser's form of it: that lower-cases the host, spells a foreign name in punycode and
 * resolves the path, and a password a router or proxy echoed there would no longer be the value the redaction
 * knows (a review found `Location: https://Hunter2….portal.example/` printed as `hunter2…`). Redacted before it
 * is cut: a password holding `?`, `#` or `/` in the userinfo would otherwise be cut inside, and the half left
 * printed (a review found `https://monitor:Rt5Sec` of `Rt5Sec?ret#Pw99`). Only whether it points at the router's
 * own address or another host, and its scheme when http or https: a captive portal that echoes the credentials
 * does so in forms no redaction knows (upper-cased, base64url of the Basic value, hex, percent-encoded), in its
 * path and in its host name alike, and both reached the run's log line (found by review, the host by the review of
 * a fix that printed it), as the 401 answer's body would (mapStatusError prints none of it).
 */
function describeLocation(location: string, origin: string | undefined): string {
  const reach = longestSecretLength();
  const window = 2 * LOCATION_LIMIT + 2 * reach;
  // As a client's URL parser reads it: tabs and line breaks anywhere are dropped, first (`ht\ttps://portal/` read as a
  // path on the router itself, and its userinfo as part of the host: found by reviews).
  let where = redactSecrets(location.length > window ? location.slice(0, window) : location)
    .replace(/[\t\n\r]/g, '')
    .trim();
  const end = where.search(/[?#]/);
  if (end >= 0) where = where.slice(0, end);
  // `scheme://user:password@host/…` (a parser also takes `https:user@host`, and \ for /): the userinfo runs to
  // the last @ before the path.
  where = where.replace(/^([a-z][a-z\d+.-]*:)?([/\\]*)[^/\\]*@/i, '$1$2');
  // A window cut may have ended inside a secret: what may hold its start goes too, as in cleanText.
  if (location.length > window) where = where.slice(0, Math.max(0, where.length - reach));
  if (where === '') return 'an empty location';
  // The authority: `scheme://host`, `//host` (scheme-relative), or none (a path on the same host).
  const [, scheme = '', slashes = '', host = ''] = /^([a-z][a-z\d+.-]*:)?([/\\]{2})?([^/\\]*)/i.exec(where) ?? [];
  if (slashes === '' && scheme === '') return 'a path on the router itself (not shown)';
  const over = /^https?:$/i.test(scheme) ? ` over ${scheme.slice(0, -1).toLowerCase()}` : scheme === '' ? '' : ' over another scheme';
  return sameAuthority(host, scheme, origin) ? `the router's own address${over} (its path not shown)` : `another host${over} (not shown)`;
}

/** What a connection's meter stopped, in words (wire-meter.ts). */
function overrunText(overrun: WireOverrunError | undefined): string {
  if (overrun?.overrun === 'reads') return `the reply came in more than ${overrun.limit} reads (TLS records) of under 64 bytes`;
  if (overrun?.overrun === 'tickets') return `the router handed over more than ${overrun.limit} TLS session tickets for one request`;
  if (overrun?.overrun === 'tls') return `the router sent more than ${overrun.limit} bytes of TLS messages that carry no data (key updates) for one request`;
  return `the reply ran on past ${overrun?.limit ?? 'the bound of'} bytes, far more than its body (endless chunk extensions, padding or a status line without end)`;
}
