import { isIP, isIPv6 } from 'node:net';
import { quoteValue } from './value-error.js';

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** A label a certificate's name may have: an underscore too, anywhere (`hq_router.lan`). */
const CERTIFICATE_LABEL = /^[A-Za-z0-9_-]{1,63}$/;

/** The schemes a router or a profile's targets are reached by. */
export type Scheme = 'https' | 'http';
/** Each scheme's port when none is written: one place for the discovery, its allow list, /sd and the config's advice. */
export const DEFAULT_PORT: Readonly<Record<Scheme, number>> = { https: 443, http: 80 };

/** Dot-separated labels each matching `label`, 253 characters at most, a trailing dot allowed. */
function isDottedName(text: string, label: RegExp): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  return name.length > 0 && name.length <= 253 && name.split('.').every((part) => label.test(part));
}

/** A DNS host name: dot-separated labels of letters, digits and inner hyphens, 253 characters at most. */
export function isHostName(text: string): boolean {
  return isDottedName(text, LABEL);
}

/**
 * A name a certificate may hold and Node sends as SNI and matches against it: a host name, or one with underscores
 * (`hq_router.lan`, no DNS host name: refused, it broke configs that worked; found by review).
 */
export function isCertificateName(text: string): boolean {
  return isDottedName(text, CERTIFICATE_LABEL);
}

export function isIpAddress(text: string): boolean {
  return isIP(text) !== 0;
}

const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * An IPv6 address in its compressed form (`2001:db8::1`, lower case, as the URL parser writes it), and the IPv4
 * address it maps when it is IPv4-mapped (`::ffff:10.20.5.5`, `0:0:0:0:0:ffff:a14:505`); undefined when it is no
 * IPv6 address.
 */
export function compressIpv6(address: string): { compressed: string; mapped: string | undefined } | undefined {
  if (!isIPv6(address)) return undefined;
  let compressed: string;
  try {
    compressed = new URL(`https://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const match = MAPPED.exec(compressed);
  if (match === null) return { compressed, mapped: undefined };
  const high = parseInt(match[1] ?? '0', 16);
  const low = parseInt(match[2] ?? '0', 16);
  return { compressed, mapped: [high >> 8, high & 255, low >> 8, low & 255].join('.') };
}

export interface ListenAddress {
  host: string;
  port: number;
}

export type ListenCheck = { address: ListenAddress } | { problem: string };

/**
 * The one verdict on a listen address, for the config loader (check-config, reload) and the server alike:
 * two parsers once disagreed (`127.0.0.1:000009871` passed check-config and stopped the start). Forms:
 * `host:port`, `:port` (every interface, 0.0.0.0), `[ipv6]:port`; the port may be 0 (the OS picks one, handy
 * in tests) and has at most 5 digits. The host comes back in one spelling (lower case, IPv6 compressed), so
 * two ways of writing the same address compare equal.
 */
export function checkListen(text: string): ListenCheck {
  const bracketed = /^\[([^\]]*)\]:(\d+)$/.exec(text);
  const plain = /^([^:[\]]*):(\d+)$/.exec(text);
  const example = '(use host:port, like 0.0.0.0:9731, :9731 or [::]:9731)';
  if (bracketed === null && plain === null) {
    const hint = (text.match(/:/g) ?? []).length > 1 ? ' (put an IPv6 address in brackets, like [::]:9731)' : ` ${example}`;
    return { problem: `${quoteValue(text)} is not a listen address${hint}` };
  }
  const [, host = '', port = ''] = bracketed ?? plain ?? [];
  // A zone (`fe80::1%eth0`) is IPv6 to Node but not to the URL parser, which threw a bare "Invalid URL" out of
  // check-config and the daemon's start (found by review). Refused, said as such.
  if (bracketed !== null && host.includes('%')) {
    return { problem: `${quoteValue(host)} has a zone (%…), which a listen address cannot: listen on [::]:PORT, or on the address without its zone` };
  }
  if (bracketed !== null ? !isIPv6(host) : host !== '' && !isIpAddress(host) && !isHostName(host)) {
    return { problem: `${quoteValue(host)} is not an IP address or host name ${example}` };
  }
  if (port.length > 5) return { problem: `port ${quoteValue(port)} has more than 5 digits (use 0 to 65535)` };
  if (Number(port) > 65_535) return { problem: `port ${port} is above 65535` };
  let canonical = host === '' ? '0.0.0.0' : host.toLowerCase();
  // The URL parser compresses an IPv6 address (0:0:0:0:0:0:0:1 → ::1); the brackets come off again.
  if (bracketed !== null) {
    const compressed = compressIpv6(host)?.compressed;
    if (compressed === undefined) return { problem: `${quoteValue(host)} is not an IP address or host name ${example}` };
    canonical = compressed;
  }
  return { address: { host: canonical, port: Number(port) } };
}

/** Why a listen address is invalid, or undefined: checkListen's verdict. */
export function listenProblem(text: string): string | undefined {
  const check = checkListen(text);
  return 'problem' in check ? check.problem : undefined;
}

export type UrlCheck = { url: string } | { problem: string };

/**
 * A router URL → `scheme://host[:port]` without a trailing slash. Credentials, a path, a query or a
 * fragment are refused: the client appends `/rest` itself and takes credentials from their own keys.
 * A URL with credentials is never quoted back, so the password cannot reach a log.
 */
export function checkRouterUrl(text: string): UrlCheck {
  const shown = text.includes('@') ? 'the URL' : quoteValue(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `${shown} is not a URL (use https://host or https://host:port)` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `${shown} must start with https:// (or http:// on RouterOS 7.9+)` };
  }
  if (url.username !== '' || url.password !== '') {
    return { problem: 'must not contain credentials: set username and password (or password_file) instead' };
  }
  if (url.hostname === '') return { problem: `${shown} has no host` };
  // Port 0 is no port a router listens on: every connection would fail as refused, for a mistyped number.
  if (url.port === '0') return { problem: `${shown} has port 0, which nothing listens on (leave the port out for the scheme's own)` };
  if (url.pathname !== '/' && url.pathname !== '') {
    return { problem: `${shown} must not have a path: the exporter appends /rest itself` };
  }
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    return { problem: `${shown} must not have a query or fragment` };
  }
  return { url: `${url.protocol}//${url.host}` };
}

/** True for a router reached over plain HTTP (allowed, but the password then crosses the network in clear). */
export function isPlainHttp(url: string): boolean {
  return url.startsWith('http://');
}
