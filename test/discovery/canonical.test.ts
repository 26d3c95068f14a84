/**
 * One router, one name: every spelling of an address, a name or the default port is one target (one key, one
 * poller, one `router` label), distinct routers stay distinct, and a configured router is recognised by its name
 * or its URL however the probe spells it. Properties over random spellings; the registry without a scheduler.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { parseTarget, targetEndpoint, targetName, type Scheme } from '../../src/discovery/target.js';
import { DiscoveryRegistry } from '../../src/discovery/registry.js';
import type { ForgetReason } from '../../src/discovery/registry.js';
import { testConfig } from '../helpers/config.js';

function key(text: string, scheme: Scheme = 'https'): string {
  const parsed = parseTarget(text);
  if (parsed === undefined) throw new Error(`refused: ${text}`);
  return targetName(parsed, scheme);
}

const hex = (n: number): string => n.toString(16);
/** Random case for the letters of a string. */
const cased = (text: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
/** Every way to write an IPv4 address as a target under https: plain, :443, and IPv4-mapped IPv6 in its forms. */
const ipv4Spelling = (a: number[]): fc.Arbitrary<string> => {
  const dotted = a.join('.');
  const high = hex(a[0]! * 256 + a[1]!);
  const low = hex(a[2]! * 256 + a[3]!);
  const forms = [dotted, `::ffff:${dotted}`, `::ffff:${high}:${low}`, `0:0:0:0:0:ffff:${dotted}`, `0::FFFF:${high}:${low}`, `0000:0:0::ffff:${high.padStart(4, '0')}:${low}`];
  return fc.tuple(fc.constantFrom(...forms), fc.boolean()).chain(([form, port]) =>
    cased(form).map((text) => {
      const host = text.includes(':') ? `[${text}]` : text;
      return port ? `${host}:443` : host;
    }),
  );
};

const ipv6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).filter((groups) => !(groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff));
/** An IPv6 address in full with leading zeros, or compressed, in random case, with or without :443. */
const ipv6Spelling = (groups: number[]): fc.Arbitrary<string> => {
  const full = groups.map((g) => hex(g).padStart(4, '0')).join(':');
  const short = new URL(`http://[${full}]/`).hostname.slice(1, -1);
  return fc.tuple(fc.constantFrom(full, short, groups.map(hex).join(':')), fc.boolean()).chain(([form, port]) => cased(form).map((text) => `[${text}]${port ? ':443' : ''}`));
};

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const hostName = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => `${labels.join('.')}.example.net`);
const nameSpelling = (name: string): fc.Arbitrary<string> => fc.tuple(cased(name), fc.boolean()).map(([text, port]) => (port ? `${text}:443` : text));

describe('one canonical name per target', () => {
  it('every spelling of an IPv4 address (mapped IPv6 included, :443 under https) is one key; distinct addresses are distinct', () => {
    fc.assert(
      fc.property(ipv4, ipv4, (a, b) =>
        fc.assert(
          fc.property(ipv4Spelling(a), ipv4Spelling(a), ipv4Spelling(b), (x, y, z) => {
            expect(key(x)).toBe(a.join('.'));
            expect(key(y)).toBe(key(x));
            expect(key(z) === key(x)).toBe(a.join('.') === b.join('.'));
          }),
          { numRuns: 10 },
        ),
      ),
      { numRuns: 200 },
    );
  });

  it('every spelling of an IPv6 address is one key, the URL parser\'s compressed form in brackets; distinct ones are distinct', () => {
    fc.assert(
      fc.property(ipv6, ipv6, (a, b) =>
        fc.assert(
          fc.property(ipv6Spelling(a), ipv6Spelling(a), ipv6Spelling(b), (x, y, z) => {
            expect(key(y)).toBe(key(x));
            expect(key(x)).toBe(new URL(`http://[${a.map(hex).join(':')}]/`).hostname);
            expect(key(z) === key(x)).toBe(a.join() === b.join());
          }),
          { numRuns: 10 },
        ),
      ),
      { numRuns: 200 },
    );
  });

  it('a host name in any case, with or without the default port, is one lower-case key; another port or name is another key', () => {
    fc.assert(
      fc.property(hostName, hostName, fc.integer({ min: 1, max: 65_535 }), (a, b, port) =>
        fc.assert(
          fc.property(nameSpelling(a), nameSpelling(a), nameSpelling(b), cased(a), (x, y, z, w) => {
            expect(key(x)).toBe(a);
            expect(key(y)).toBe(a);
            expect(key(z) === key(x)).toBe(a === b);
            expect(key(`${w}:${port}`) === a).toBe(port === 443);
          }),
          { numRuns: 10 },
        ),
      ),
      { numRuns: 200 },
    );
  });

  it("drops only the profile scheme's own default port, and keys what is reached by host and effective port", () => {
    expect(key('10.0.0.1:80', 'http')).toBe('10.0.0.1');
    expect(key('10.0.0.1:443', 'http')).toBe('10.0.0.1:443');
    expect(key('10.0.0.1:80', 'https')).toBe('10.0.0.1:80');
    expect(targetEndpoint(parseTarget('10.0.0.1')!, 'http')).toBe(targetEndpoint(parseTarget('[::ffff:a00:1]:80')!, 'https'));
  });
});

describe('the registry under many spellings', () => {
  const forgotten: [string, ForgetReason][] = [];
  function registry(): DiscoveryRegistry {
    return new DiscoveryRegistry({
      now: () => 0,
      store: { subscribe: () => () => undefined, tried: () => false, triedJobs: () => false, snapshots: () => [], recorded: 0 },
      changed: () => undefined,
      logger: pino({ level: 'silent' }),
      metrics: { targets: () => undefined, created: () => undefined, forgotten: (profile, reason) => forgotten.push([profile, reason]), refused: () => undefined },
    });
  }
  const profiles = {
    a: { targets: ['10.20.0.0/16', '*.example.net'], password: 'pw-a' },
    b: { targets: ['10.20.0.0/16', '*.example.net'], password: 'pw-b' },
    plain: { targets: ['10.30.0.0/16'], scheme: 'http' },
  };
  const config = (routers: unknown[] = []) => testConfig({ defaults: { username: 'm', password: 'p' }, routers, profiles });

  it('polls one router once: other spellings under its profile are it, under another profile refused', async () => {
    const made = registry();
    made.configure(config());
    expect(await made.discover('10.20.5.5', 'a', 0)).toEqual({ kind: 'timeout', router: '10.20.5.5' });
    for (const spelling of ['10.20.5.5:443', '[::ffff:10.20.5.5]', '[::FFFF:A14:505]', '[0:0:0:0:0:ffff:10.20.5.5]:443']) {
      expect(await made.discover(spelling, 'a', 0)).toEqual({ kind: 'timeout', router: '10.20.5.5' });
      expect((await made.discover(spelling, 'b', 0)).kind).toBe('refused');
    }
    expect(made.routers().map((router) => [router.name, router.url])).toEqual([['10.20.5.5', 'https://10.20.5.5']]);
    made.close();
  });

  it('serves a configured router by any spelling of its name or of its URL, and forgets a target the config comes to reach', async () => {
    const made = registry();
    made.configure(config([{ name: 'core1.example.net', url: 'https://192.0.2.9' }, { name: 'edge', url: 'https://[::ffff:10.20.9.9]:443' }]));
    for (const spelling of ['CORE1.example.net', 'core1.EXAMPLE.net:443']) expect(await made.discover(spelling, 'b', 0)).toEqual({ kind: 'ready', router: 'core1.example.net' });
    for (const spelling of ['10.20.9.9', '10.20.9.9:443', '[::ffff:a14:909]']) expect(await made.discover(spelling, 'a', 0)).toEqual({ kind: 'ready', router: 'edge' });
    expect(made.size).toBe(0);
    // Another port of that address is another router.
    expect((await made.discover('10.20.9.9:8443', 'a', 0)).kind).toBe('timeout');
    expect((await made.discover('[::ffff:10.20.8.8]', 'a', 0)).kind).toBe('timeout');
    expect(made.size).toBe(2);
    forgotten.length = 0;
    made.configure(config([{ name: 'branch', url: 'https://10.20.8.8:443/' }]));
    expect(forgotten).toEqual([['a', 'configured']]);
    expect(made.routers().map((router) => router.name)).toEqual(['10.20.9.9:8443']);
    made.close();
  });

  it('one endpoint under two schemes is one router: http 10.30.1.1 and https 10.30.1.1:80 reach the same port', async () => {
    const made = registry();
    made.configure(testConfig({ defaults: { username: 'm', password: 'p' }, routers: [], profiles: { plain: { targets: ['10.30.0.0/16'], scheme: 'http' }, tls: { targets: ['10.30.0.0/16'] } } }));
    expect((await made.discover('10.30.1.1', 'plain', 0)).kind).toBe('timeout');
    expect((await made.discover('10.30.1.1:80', 'tls', 0)).kind).toBe('refused');
    // Same name, other endpoint (443): one name must stay one router, so this is refused too.
    expect((await made.discover('10.30.1.1', 'tls', 0)).kind).toBe('refused');
    expect(made.size).toBe(1);
    made.close();
  });

  it('a reload that changes a profile\'s scheme forgets its targets (their names and ports change): profile_removed', async () => {
    const made = registry();
    made.configure(config());
    expect((await made.discover('10.30.1.1', 'plain', 0)).kind).toBe('timeout');
    forgotten.length = 0;
    made.configure(testConfig({ defaults: { username: 'm', password: 'p' }, routers: [], profiles: { ...profiles, plain: { targets: ['10.30.0.0/16'] } } }));
    expect(forgotten).toEqual([['plain', 'profile_removed']]);
    expect(made.size).toBe(0);
    made.close();
  });
});
