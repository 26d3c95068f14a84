/**
 * A `target=` value of `/probe?target=…&profile=…`: `HOST` or `HOST:PORT`, an IPv6 address in brackets. Checked
 * strictly before anything else, because it comes from whoever can reach the exporter: bounded length, a plain
 * charset, no userinfo, path, zone or numeric forms a URL parser would read as another address.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { isHostName } from '../config/net.js';

/** `[` 45-character IPv6 `]:65535`, or a 253-character host name with a port, fit well inside. */
export const MAX_TARGET_LENGTH = 262;

export interface ParsedTarget {
  /** What the allow list is matched against: an address, or a lower-case host name. */
  host: string;
  family: 'ipv4' | 'ipv6' | 'name';
  port: number | undefined;
  /** `host[:port]` as it goes into the URL (an IPv6 address in brackets). */
  authority: string;
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
  if (text.startsWith('[')) return { host: host.toLowerCase(), family: 'ipv6', port, authority: `[${host}]${suffix}` };
  if (isIPv4(host)) return { host, family: 'ipv4', port, authority: `${host}${suffix}` };
  // No trailing dot: the name is matched and shown as given, and `name.` would be a second spelling of `name`.
  const last = host.slice(host.lastIndexOf('.') + 1);
  if (host.endsWith('.') || !isHostName(host) || NUMERIC_LAST_LABEL.test(last)) return undefined;
  // The name must be one the URL parser takes as it is: an `xn--` label that is not punycode makes the client's
  // URL throw (it once ended the process), and one it would rewrite is another name than the allow list matched.
  if (urlHostOf(host) !== host.toLowerCase()) return undefined;
  return { host: host.toLowerCase(), family: 'name', port, authority: `${host}${suffix}` };
}

/** The host a URL makes of `host`, or undefined when it makes none. */
function urlHostOf(host: string): string | undefined {
  try {
    return new URL(`https://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
