/**
 * A profile's `targets:` allow list (docs/configuration.md, "profiles"): what a discovered target may be.
 * Entries are IP networks in CIDR form (`10.20.0.0/16`, `2001:db8::/48`), single addresses (a /32 or /128), exact
 * host names (`core1.example.net`) and host name patterns (`*.branch.example.net`, `rtr-*.example.net`,
 * `**.example.net`). Parsed here once; src/discovery/allow.ts matches targets against them.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { REPORTED } from './fields.js';
import { compressIpv6, isHostName } from './net.js';
import { joinPath, type Problems } from './problems.js';
import type { AllowEntry } from './types.js';
import { quoteValue } from './value-error.js';

/** A label of a pattern: letters, digits, hyphens and at most one `*`, which never crosses a dot. */
const PATTERN_LABEL = /^[a-z0-9-]*\*?[a-z0-9-]*$/;
/** Bounded so an allow list stays cheap to check on every probe (each entry is tried in turn). */
export const MAX_ALLOW_ENTRIES = 1_000;

function hostPattern(text: string): AllowEntry | string {
  const lower = text.toLowerCase();
  const labels = lower.split('.');
  const [first, ...rest] = labels;
  const anyDepth = first === '**';
  const named = anyDepth ? rest : labels;
  if (named.some((label) => label === '**')) return '"**" is allowed only as the whole first label (like **.example.net)';
  if (named.length === 0 || named.some((label) => label === '' || label.length > 63 || !PATTERN_LABEL.test(label))) {
    return 'is not a host name pattern: use letters, digits, "-", and "*" within one label (like *.example.net or rtr-*.example.net); "**." in front matches any number of labels';
  }
  // A bare `*` or `**` would allow every name: say so with a network instead (0.0.0.0/0 reads as what it is).
  if (named.every((label) => label === '*')) return 'matches every host name: name a domain (like *.example.net)';
  if (lower.length > 253) return 'is longer than a host name can be (253 characters)';
  return { kind: 'host', text, labels: named, anyDepth };
}

function cidr(text: string): AllowEntry | string {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (family === undefined) return 'is not an IP address or network (like 10.20.0.0/16 or 2001:db8::/48)';
  const max = family === 'ipv4' ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return `has a prefix length that is not a number from 0 to ${max}`;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return `has a prefix length above ${max}`;
  // Targets in IPv4-mapped form are matched as the IPv4 address they map (discovery/target.ts), and IPv6
  // entries match IPv6 targets only: an entry in mapped form is the IPv4 network it maps, else it would match
  // nothing. Below /96 it is no mapped network but a wide IPv6 one, which takes no IPv4 target either.
  const mapped = family === 'ipv6' && prefix >= 96 ? compressIpv6(address)?.mapped : undefined;
  const network = networkOf(address, family, prefix, max);
  if (network !== undefined) {
    // `10.20.0.1/16` is an interface's address pasted where one host was meant: read as a network, it gave the
    // profile's credentials to the whole /16 without a word (found by review). Say which was meant.
    return `has host bits set: as a network it is ${network}/${prefix}; write that, or ${address}/${max} for the one host`;
  }
  if (mapped !== undefined) return { kind: 'network', text, family: 'ipv4', address: mapped, prefix: prefix - 96 };
  return { kind: 'network', text, family, address, prefix };
}

/** An address's bits, most significant first. */
function bitsOf(address: string, family: 'ipv4' | 'ipv6'): bigint {
  if (family === 'ipv4') return address.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
  // In the URL's spelling: hex groups only (an IPv4 tail written as two groups), at most one `::`.
  const compressed = compressIpv6(address)?.compressed ?? address;
  const [head = '', tail] = compressed.split('::');
  const groupsOf = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** The network an entry's address lies in, when the address has bits set past its prefix; undefined when it has none. */
function networkOf(address: string, family: 'ipv4' | 'ipv6', prefix: number, max: number): string | undefined {
  const bits = bitsOf(address, family);
  const hostMask = (1n << BigInt(max - prefix)) - 1n;
  if ((bits & hostMask) === 0n) return undefined;
  const network = bits & ~hostMask;
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((shift) => String((network >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((network >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return compressIpv6(groups.join(':'))?.compressed ?? groups.join(':');
}

/** One entry, or why it is not one. */
export function parseAllowEntry(text: string): AllowEntry | string {
  if (text.includes('%')) return 'must not carry an IPv6 zone (%…): the allow list names addresses, not interfaces';
  if (/^[0-9a-fA-F:.]+(?:\/.*)?$/.test(text) && (text.includes(':') || text.includes('/') || /^[\d.]+$/.test(text))) return cidr(text);
  if (isHostName(text) && !text.includes('*')) return { kind: 'host', text, labels: text.toLowerCase().replace(/\.$/, '').split('.'), anyDepth: false };
  return hostPattern(text.replace(/\.$/, ''));
}

/** `targets:`: a non-empty list of entries; each bad one is reported at its own path. */
export function readAllowList(value: unknown, path: string, problems: Problems): AllowEntry[] | undefined {
  if (value === REPORTED) return undefined;
  if (value === null || (Array.isArray(value) && value.length === 0)) {
    problems.add(path, 'must list at least one network or host name pattern: a profile names what it may reach');
    return undefined;
  }
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of networks (10.20.0.0/16) and host name patterns (*.branch.example.net)');
    return undefined;
  }
  if (value.length > MAX_ALLOW_ENTRIES) {
    problems.add(path, `has ${value.length} entries; at most ${MAX_ALLOW_ENTRIES} (use wider networks or patterns)`);
    return undefined;
  }
  const entries: AllowEntry[] = [];
  let ok = true;
  value.forEach((item, i) => {
    const itemPath = joinPath(path, i);
    if (item === REPORTED) {
      ok = false;
      return;
    }
    if (typeof item !== 'string' || item === '') {
      problems.add(itemPath, 'must be a network or host name pattern (a non-empty string)');
      ok = false;
      return;
    }
    const entry = parseAllowEntry(item);
    if (typeof entry === 'string') {
      problems.add(itemPath, `${quoteValue(item)} ${entry}`);
      ok = false;
    } else entries.push(entry);
  });
  return ok ? entries : undefined;
}
