/**
 * A `target=` value of `/probe?target=…&profile=…`: `HOST` or `HOST:PORT`, an IPv6 address in brackets. Checked
 * strictly before anything else, because it comes from whoever can reach the exporter: bounded length, a plain
 * charset, no userinfo, path, zone or numeric forms a URL parser would read as another address.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { compressIpv6, DEFAULT_PORT, isHostName, type Scheme } from '../config/net.js';

/** `[` 45-character IPv6 `]:65535`, or a 253-character host name with a port, fit well inside. */
export const MAX_TARGET_LENGTH = 262;

/**
 * A target in its one canonical spelling: `10.20.5.5`, `[::ffff:10.20.5.5]`, `[0:0:0:0:0:ffff:a14:505]` are one
 * address, `CORE1.example.net` and `core1.example.net` one name. Every comparison (discovered entries, configured
 * routers, the allow list) uses this form, so that one router cannot be polled under several spellings.
 */
export interface ParsedTarget {
  /** What the allow list is matched against: an address (IPv6 compressed, IPv4-mapped as IPv4), or a lower-case host name. */
  host: string;
  family: 'ipv4' | 'ipv6' | 'name';
  port: number | undefined;
  /** `host[:port]` from the canonical host, as it goes into the URL (an IPv6 address in brackets). */
  authority: string;
}

export { DEFAULT_PORT, type Scheme } from '../config/net.js';

/** The name a target goes by under a scheme: the canonical authority without the scheme's default port. */
export function targetName(target: ParsedTarget, scheme: Scheme): string {
  const host = target.family === 'ipv6' ? `[${target.host}]` : target.host;
  return target.port === undefined || target.port === DEFAULT_PORT[scheme] ? host : `${host}:${target.port}`;
}

/** What a target reaches under a scheme, `host|port`: equal for two spellings of one router. */
export function targetEndpoint(target: ParsedTarget, scheme: Scheme): string {
  return `${target.host}|${target.port ?? DEFAULT_PORT[scheme]}`;
}

/** What a configured router's URL reaches, in the form of targetEndpoint; undefined for a URL that does not parse. */
export function urlEndpoint(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol.slice(0, -1);
  const port = parsed.port === '' ? (scheme === 'http' || scheme === 'https' ? DEFAULT_PORT[scheme] : undefined) : Number(parsed.port);
  if (port === undefined) return undefined;
  const host = parsed.hostname.startsWith('[') ? canonicalIpv6(parsed.hostname.slice(1, -1))?.host : parsed.hostname;
  return host === undefined ? undefined : `${host}|${port}`;
}

/** An IPv6 address compressed by the URL parser; an IPv4-mapped one (`::ffff:a.b.c.d`) is the IPv4 address it maps. */
function canonicalIpv6(address: string): { host: string; family: 'ipv4' | 'ipv6' } | undefined {
  const ipv6 = compressIpv6(address);
  if (ipv6 === undefined) return undefined;
  return ipv6.mapped === undefined ? { host: ipv6.compressed, family: 'ipv6' } : { host: ipv6.mapped, family: 'ipv4' };
}

const PORT = /^[1-9]\d{0,4}$/;
/**
 * WHATWG URL parsing reads a host whose last label is a number (`2130706433`, `10.1`, `0x7f.1`) as an IPv4
 * address: such a "name" would reach an address no network entry allowed. Real top-level domains start with a letter.
 */
const NUMERIC_LAST_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;

/** The parsed target, or undefined when it is not one (the caller answers with one fixed reason). */
export function parseTarget(text: string): ParsedTarget | undefined {
  if (text.length === 0 || text.length > MAX_TARGET_LENGTH) return undefined;
  let host: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const match = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(text);
    if (match === null) return undefined;
    host = match[1] ?? '';
    portText = match[2];
    if (!isIPv6(host)) return undefined;
  } else {
    const colon = text.indexOf(':');
    host = colon === -1 ? text : text.slice(0, colon);
    portText = colon === -1 ? undefined : text.slice(colon + 1);
  }
  let port: number | undefined;
  if (portText !== undefined) {
    if (!PORT.test(portText) || Number(portText) > 65_535) return undefined;
    port = Number(portText);
  }
  const suffix = port === undefined ? '' : `:${port}`;
  if (text.startsWith('[')) {
    const canonical = canonicalIpv6(host);
    if (canonical === undefined) return undefined;
    const bracketed = canonical.family === 'ipv6' ? `[${canonical.host}]` : canonical.host;
    return { host: canonical.host, family: canonical.family, port, authority: `${bracketed}${suffix}` };
  }
  if (isIPv4(host)) return { host, family: 'ipv4', port, authority: `${host}${suffix}` };
  // No trailing dot: `name.` would be a second spelling of `name` that the URL parser keeps apart.
  const last = host.slice(host.lastIndexOf('.') + 1);
  if (host.endsWith('.') || !isHostName(host) || NUMERIC_LAST_LABEL.test(last)) return undefined;
  // The name must be one the URL parser takes as it is: an `xn--` label that is not punycode makes the client's
  // URL throw (it once ended the process), and one it would rewrite is another name than the allow list matched.
  if (urlHostOf(host) !== host.toLowerCase()) return undefined;
  return { host: host.toLowerCase(), family: 'name', port, authority: `${host.toLowerCase()}${suffix}` };
}

/** The host a URL makes of `host`, or undefined when it makes none. */
function urlHostOf(host: string): string | undefined {
  try {
    return new URL(`https://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
