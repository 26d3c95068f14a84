/**
 * A drop that meets more packets never blocks less. Widening a drop's address (a shorter prefix; under `!`, a
 * longer one, which spares less) or taking the address away makes it meet a superset of the packets it met: if the
 * narrower drop breaks a tunnel's flow, the wider one breaks it too, and a verdict that passes the wider drop while
 * the narrower one blocks is wrong one way or the other. Rule sets are RouterOS's default firewall with a few rules
 * added, the drop among them; the flows are the audit's: the tunnel's packets to the router, and a routed subnet's
 * new connections both ways.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateChain, type Flow, type InterfaceLists } from '../../src/analysis/firewall.js';
import { formatIpv4, parseIpv4, parseIpv4Match } from '../../src/analysis/ipv4.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { ARRIVALS, generatedLists, listMatcher, withLists } from './interface-lists.js';

const SUBNET = parseIpv4Match('192.168.20.0/24') ?? { lo: 0, hi: 0 };
const LOOPBACK = parseIpv4Match('127.0.0.0/8') ?? { lo: 0, hi: 0 };
const FLOWS: readonly [string, Flow][] = [
  ['input', { protocol: 'udp', dstPort: 13231, dst: { not: LOOPBACK }, inInterface: { not: 'wg0' }, toRouter: true }],
  ['forward', { src: { is: SUBNET }, dst: { not: SUBNET }, inInterface: { is: 'wg0' }, outInterface: { not: 'wg0' }, lanSide: true }],
  ['forward', { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true }],
  // Knowing what arrives on bridge, ether2 and the WAN (everything), as the audit does: a drop on one of them, or on
  // a list of them (generated members), of the sources all of them spare meets none.
  ['forward', { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true, arrivals: ARRIVALS }],
];

/** The flows with the lists, when known. */
function flowsWith(lists: InterfaceLists | undefined): [string, Flow][] {
  return FLOWS.map(([chain, flow]) => [chain, withLists([flow], lists)[0] ?? flow]);
}

/** defconf's input and forward rules (RouterOS 7), less the IPv6 and fasttrack ones that do not decide. */
const DEFCONF: readonly RouterRecord[] = [
  { chain: 'input', action: 'accept', 'connection-state': 'established,related,untracked' },
  { chain: 'input', action: 'drop', 'connection-state': 'invalid' },
  { chain: 'input', action: 'accept', protocol: 'icmp' },
  { chain: 'input', action: 'accept', 'dst-address': '127.0.0.1' },
  { chain: 'input', action: 'drop', 'in-interface-list': '!LAN' },
  { chain: 'forward', action: 'accept', 'ipsec-policy': 'in,ipsec' },
  { chain: 'forward', action: 'accept', 'ipsec-policy': 'out,ipsec' },
  { chain: 'forward', action: 'accept', 'connection-state': 'established,related,untracked' },
  { chain: 'forward', action: 'drop', 'connection-state': 'invalid' },
  { chain: 'forward', action: 'drop', 'connection-state': 'new', 'connection-nat-state': '!dstnat', 'in-interface-list': 'WAN' },
];

const conditions = fc.record(
  {
    protocol: fc.constantFrom('udp', 'tcp', '!udp'),
    'dst-port': fc.constantFrom('13231', '445', '!13231'),
    'in-interface': fc.constantFrom('wg0', 'bridge', '!wg0', 'ether1'),
    'out-interface': fc.constantFrom('wg0', 'bridge', '!wg0'),
    'in-interface-list': listMatcher,
    'out-interface-list': listMatcher,
    'connection-state': fc.constantFrom('new', 'established,related'),
    'src-address': fc.constantFrom('192.168.88.0/24', '!192.168.88.0/24', '192.168.20.0/24', '192.168.20.7', '!10.0.0.0/8'),
  },
  { requiredKeys: [] },
);
const otherRule = fc
  .tuple(fc.constantFrom('input', 'forward'), fc.constantFrom('accept', 'drop', 'log'), conditions)
  .map(([chain, action, extra]): RouterRecord => ({ chain, action, ...extra }));

/** Hosts on either side of the flows, and elsewhere: the LAN, the routed subnet, the internet, loopback. */
const HOSTS = ['192.168.88.10', '192.168.20.7', '10.1.2.3', '198.51.100.1', '127.0.0.1'].map((text) => parseIpv4(text) ?? 0);

/** One address matcher and a wider one: the same host's prefixes, the wider one shorter (or the matcher gone). */
const widening = fc
  .tuple(fc.constantFrom(...HOSTS), fc.constantFrom(8, 16, 24, 28, 31, 32), fc.constantFrom(8, 16, 24, 28, 31, 32), fc.boolean(), fc.boolean(), fc.constantFrom('src-address', 'dst-address'))
  .map(([host, a, b, negated, dropIt, key]) => {
    const prefix = (bits: number) => {
      const size = 2 ** (32 - bits);
      return `${formatIpv4(Math.floor(host / size) * size)}/${bits}`;
    };
    const [short, long] = [prefix(Math.min(a, b)), prefix(Math.max(a, b))];
    // Under `!` the longer prefix spares less, so it meets more.
    const narrow = negated ? `!${short}` : long;
    const wide = dropIt ? undefined : negated ? `!${long}` : short;
    return { key, narrow, wide };
  });

/**
 * The same rule with the narrow and the wide value of `key` (or without it, `wide` undefined), each placed at `at` among
 * the defaults and `others`: the rule sets to compare (`rule`'s own `key`, if any, is replaced).
 */
function ruleSets(others: readonly RouterRecord[], at: number, rule: RouterRecord, key: string, narrow: string, wide: string | undefined): { narrower: RouterRecord[]; wider: RouterRecord[] } {
  const rest = [...DEFCONF, ...others];
  const where = at % (rest.length + 1);
  const place = (placed: RouterRecord) => [...rest.slice(0, where), placed, ...rest.slice(where)];
  const base = Object.fromEntries(Object.entries(rule).filter(([name]) => name !== key));
  return { narrower: place({ ...base, [key]: narrow }), wider: place({ ...base, ...(wide === undefined ? {} : { [key]: wide }) }) };
}

describe('a drop that meets more packets', () => {
  it('never blocks less: a flow the wider drop lets through, the narrower one lets through too', () => {
    fc.assert(
      fc.property(
        fc.array(otherRule, { maxLength: 4 }),
        fc.nat(),
        fc.tuple(fc.constantFrom('input', 'forward'), conditions),
        widening,
        generatedLists,
        (others, at, [chain, extra], { key, narrow, wide }, lists) => {
          const { narrower, wider } = ruleSets(others, at, { chain, action: 'drop', ...extra }, key, narrow, wide);
          for (const [flowChain, flow] of flowsWith(lists)) {
            if (evaluateChain(wider, flowChain, flow).passes) expect(evaluateChain(narrower, flowChain, flow).passes).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('an accept that meets more packets', () => {
  it('never lets less through: a flow the narrower accept lets through, the wider one lets through too', () => {
    fc.assert(
      fc.property(
        fc.array(otherRule, { maxLength: 4 }),
        fc.nat(),
        fc.tuple(fc.constantFrom('input', 'forward'), conditions),
        widening,
        // A condition that names a flow, as the accepts that count have.
        fc.constantFrom<Record<string, string>>({}, { protocol: 'udp', 'dst-port': '13231' }, { 'in-interface': 'wg0' }, { 'out-interface': 'wg0' }),
        generatedLists,
        (others, at, [chain, extra], { key, narrow, wide }, names, lists) => {
          // Without its address, an accept may be left with nothing that names the flow, which the audit does not
          // take in good faith: only widened addresses are compared.
          if (wide === undefined) return;
          const { narrower, wider } = ruleSets(others, at, { chain, action: 'accept', ...extra, ...names }, key, narrow, wide);
          for (const [flowChain, flow] of flowsWith(lists)) {
            if (evaluateChain(narrower, flowChain, flow).passes) expect(evaluateChain(wider, flowChain, flow).passes).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('a list that holds more members', () => {
  /** A rule of the list, positive (it meets more packets with more members) or negated (fewer). */
  // Often bare: most other conditions exclude the flow, or make a drop of part of it policy, and the list never shows.
  const listRule = fc.tuple(fc.constantFrom('input', 'forward'), fc.oneof(fc.constant({}), conditions), fc.constantFrom('in-interface-list', 'out-interface-list'), fc.boolean());
  /**
   * The generated lists, and a list only the rule names (other rules name the others, either way) with members and
   * with one more.
   */
  const GROWN = 'GROWN';
  const grown = fc
    .tuple(generatedLists, fc.subarray(['wg0', 'bridge', 'ether2', 'ether1']), fc.constantFrom('wg0', 'bridge', 'ether2', 'ether1'))
    .map(([lists, members, member]) => {
      const smaller = new Map(lists ?? []);
      smaller.set(GROWN, new Set(members.filter((other) => other !== member)));
      const larger = new Map(lists ?? []);
      larger.set(GROWN, new Set([...members, member]));
      return { smaller: smaller as InterfaceLists, larger: larger as InterfaceLists };
    });

  it('meets more packets: as a drop it never blocks less, as an accept it never lets less through (under `!`, the other way)', () => {
    fc.assert(
      fc.property(fc.array(otherRule, { maxLength: 4 }), fc.nat(), listRule, grown, fc.constantFrom('drop', 'accept'), (others, at, [chain, extra, key, negated], { smaller, larger }, action) => {
        const rest = [...DEFCONF, ...others];
        const where = at % (rest.length + 1);
        const rules = [...rest.slice(0, where), { chain, action, ...extra, [key]: negated ? `!${GROWN}` : GROWN }, ...rest.slice(where)];
        // The list meeting more packets, and the one meeting fewer.
        const [more, fewer] = negated ? [smaller, larger] : [larger, smaller];
        for (const [flowChain, flow] of FLOWS) {
          const wide = evaluateChain(rules, flowChain, { ...flow, lists: more }).passes;
          const narrow = evaluateChain(rules, flowChain, { ...flow, lists: fewer }).passes;
          if (action === 'drop' && wide) expect(narrow).toBe(true);
          if (action === 'accept' && narrow) expect(wide).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
