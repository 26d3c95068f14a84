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
import { evaluateChain, type Flow } from '../../src/analysis/firewall.js';
import { formatIpv4, parseIpv4, parseIpv4Match } from '../../src/analysis/ipv4.js';
import type { RouterRecord } from '../../src/routeros/records.js';

const SUBNET = parseIpv4Match('192.168.20.0/24') ?? { lo: 0, hi: 0 };
const LOOPBACK = parseIpv4Match('127.0.0.0/8') ?? { lo: 0, hi: 0 };
const LAN = parseIpv4Match('192.168.88.0/24') ?? { lo: 0, hi: 0 };
const FLOWS: readonly [string, Flow][] = [
  ['input', { protocol: 'udp', dstPort: 13231, dst: { not: LOOPBACK }, inInterface: { not: 'wg0' }, toRouter: true }],
  ['forward', { src: { is: SUBNET }, dst: { not: SUBNET }, inInterface: { is: 'wg0' }, outInterface: { not: 'wg0' }, lanSide: true }],
  ['forward', { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true }],
  // Knowing what arrives on bridge (its network), as the audit does: a drop there of the sources it spares meets none.
  ['forward', { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true, arrivals: new Map([['bridge', [LAN]]]) }],
];

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
    'in-interface-list': fc.constantFrom('LAN', 'WAN', '!LAN'),
    'out-interface-list': fc.constantFrom('LAN', 'WAN', '!WAN'),
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
        (others, at, [chain, extra], { key, narrow, wide }) => {
          const { narrower, wider } = ruleSets(others, at, { chain, action: 'drop', ...extra }, key, narrow, wide);
          for (const [flowChain, flow] of FLOWS) {
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
        (others, at, [chain, extra], { key, narrow, wide }, names) => {
          // Without its address, an accept may be left with nothing that names the flow, which the audit does not
          // take in good faith: only widened addresses are compared.
          if (wide === undefined) return;
          const { narrower, wider } = ruleSets(others, at, { chain, action: 'accept', ...extra, ...names }, key, narrow, wide);
          for (const [flowChain, flow] of FLOWS) {
            if (evaluateChain(narrower, flowChain, flow).passes) expect(evaluateChain(wider, flowChain, flow).passes).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
