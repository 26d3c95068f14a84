/**
 * A jump to a chain of one rule is that rule with the jump's matchers inlined: a router lets the same packets
 * through either way, so the audit's verdict must not tell them apart (found by review: `jump protocol=udp
 * dst-port=13231` to `accept src-address-list=wg-peers` failed firewall_input, with a fix offered, while the accept
 * inlined passed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateChain, type ChainVerdict, type Flow } from '../../src/analysis/firewall.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { ARRIVALS, generatedLists, listMatcher, withLists } from './interface-lists.js';

const SUBNET = { lo: 192 * 2 ** 24 + 168 * 2 ** 16 + 20 * 2 ** 8, hi: 192 * 2 ** 24 + 168 * 2 ** 16 + 20 * 2 ** 8 + 255 };
const LAN = { lo: 192 * 2 ** 24 + 168 * 2 ** 16 + 88 * 2 ** 8, hi: 192 * 2 ** 24 + 168 * 2 ** 16 + 88 * 2 ** 8 + 255 };
const FLOWS: readonly Flow[] = [
  { protocol: 'udp', dstPort: 13231, inInterface: { not: 'wg0' }, toRouter: true },
  { src: { is: SUBNET }, dst: { not: SUBNET }, inInterface: { is: 'wg0' }, outInterface: { not: 'wg0' }, lanSide: true },
  { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true },
  // The same, knowing what arrives on bridge: an anti-spoofing pair split over a jump and its target reads as inlined.
  { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true, arrivals: new Map([['bridge', [LAN]]]) },
  // Knowing what arrives on bridge, ether2 and the WAN: a pair over a list (with generated members) reads as inlined.
  { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true, arrivals: ARRIVALS },
];

/** Every kind of matcher the audit reads differently: naming the flow, general, unknown, action-dependent. */
const matchers = fc.record(
  {
    protocol: fc.constantFrom('udp', 'tcp', '!udp', '17'),
    'dst-port': fc.constantFrom('13231', '80', '13000-14000', '!13231', 'https'),
    'src-port': fc.constantFrom('1000', '!1000'),
    port: fc.constantFrom('13231', '445'),
    'src-address': fc.constantFrom('192.168.20.0/24', '192.168.20.5', '!192.168.20.0/24', '10.0.0.0/8', '0.0.0.0/0', '127.0.0.1', '!192.168.88.0/24', '192.168.88.0/24'),
    'dst-address': fc.constantFrom('192.168.20.0/24', '192.168.88.10', '!192.168.88.10', '192.168.0.0/16'),
    'in-interface': fc.constantFrom('wg0', 'ether1', '!wg0', 'bridge'),
    'out-interface': fc.constantFrom('wg0', '!wg0'),
    'in-interface-list': listMatcher,
    'out-interface-list': listMatcher,
    'connection-nat-state': fc.constantFrom('dstnat', '!dstnat'),
    'src-address-list': fc.constantFrom('wg-peers', 'bogons', '!trusted'),
    'dst-address-list': fc.constantFrom('not_in_internet', '!allowed'),
    'connection-state': fc.constantFrom('new', 'established,related', '!established,related', 'invalid'),
    'dst-address-type': fc.constantFrom('local', 'unicast', '!local'),
    limit: fc.constant('10,5:packet'),
  },
  { requiredKeys: [] },
);

/** Who decided: the rule (inlined, or the split's jump and target standing for it), the rule after it, or policy. */
function decider(verdict: ChainVerdict, rule: readonly RouterRecord[], tail: RouterRecord | undefined): string {
  const by = verdict.passes ? verdict.acceptedBy : verdict.blockedBy;
  if (by === undefined) return 'policy';
  if (rule.includes(by)) return 'rule';
  return by === tail ? 'tail' : 'other';
}

/** Anti-spoofing pairs and what may stand beside them, for the flow that knows what arrives on bridge. */
const arrivalMatchers = fc.record(
  {
    'in-interface': fc.constantFrom('bridge', 'wg0', '!wg0', 'ether1', 'ether2'),
    'src-address': fc.constantFrom('!192.168.88.0/24', '!192.168.88.0/25', '!192.168.0.0/16', '192.168.88.0/24', '10.0.0.0/8', '192.168.88.7', '192.168.99.0/24'),
    'out-interface': fc.constantFrom('wg0', '!wg0'),
    protocol: fc.constantFrom('udp', 'tcp'),
    'in-interface-list': listMatcher,
  },
  { requiredKeys: [] },
);

describe('a jump to a one-rule chain', () => {
  it("gives the verdict of the rule with the jump's matchers inlined, for any rule and any split of its matchers", () => {
    // The flows but the last (the pair's, below), each with generated lists: a flow more would double the time.
    inlinedAndSplitAgree(matchers, FLOWS.slice(0, -1), 3000);
  });

  it('reads an anti-spoofing pair the same whether split over the jump or not', () => {
    inlinedAndSplitAgree(arrivalMatchers, FLOWS.slice(-2), 1500);
  });
});

function inlinedAndSplitAgree(ruleMatchers: fc.Arbitrary<Record<string, string>>, flows: readonly Flow[], numRuns: number): void {
  fc.assert(
    fc.property(
      fc.constantFrom('accept', 'drop', 'reject', 'tarpit'),
      ruleMatchers,
      fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
      fc.constantFrom<'drop' | 'accept' | 'none'>('drop', 'accept', 'none'),
      generatedLists,
      (action, all, sides, after, lists) => {
        const jumpMatchers: Record<string, string> = {};
        const targetMatchers: Record<string, string> = {};
        Object.entries(all).forEach(([key, value], i) => {
          (sides[i] === true ? jumpMatchers : targetMatchers)[key] = value;
        });
        const tail: RouterRecord | undefined = after === 'none' ? undefined : { chain: 'input', action: after };
        const inlined: RouterRecord = { chain: 'input', action, ...all };
        const jump: RouterRecord = { chain: 'input', action: 'jump', 'jump-target': 'inner', ...jumpMatchers };
        const target: RouterRecord = { chain: 'inner', action, ...targetMatchers };
        const rest = tail === undefined ? [] : [tail];
        for (const flow of withLists(flows, lists)) {
          const one = evaluateChain([inlined, ...rest], 'input', flow);
          const split = evaluateChain([jump, target, ...rest], 'input', flow);
          expect({ passes: split.passes, by: decider(split, [target], tail) }).toEqual({ passes: one.passes, by: decider(one, [inlined], tail) });
          // A block inside the chain is fixed before the jump.
          if (!split.passes && split.blockedBy === target) expect(split.via).toBe(jump);
        }
      },
    ),
    { numRuns },
  );
}
