/**
 * Requests a page of another site made: a browser sends them with the credentials it has cached for the exporter
 * (Basic), from wherever the operator's browser can reach. Refused where they would change something: a reload,
 * and a probe that would add an inventory target (which makes the exporter log in to it). Prometheus, curl and config
 * managers send none of the headers read here.
 */
import type { IncomingMessage } from 'node:http';

/**
 * Whether a request comes from a page of another site: Sec-Fetch-Site says so (and `same-origin` or `none` says it
 * does not, whatever else the request carries), or an Origin names another host than
 * the request's Host (`null` included, a sandboxed page's), or another port where Host gives one; or, with no Origin,
 * a Referer does. A browser sends neither Sec-Fetch-Site nor Origin with an image or a link to a plain-HTTP address
 * that is not local, but a Referer with the page's origin (its default policy): `<img src=".../probe?…&profile=…">`
 * on a page anywhere made the exporter log in to a target it named (found by review). Host names compare without
 * case or a trailing dot, addresses in their canonical form. A Host without a port is compared by name alone: a
 * proxy that ends TLS passes `Host: exporter.example` for `Origin: https://exporter.example`, and the exporter's own
 * socket (plain HTTP) says nothing of the port the browser used.
 */
export function crossSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  // The browser's own word that its user or the exporter's own page asked: a proxy that rewrites Host (nginx's
  // default) made its Origin or Referer look like another site's (found by review).
  if (site === 'same-origin' || site === 'none') return false;
  const origin = req.headers.origin ?? req.headers.referer;
  if (origin === undefined) return false;
  try {
    const from = new URL(origin);
    if (from.hostname === '') return true;
    const host = req.headers.host ?? '';
    // Names as a browser has them; the port as written (a non-special scheme keeps a default port).
    const name = new URL(`http://${host}`).hostname.replace(/\.$/, '');
    const port = new URL(`x-host://${host}`).port;
    if (from.hostname.replace(/\.$/, '') !== name) return true;
    const fromPort = from.port !== '' ? from.port : from.protocol === 'https:' ? '443' : '80';
    return port !== '' && port !== fromPort;
  } catch {
    return true;
  }
}
