/**
 * Matching a parsed target against a profile's allow list (src/config/allow-list.ts parses the entries).
 * Addresses match networks only, host names match host name entries only: a name is never resolved here to be
 * checked against a network, since the client resolves it again when it connects and DNS may answer differently
 * then (rebinding). So a profile that lists only networks takes only addresses; naming hosts means trusting DNS
 * for exactly the names listed (docs/configuration.md, "profiles").
 */
import { BlockList } from 'node:net';
import type { AllowEntry } from '../config/types.js';
import type { ParsedTarget } from './target.js';

type HostEntry = Extract<AllowEntry, { kind: 'host' }>;

/** One label of a pattern against one label of a name; `*` (at most one per label) stands for any run of characters. */
function labelMatches(pattern: string, label: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === label;
  const head = pattern.slice(0, star);
  const tail = pattern.slice(star + 1);
  return label.length >= head.length + tail.length && label.startsWith(head) && label.endsWith(tail);
}

function hostMatches(entry: HostEntry, labels: readonly string[]): boolean {
  const { labels: pattern } = entry;
  // `**.example.net` wants at least one label in front; otherwise the label counts are equal.
  if (entry.anyDepth ? labels.length <= pattern.length : labels.length !== pattern.length) return false;
  const offset = labels.length - pattern.length;
  return pattern.every((part, i) => labelMatches(part, labels[offset + i] ?? ''));
}

export class AllowList {
  /** The ports a target may name (absent: any), and the one a target that names none goes to. */
  readonly #ports: ReadonlySet<number> | undefined;
  readonly #defaultPort: number;
  // One list per family: a BlockList holding IPv6 networks also matches an IPv4 address whose mapped form
  // (::ffff:a.b.c.d) they contain, so `::/0` or `::/16` in one list with IPv4 entries would allow every IPv4
  // address. IPv6 entries match IPv6 targets only (a mapped entry is parsed as its IPv4 network).
  readonly #ipv4 = new BlockList();
  readonly #ipv6 = new BlockList();
  readonly #hosts: HostEntry[] = [];

  constructor(entries: readonly AllowEntry[], ports?: readonly number[], defaultPort = 443) {
    this.#ports = ports === undefined ? undefined : new Set(ports);
    this.#defaultPort = defaultPort;
    for (const entry of entries) {
      if (entry.kind === 'network') (entry.family === 'ipv4' ? this.#ipv4 : this.#ipv6).addSubnet(entry.address, entry.prefix, entry.family);
      else this.#hosts.push(entry);
    }
  }

  allows(target: ParsedTarget): boolean {
    if (this.#ports !== undefined && !this.#ports.has(target.port ?? this.#defaultPort)) return false;
    if (target.family === 'ipv4') return this.#ipv4.check(target.host, 'ipv4');
    if (target.family === 'ipv6') return this.#ipv6.check(target.host, 'ipv6');
    const labels = target.host.split('.');
    return this.#hosts.some((entry) => hostMatches(entry, labels));
  }
}
