/**
 * The request target, parsed once per request and never with a throw: the route path every rule (scrape cap,
 * authentication, methods) is decided on, and the query. `new URL()` is not used on purpose: it throws on
 * targets such as `//` and reads `//metrics` as a host, so a client could end the process or reach a route
 * under a name the rules did not expect.
 *
 * The path is normalised before routing: percent-encoding is decoded per segment and dot segments are removed
 * (RFC 3986 §5.2.4), so `/./metrics`, `/%2e/metrics` and `/x/../metrics` are `/metrics` and count as scrapes.
 * Absolute-form targets (`http://host/metrics`, RFC 9112 §3.2.2) route by their path. Anything else that is not
 * origin-form (`*`, `host:port`) or decodes to a separator or control character is refused (400).
 */
import type { IncomingMessage } from 'node:http';

export type Target =
  | { ok: true; /** Normalised, decoded path: the route key. */ path: string; query: URLSearchParams }
  | { ok: false; /** Short and fixed, for the 400 answer; never echoes the target. */ reason: string };

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\x00-\x1f\x7f/\\]/;

function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function parseTarget(raw: string | undefined): Target {
  let target = raw ?? '';
  const absolute = ABSOLUTE.exec(target);
  if (absolute !== null) {
    if (!/^https?:/i.test(target)) return { ok: false, reason: 'unsupported scheme in the request target' };
    // Userinfo (`user:password@`) has no place in a request target (RFC 9110 §4.2.4), and a password holding a
    // `/` would end the authority early and leave its rest in the path, which a log line may carry.
    const query = target.indexOf('?');
    if ((query < 0 ? target : target.slice(0, query)).includes('@')) return { ok: false, reason: 'credentials in the request target' };
    target = target.slice(absolute[0].length);
    if (target === '' || target.startsWith('?')) target = `/${target}`;
  }
  if (!target.startsWith('/')) return { ok: false, reason: 'the request target must be a path' };
  const question = target.indexOf('?');
  const rawPath = question < 0 ? target : target.slice(0, question);
  const query = new URLSearchParams(question < 0 ? '' : target.slice(question + 1));
  const segments: string[] = [];
  const parts = rawPath.split('/').slice(1);
  for (const [index, part] of parts.entries()) {
    const segment = decodeSegment(part);
    if (segment === undefined) return { ok: false, reason: 'invalid percent-encoding in the request target' };
    if (FORBIDDEN.test(segment)) return { ok: false, reason: 'invalid character in the request target' };
    const last = index === parts.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') segments.pop();
      // `/metrics/.` is the directory `/metrics/`, as URL resolution has it.
      if (last) segments.push('');
      continue;
    }
    segments.push(segment);
  }
  return { ok: true, path: `/${segments.join('/')}`, query };
}

const parsed = new WeakMap<IncomingMessage, Target>();

/** The request's target, parsed on first use and remembered, so the guard and the routes see the same one. */
export function targetOf(req: IncomingMessage): Target {
  let target = parsed.get(req);
  if (target === undefined) {
    target = parseTarget(req.url);
    parsed.set(req, target);
  }
  return target;
}

/** How long a path in a log line may be. */
const LOGGED_PATH_CHARS = 200;

/**
 * The request's path as a log line may carry it: the normalised route path, cut short, or undefined for a target
 * that did not parse. Never the raw target: an absolute-form target carries userinfo (`http://user:password@…`),
 * and the query may carry anything a client typed.
 */
export function loggedPath(req: IncomingMessage): string | undefined {
  const target = targetOf(req);
  return target.ok ? target.path.slice(0, LOGGED_PATH_CHARS) : undefined;
}
