/** target= parsing and allow list matching: strict forms, networks for addresses, patterns for names only. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTarget, MAX_TARGET_LENGTH } from '../../src/discovery/target.js';
import { AllowList } from '../../src/discovery/allow.js';
import { parseAllowEntry } from '../../src/config/allow-list.js';
import type { AllowEntry } from '../../src/config/types.js';

function allow(...texts: string[]): AllowList {
  return new AllowList(
    texts.map((text) => {
      const entry = parseAllowEntry(text);
      if (typeof entry === 'string') throw new Error(`${text} ${entry}`);
      return entry;
    }),
  );
}

/** The list of the entries that parse; an entry refused (host bits set) allows nothing, as if left out. */
function allowParsed(...texts: string[]): AllowList {
  return new AllowList(texts.map(parseAllowEntry).filter((entry): entry is AllowEntry => typeof entry !== 'string'));
}

function allows(list: AllowList, target: string): boolean {
  const parsed = parseTarget(target);
  return parsed !== undefined && list.allows(parsed);
}

describe('ports: the allow list trusts a host, not every service on it (found by review)', () => {
  const entries = [parseAllowEntry('10.0.0.0/8'), parseAllowEntry('*.branch.example')] as AllowEntry[];

  it.each([
    ['10.0.0.1', true],
    ['10.0.0.1:443', true],
    ['10.0.0.1:8443', true],
    ['10.0.0.1:22', false],
    ['10.0.0.1:80', false],
    ['r1.branch.example:8443', true],
    ['r1.branch.example:8080', false],
    ['192.0.2.1:443', false],
  ])('ports [443, 8443] under https: %s → %s', (target, allowed) => {
    expect(allows(new AllowList(entries, [443, 8443], 443), target)).toBe(allowed);
  });

  it('a target naming no port goes to its scheme default, which must be listed', () => {
    expect(allows(new AllowList(entries, [8443], 443), '10.0.0.1')).toBe(false);
    expect(allows(new AllowList(entries, [80], 80), '10.0.0.1')).toBe(true);
  });

  it('without ports, any port of an allowed host', () => {
    expect(allows(new AllowList(entries), '10.0.0.1:22')).toBe(true);
  });
});

describe('parseTarget', () => {
  it.each([
    ['10.0.0.1', { host: '10.0.0.1', family: 'ipv4', port: undefined, authority: '10.0.0.1' }],
    ['10.0.0.1:8443', { host: '10.0.0.1', family: 'ipv4', port: 8443, authority: '10.0.0.1:8443' }],
    ['[2001:DB8::1]', { host: '2001:db8::1', family: 'ipv6', port: undefined, authority: '[2001:db8::1]' }],
    ['[2001:0db8:0:0:0:0:0:1]', { host: '2001:db8::1', family: 'ipv6', port: undefined, authority: '[2001:db8::1]' }],
    ['[::FFFF:A14:505]:8443', { host: '10.20.5.5', family: 'ipv4', port: 8443, authority: '10.20.5.5:8443' }],
    ['[2001:db8::1]:443', { host: '2001:db8::1', family: 'ipv6', port: 443, authority: '[2001:db8::1]:443' }],
    ['Core1.Example.net:80', { host: 'core1.example.net', family: 'name', port: 80, authority: 'core1.example.net:80' }],
  ])('reads %s', (text, expected) => {
    expect(parseTarget(text)).toEqual(expected);
  });

  it.each([
    ['', 'empty'],
    ['2001:db8::1', 'IPv6 without brackets'],
    ['[fe80::1%eth0]:443', 'a zone'],
    ['10.0.0.1:0', 'port 0'],
    ['10.0.0.1:65536', 'port above 65535'],
    ['10.0.0.1:0443', 'a leading zero'],
    ['10.0.0.1:', 'an empty port'],
    ['user@10.0.0.1', 'userinfo'],
    ['10.0.0.1/rest', 'a path'],
    ['10.0.0.1?x=1', 'a query'],
    ['router.example.net.', 'a trailing dot'],
    ['2130706433', 'a decimal address that URL parsing reads as 127.0.0.1'],
    ['0x7f.1', 'a hex form that URL parsing reads as an address'],
    ['127.1', 'a short IPv4 form'],
    ['10.0.0.1.', 'an address with a trailing dot'],
    ['-bad.example', 'a label starting with "-"'],
    ['rtr_1.example', 'an underscore'],
    ['bücher.example', 'non-ASCII (would become punycode)'],
    ['a'.repeat(MAX_TARGET_LENGTH + 1), 'too long'],
    ['[::1]x', 'junk after the bracket'],
  ])('refuses %s (%s)', (text) => {
    expect(parseTarget(text)).toBeUndefined();
  });

  it('never accepts a value whose URL would reach another host than the one matched (fuzz)', () => {
    let tried = 0;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789abcdefx.:[]@/%?#-_ '.split('')), maxLength: 40 }), (text) => {
        tried += 1;
        const parsed = parseTarget(text);
        if (parsed === undefined) return;
        const url = new URL(`https://${parsed.authority}`);
        const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
        expect(host).toBe(parsed.host);
        expect(url.port === '' ? undefined : Number(url.port)).toBe(parsed.port === 443 ? undefined : parsed.port);
      }),
      { numRuns: 5_000 },
    );
    console.log(`parseTarget fuzz: ${tried} inputs`);
  });

  it('never accepts a name the URL parser refuses or rewrites: punycode labels, upper case, unicode (fuzz)', () => {
    const label = fc.oneof(
      fc.stringMatching(/^xn--[a-z0-9-]{1,20}$/),
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/),
      fc.constantFrom('xn--nxasmq6b', 'xn--bcher-kva', 'XN--BCHER-KVA', 'xn--', 'xn---', 'xn--a', 'xn--ls8h'),
    );
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }), (labels, port) => {
        const text = `${labels.join('.')}.example.net${port === undefined ? '' : `:${port}`}`;
        const parsed = parseTarget(text);
        if (parsed === undefined) return;
        // Accepted: the client's URL is made without throwing, and reaches the very name the allow list matched.
        expect(new URL(`https://${parsed.authority}`).hostname).toBe(parsed.host);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('AllowList', () => {
  it('matches addresses against networks and single addresses, IPv4 and IPv6', () => {
    const list = allow('10.20.0.0/16', '192.0.2.7', '2001:db8:1::/48');
    expect(allows(list, '10.20.3.4')).toBe(true);
    expect(allows(list, '10.20.3.4:8443')).toBe(true);
    expect(allows(list, '10.21.0.1')).toBe(false);
    expect(allows(list, '192.0.2.7')).toBe(true);
    expect(allows(list, '192.0.2.8')).toBe(false);
    expect(allows(list, '[2001:db8:1::9]:443')).toBe(true);
    expect(allows(list, '[2001:db8:2::9]')).toBe(false);
  });

  it('matches names against patterns, one label per "*", any depth after "**.", case-insensitively', () => {
    const list = allow('core1.example.net', '*.branch.example.net', 'rtr-*.example.org', '**.lab.example');
    expect(allows(list, 'core1.example.net')).toBe(true);
    expect(allows(list, 'CORE1.example.NET:8443')).toBe(true);
    expect(allows(list, 'core2.example.net')).toBe(false);
    expect(allows(list, 'b1.branch.example.net')).toBe(true);
    expect(allows(list, 'a.b1.branch.example.net')).toBe(false);
    expect(allows(list, 'branch.example.net')).toBe(false);
    expect(allows(list, 'b1.branch.example.net.evil.example')).toBe(false);
    expect(allows(list, 'rtr-7.example.org')).toBe(true);
    expect(allows(list, 'rtr-a1.example.org')).toBe(true);
    expect(allows(list, 'xrtr-7.example.org')).toBe(false);
    expect(allows(list, 'a.lab.example')).toBe(true);
    expect(allows(list, 'a.b.c.lab.example')).toBe(true);
    expect(allows(list, 'lab.example')).toBe(false);
    expect(allows(list, 'a.xlab.example')).toBe(false);
  });

  it('keeps the families apart: no IPv6 network allows an IPv4 target, nor an IPv4 network an IPv6 one (fuzz)', () => {
    // Node's BlockList matches an IPv4 address against IPv6 networks holding its mapped form (::ffff:a.b.c.d):
    // with one list for both, `::/0` or `::/16` (a typo of an IPv4-mapped network) allowed every IPv4 address.
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    const ipv6 = fc.array(hextet, { minLength: 8, maxLength: 8 }).map((parts) => parts.join(':'));
    const ipv4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }).map((parts) => parts.join('.'));
    const wide = fc.constantFrom('::', '::ffff:0:0', '0:0:0:0:0:ffff:a14:0');
    fc.assert(
      fc.property(fc.oneof(ipv6, wide), fc.integer({ min: 0, max: 95 }), ipv4, (address, prefix, target) => {
        expect(allows(allowParsed(`${address}/${prefix}`), target), `${address}/${prefix} vs ${target}`).toBe(false);
        expect(allows(allowParsed(`${address}/${prefix}`), `[::ffff:${target}]`)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 0, max: 32 }), ipv6, (address, prefix, target) => {
        expect(allows(allowParsed(`${address}/${prefix}`), `[${target}]`) && parseTarget(`[${target}]`)?.family === 'ipv6').toBe(false);
      }),
      { numRuns: 2_000 },
    );
    expect(allows(allow('::/0'), '[2001:db8::1]')).toBe(true);
  });

  it('refuses an entry with host bits set, naming the network it would be and the one host (fuzz; found by review: 10.20.0.1/16 gave a /16 the profile\'s credentials)', () => {
    const ipv4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 0, max: 32 }), (bytes, prefix) => {
        const value = bytes.reduce((bits, byte) => bits * 256 + byte, 0);
        const size = 2 ** (32 - prefix);
        const network = value - (value % size);
        const networkText = [24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256).join('.');
        const text = `${bytes.join('.')}/${prefix}`;
        const entry = parseAllowEntry(text);
        if (network === value) {
          expect(entry, text).toMatchObject({ kind: 'network', address: bytes.join('.'), prefix });
          return;
        }
        expect(entry).toBe(`has host bits set: as a network it is ${networkText}/${prefix}; write that, or ${bytes.join('.')}/32 for the one host`);
        // What it names is taken: the network allows the address, the host allows it alone.
        expect(allows(allow(`${networkText}/${prefix}`), bytes.join('.'))).toBe(true);
        expect(allows(allow(`${bytes.join('.')}/32`), networkText)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
    expect(parseAllowEntry('2001:db8::1/48')).toBe('has host bits set: as a network it is 2001:db8::/48; write that, or 2001:db8::1/128 for the one host');
    expect(parseAllowEntry('2001:db8:0:0:0:0:0:0/48')).toMatchObject({ kind: 'network', prefix: 48 });
    expect(parseAllowEntry('::ffff:10.20.0.1/112')).toMatch(/^has host bits set/);
  });

  it('reads an IPv4-mapped entry as the IPv4 network it maps, as targets are read', () => {
    expect(parseAllowEntry('::ffff:10.20.0.0/112')).toEqual({ kind: 'network', text: '::ffff:10.20.0.0/112', family: 'ipv4', address: '10.20.0.0', prefix: 16 });
    expect(parseAllowEntry('0:0:0:0:0:FFFF:A14:505')).toEqual({ kind: 'network', text: '0:0:0:0:0:FFFF:A14:505', family: 'ipv4', address: '10.20.5.5', prefix: 32 });
    for (const entry of ['::ffff:10.20.0.0/112', '0:0:0:0:0:ffff:a14:0/112']) {
      const list = allow(entry);
      expect(allows(list, '10.20.3.4'), entry).toBe(true);
      expect(allows(list, '[::ffff:10.20.3.4]:8443'), entry).toBe(true);
      expect(allows(list, '10.21.0.1'), entry).toBe(false);
      expect(allows(list, '[2001:db8::1]'), entry).toBe(false);
    }
  });

  it('never lets a name through a network, nor an address through a name pattern (no DNS at match time)', () => {
    expect(allows(allow('127.0.0.0/8'), 'localhost')).toBe(false);
    expect(allows(allow('10.0.0.0/8'), '10.0.0.1.nip.io')).toBe(false);
    expect(allows(allow('*.*.*.example'), '10.0.0.1')).toBe(false);
    const numeric: AllowEntry = { kind: 'host', text: '*.*.*.*', labels: ['*', '*', '*', '*'], anyDepth: false };
    expect(new AllowList([numeric]).allows({ host: '10.0.0.1', family: 'ipv4', port: undefined, authority: '10.0.0.1' })).toBe(false);
  });
});
