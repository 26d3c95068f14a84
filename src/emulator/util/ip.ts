/** Minimal IPv4/IPv6 prefix handling for address, route and allowed-address values. */
import { isIPv4, isIPv6 } from 'node:net';

export interface Prefix {
  readonly family: 4 | 6;
  /** Canonical text of the address part, as given for IPv6. */
  readonly address: string;
  readonly length: number;
}

/** Dotted quad → unsigned 32-bit integer (the caller has checked it is IPv4). */
export function ipv4ToInt(text: string): number {
  let n = 0;
  let part = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      n = n * 256 + part;
      part = 0;
    } else part = part * 10 + (c - 48);
  }
  return (n * 256 + part) >>> 0;
}

export function intToIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** `ip[/len]` → prefix; a missing length means a host route (/32 or /128), as RouterOS stores it. */
export function parsePrefix(text: string): Prefix | undefined {
  const [addr = '', len, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const family = isIPv4(addr) ? 4 : isIPv6(addr) ? 6 : undefined;
  if (family === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return undefined;
  const length = len === undefined ? max : Number(len);
  if (length > max) return undefined;
  const address = family === 4 ? intToIpv4(ipv4ToInt(addr)) : addr.toLowerCase();
  return { family, address, length };
}

export function formatPrefix(p: Prefix): string {
  return `${p.address}/${p.length}`;
}

/** The network address of an IPv4 prefix (`192.168.88.1/24` → `192.168.88.0`). */
export function ipv4Network(p: Prefix): string {
  if (p.family !== 4) return p.address;
  const mask = p.length === 0 ? 0 : (0xffffffff << (32 - p.length)) >>> 0;
  return intToIpv4((ipv4ToInt(p.address) & mask) >>> 0);
}

/** The prefix with host bits cleared: what RouterOS stores as a route's dst-address. */
export function networkPrefix(p: Prefix): Prefix {
  return p.family === 4 ? { ...p, address: ipv4Network(p) } : p;
}

export function isIp(text: string): boolean {
  return isIPv4(text) || isIPv6(text);
}
