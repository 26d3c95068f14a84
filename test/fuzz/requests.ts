/**
 * Random HTTP/1.1 requests as raw bytes: request targets the URL parser refuses, dot segments, percent
 * escapes, absolute and asterisk forms, odd and unknown methods, odd versions, hostile headers and bodies.
 */
import fc from 'fast-check';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'SEARCH', 'get', 'FOO', ''];
const FIXED_TARGETS = [
  '/', '//', '///', '/metrics', '/health', '/-/reload', '/-/ready', '/-/healthy', '/./metrics', '/%2e/metrics', '/%2E%2E/metrics',
  '/metrics/../health', '/metrics/.', '/..', '/../../etc/passwd', '/%', '/%zz', '/%00', '/%2f', '/%c0%af', '/a\\b', '*',
  'http://x/metrics', 'HTTP://X/health?router=hq', 'https://', 'http://', 'http://[::1', 'ftp://x/', 'x:80', 'javascript:alert(1)',
  '/health?router=%', '/health?router=hq&router=%zz', '/?#', '/#frag', '/\u00e9', '/metrics?' + 'a'.repeat(2000),
];
/** Characters a target may carry on the wire, plus some that it should not. */
const TARGET_CHARS = fc.constantFrom(...'/.%?#&=+;:@[]!$\'()*,~-_azAZ09\\"<>^`{|} \t\u0000\u007f\u00e9'.split(''), '%2e', '%2f', '%25', '%zz', '..', '//');

const segment = fc.oneof(fc.constantFrom('', '.', '..', '%2e', '%2e%2e', 'metrics', 'health', '-', 'reload'), fc.stringMatching(/^[a-z0-9%._~-]{0,8}$/));
const composed = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`);
const chars = fc.array(TARGET_CHARS, { maxLength: 24 }).map((list) => list.join(''));
const prefixed = fc.tuple(fc.constantFrom('', '/', 'http://h', 'http://h/', '//'), chars).map(([a, b]) => a + b);

export const target = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIXED_TARGETS) },
  { weight: 3, arbitrary: composed },
  { weight: 2, arbitrary: prefixed },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
// Mostly what reaches the routes, so the routes are fuzzed and not only the HTTP parser; the rest hostile.
export const method = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST') },
  { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,10}$/) },
);
const version = fc.oneof({ weight: 20, arbitrary: fc.constant('HTTP/1.1') }, fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'http/1.1', ''));

const printable = fc.string({ maxLength: 40 });
const header = fc.oneof(
  fc.tuple(fc.constant('Accept'), fc.oneof(printable, fc.constantFrom('application/openmetrics-text; version=1.0.0', '*/*;q=x', 'text/plain;version=0.0.4;q=0.5'))),
  fc.tuple(fc.constant('Accept-Encoding'), fc.oneof(printable, fc.constantFrom('gzip', 'gzip;q=0', '*', 'identity, gzip;q=1e9'))),
  fc.tuple(fc.constant('Authorization'), fc.oneof(printable, fc.base64String({ maxLength: 40 }).map((b) => `Basic ${b}`), fc.constantFrom('Basic', 'Basic ==', 'Bearer x'))),
  fc.tuple(fc.constant('Content-Length'), fc.constantFrom('0', '0', '5', '-1', 'abc', '99999999999999999999', '1, 2')),
  fc.tuple(fc.constant('Transfer-Encoding'), fc.constantFrom('chunked', 'chunked', 'gzip', 'chunked, chunked', 'x')),
  fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'nothing')),
  fc.tuple(fc.constant('Connection'), fc.constantFrom('close', 'keep-alive', 'Upgrade', 'x')),
  fc.tuple(fc.constant('Upgrade'), fc.constantFrom('websocket', 'h2c', 'x')),
  fc.tuple(fc.constant('X-Forwarded-For'), printable),
  fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), printable),
);
/** Mostly well-formed headers, so most requests get past the HTTP parser to the routes; some not. */
const anyHeader = fc.oneof({ weight: 30, arbitrary: header }, { weight: 1, arbitrary: fc.tuple(printable, printable) });

export interface FuzzRequest {
  method: string;
  target: string;
  version: string;
  host: string | undefined;
  headers: [string, string][];
  body: string;
}

export const request: fc.Arbitrary<FuzzRequest> = fc.record({
  method,
  target,
  version,
  host: fc.option(fc.oneof({ weight: 3, arbitrary: fc.constant('127.0.0.1') }, printable), { freq: 20 }).map((h) => h ?? undefined),
  headers: fc.array(anyHeader, { maxLength: 4 }),
  body: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, printable),
});

/**
 * The request as bytes; `extra` headers (credentials) come first so fuzzed ones can contradict them. The body
 * is completed to what the framing headers announce (a request still waiting for its body is not answered
 * until the request timeout, rightly); a body that breaks the framing stays broken.
 */
export function wire(request: FuzzRequest, extra: [string, string][] = []): Buffer {
  const lines = [`${request.method} ${request.target} ${request.version}`.trimEnd()];
  if (request.host !== undefined) lines.push(`Host: ${request.host}`);
  const headers = [...extra, ...request.headers];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  let body = Buffer.from(request.body, 'utf8');
  const framing = (name: string): string[] => headers.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);
  const length = framing('content-length');
  if (framing('transfer-encoding').length > 0) {
    body = Buffer.concat([body.length === 0 ? Buffer.alloc(0) : Buffer.from(`${body.length.toString(16)}\r\n${request.body}\r\n`), Buffer.from('0\r\n\r\n')]);
  } else if (length.length === 1 && /^\d{1,3}$/.test(length[0] ?? '')) {
    body = Buffer.concat([body, Buffer.alloc(Number(length[0]), 'x')]).subarray(0, Number(length[0]));
  } else if (length.length === 0 && body.length > 0) {
    // Unframed bytes would be a second, garbage request on the connection.
    lines.push(`Content-Length: ${body.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body]);
}
