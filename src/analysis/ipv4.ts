/**
 * IPv4 address arithmetic for the set-up audit: prefixes, single addresses and `a-b` ranges (the forms
 * RouterOS accepts in `ip/firewall/filter` src-address/dst-address) as inclusive numeric ranges.
 * IPv6 is deliberately absent: the audit reads `ip/…` menus only.
 */

/** An inclusive range of IPv4 addresses as unsigned 32-bit numbers. */
export interface Ipv4Range {
  readonly lo: number;
  readonly hi: number;
}

export interface Ipv4Prefix {
  /** The network address, host bits cleared. */
  readonly network: number;
  readonly length: number;
  readonly range: Ipv4Range;
}

const OCTETS = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseIpv4(text: string): number | undefined {
  const match = OCTETS.exec(text.trim());
  if (match === null) return undefined;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(match[i]);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** `10.1.2.3/24` (host bits allowed, as on ip/address) or a bare address (a /32). */
export function parseIpv4Prefix(text: string): Ipv4Prefix | undefined {
  const [address = '', length, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const value = parseIpv4(address);
  const bits = length === undefined ? 32 : /^\d{1,2}$/.test(length) ? Number(length) : NaN;
  if (value === undefined || !(bits >= 0 && bits <= 32)) return undefined;
  const size = 2 ** (32 - bits);
  const network = Math.floor(value / size) * size;
  return { network, length: bits, range: { lo: network, hi: network + size - 1 } };
}

/** A firewall address matcher without its `!`: a prefix, an address or `a-b`. */
export function parseIpv4Match(text: string): Ipv4Range | undefined {
  const dash = text.indexOf('-');
  if (dash < 0) return parseIpv4Prefix(text)?.range;
  const lo = parseIpv4(text.slice(0, dash));
  const hi = parseIpv4(text.slice(dash + 1));
  return lo === undefined || hi === undefined || lo > hi ? undefined : { lo, hi };
}

export function contains(outer: Ipv4Range, inner: Ipv4Range): boolean {
  return outer.lo <= inner.lo && inner.hi <= outer.hi;
}

export function overlaps(a: Ipv4Range, b: Ipv4Range): boolean {
  return a.lo <= b.hi && b.lo <= a.hi;
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export function formatPrefix(prefix: Ipv4Prefix): string {
  return `${formatIpv4(prefix.network)}/${prefix.length}`;
}
