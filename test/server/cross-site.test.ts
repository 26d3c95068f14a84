/**
 * crossSite (the reload's guard against pages of other sites) over generated Host and Origin pairs: the same
 * origin in any spelling a browser or proxy may send (name case, a trailing dot, IPv4 and IPv6 forms, the scheme's
 * port given or not) is never refused, and another host or port is always refused.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { crossSite } from '../../src/server/cross-site.js';

const request = (host: string, origin: string): IncomingMessage => ({ headers: { host, origin }, socket: {} }) as unknown as IncomingMessage;

type Host = { kind: 'name'; labels: string[] } | { kind: 'ipv4'; bytes: number[] } | { kind: 'ipv6'; groups: number[] };
interface Origin {
  host: Host;
  port: number;
  scheme: 'http' | 'https';
}

/** A DNS label; not one with `--` at its third character (`xn--…` is punycode, and a browser never sends an invalid one). */
const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,5}[a-z0-9])?$/).filter((text) => text.slice(2, 4) !== '--');
const hostArb: fc.Arbitrary<Host> = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => ({ kind: 'name' as const, labels })),
  fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }).map((bytes) => ({ kind: 'ipv4' as const, bytes })),
  fc.array(fc.oneof(fc.constant(0), fc.nat(0xffff)), { minLength: 8, maxLength: 8 }).map((groups) => ({ kind: 'ipv6' as const, groups })),
);
const originArb: fc.Arbitrary<Origin> = fc.record({
  host: hostArb,
  port: fc.oneof(fc.constant(80), fc.constant(443), fc.integer({ min: 1, max: 65535 })),
  scheme: fc.constantFrom('http' as const, 'https' as const),
});

/** How a host may be written: `choice` picks among the spellings that mean the same host. */
function spell(host: Host, choice: number[]): string {
  const pick = (index: number, count: number): number => (choice[index] ?? 0) % count;
  if (host.kind === 'name') {
    const name = host.labels.join('.');
    const cased = [...name].map((c, index) => ((choice[index % choice.length] ?? 0) % 2 === 1 ? c.toUpperCase() : c)).join('');
    return pick(1, 2) === 1 ? `${cased}.` : cased;
  }
  if (host.kind === 'ipv4') {
    const [a = 0, b = 0, c = 0, d = 0] = host.bytes;
    const forms = [host.bytes.join('.'), String(a * 2 ** 24 + b * 2 ** 16 + c * 2 ** 8 + d), host.bytes.map((byte) => `0x${byte.toString(16)}`).join('.')];
    return forms[pick(2, forms.length)] as string;
  }
  const short = host.groups.map((group) => group.toString(16));
  const forms = [short.join(':'), host.groups.map((group) => group.toString(16).padStart(4, '0')).join(':'), short.join(':').toUpperCase()];
  return `[${forms[pick(3, forms.length)] as string}]`;
}

const defaultPort = (scheme: Origin['scheme']): number => (scheme === 'https' ? 443 : 80);
const sameHost = (a: Host, b: Host): boolean => JSON.stringify(a) === JSON.stringify(b);
const choices = fc.array(fc.nat(), { minLength: 4, maxLength: 12 });

describe('crossSite over generated Host and Origin pairs', () => {
  it('never refuses the same origin, however Host and Origin spell it', () => {
    fc.assert(
      fc.property(originArb, choices, choices, fc.boolean(), fc.boolean(), (origin, hostChoice, originChoice, hostHasPort, originShowsPort) => {
        const host = `${spell(origin.host, hostChoice)}${hostHasPort ? `:${origin.port}` : ''}`;
        const showPort = originShowsPort || origin.port !== defaultPort(origin.scheme);
        const from = `${origin.scheme}://${spell(origin.host, originChoice)}${showPort ? `:${origin.port}` : ''}`;
        expect(crossSite(request(host, from)), `Host ${host}, Origin ${from}`).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('always refuses another host, and another port where Host gives one', () => {
    fc.assert(
      fc.property(originArb, originArb, choices, choices, fc.boolean(), (target, page, hostChoice, originChoice, hostHasPort) => {
        const host = `${spell(target.host, hostChoice)}${hostHasPort ? `:${target.port}` : ''}`;
        const from = `${page.scheme}://${spell(page.host, originChoice)}:${page.port}`;
        const same = sameHost(target.host, page.host) && (!hostHasPort || target.port === page.port);
        expect(crossSite(request(host, from)), `Host ${host}, Origin ${from}`).toBe(!same);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses the same host on another port exactly when Host gives its port', () => {
    fc.assert(
      fc.property(originArb, fc.integer({ min: 1, max: 65535 }), choices, choices, fc.boolean(), (target, otherPort, hostChoice, originChoice, hostHasPort) => {
        fc.pre(otherPort !== target.port);
        const host = `${spell(target.host, hostChoice)}${hostHasPort ? `:${target.port}` : ''}`;
        const from = `${target.scheme}://${spell(target.host, originChoice)}:${otherPort}`;
        // Without a port in Host (a proxy passing the name alone) the port the browser used cannot be known.
        expect(crossSite(request(host, from)), `Host ${host}, Origin ${from}`).toBe(hostHasPort);
      }),
      { numRuns: 1000 },
    );
  });
});
