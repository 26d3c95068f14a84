/**
 * The audit's firewall walk keeps each chain's verdict per chain and depth and reads every rule once. This
 * checks that against the plain reading of the rules on random rule sets (jumps between a few chains, loops
 * included, returns, disabled rules, matchers that cover, miss or meet part of the flow): a walk that
 * re-walks every jumped-to chain, each rule judged by the same module behind the jumps that led to it, as the
 * rule with their matchers inlined. Small sets, so the plain walk's exponential cost stays small.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateChain, type ChainVerdict, type Flow } from '../../src/analysis/firewall.js';
import type { RouterRecord } from '../../src/routeros/records.js';
import { formatIpv4 } from '../../src/analysis/ipv4.js';
import { generatedLists, listMatcher, withLists } from './interface-lists.js';

const FLOW: Flow = { protocol: 'udp', dstPort: 13231, inInterface: { not: 'wg0' } };
const CHAINS = ['input', 'a', 'b', 'c'];
const DEPTH = 16;

/**
 * The rules of `last` behind the jumps that led to them, as a probe the module judges alone: each jump of `stack` in
 * a chain of its own, jumping to the next, the last to `last`'s chain; `tail` after them in the probe chain.
 */
function probe(flow: Flow, stack: readonly RouterRecord[], last: readonly RouterRecord[], tail: readonly RouterRecord[] = []): boolean {
  const chainAt = (i: number) => (i === 0 ? 'probe' : `probe${i}`);
  const jumps = stack.map((jump, i): RouterRecord => ({ ...jump, chain: chainAt(i), action: 'jump', 'jump-target': chainAt(i + 1), disabled: 'false' }));
  const rules = last.map((rule): RouterRecord => ({ ...rule, chain: chainAt(stack.length), disabled: 'false' }));
  return evaluateChain([...jumps, ...rules, ...tail.map((rule) => ({ ...rule, chain: 'probe' }))], 'probe', flow).passes;
}

/**
 * How far one rule's matchers reach the flow, with those of the jumps that led to it (`stack`), asked of the
 * module with the rule alone behind those jumps: an accept covers or not, a block meets the flow or not. A jump
 * is `none` when nothing behind it could decide: no block there meets the flow, and no accept naming the flow
 * there covers it.
 */
function reach(flow: Flow, rule: RouterRecord, stack: readonly RouterRecord[]): 'none' | 'covers' | 'part' {
  const action = rule['action'] ?? 'accept';
  const drop: RouterRecord = { chain: 'probe', action: 'drop' };
  if (['drop', 'reject', 'tarpit'].includes(action)) return probe(flow, stack, [rule]) ? 'none' : 'part';
  if (action === 'accept') return probe(flow, stack, [rule], [drop]) ? 'covers' : 'part';
  const inner = [...stack, rule];
  if (!probe(flow, inner, [drop])) return 'part';
  return probe(flow, inner, [{ chain: 'probe', action: 'accept', protocol: 'udp', 'dst-port': '13231' }], [drop]) ? 'part' : 'none';
}

function enabled(rule: RouterRecord): boolean {
  return rule['disabled'] !== 'true' && rule['disabled'] !== 'yes';
}

/**
 * The rules as documented in src/analysis/firewall.ts, followed path by path: a rule behind jumps is judged as
 * the rule with the jumps' matchers inlined (`stack`).
 */
function plainWalk(flow: Flow, rules: readonly RouterRecord[], chain: string, depth: number, stack: readonly RouterRecord[] = []): ChainVerdict | undefined {
  if (depth >= DEPTH) return undefined;
  for (const rule of rules) {
    if (rule['chain'] !== chain || !enabled(rule)) continue;
    const action = rule['action'] ?? 'accept';
    if (action === 'return') {
      // A return is judged on its own: it hands back all of what reached it, or not.
      if (reach(flow, rule, []) === 'covers') return undefined;
    } else if (action === 'jump') {
      if (reach(flow, rule, stack) === 'none') continue;
      const target = rule['jump-target'] ?? '';
      const verdict = target === '' ? undefined : plainWalk(flow, rules, target, depth + 1, [...stack, rule]);
      if (verdict !== undefined) return verdict;
    } else if (action === 'accept') {
      if (reach(flow, rule, stack) === 'covers') return { passes: true, acceptedBy: rule };
    } else if (['drop', 'reject', 'tarpit'].includes(action)) {
      if (reach(flow, rule, stack) !== 'none') return { passes: false, blockedBy: rule };
    }
  }
  return undefined;
}

const matchers = fc.record(
  {
    protocol: fc.constantFrom('udp', 'tcp', '!udp', '17'),
    'dst-port': fc.constantFrom('13231', '80', '13000-14000', '!13231', 'https'),
    'src-port': fc.constantFrom('1000', '!1000'),
    'in-interface': fc.constantFrom('wg0', 'ether1', '!wg0'),
    'in-interface-list': listMatcher,
    'connection-nat-state': fc.constantFrom('dstnat', '!dstnat'),
    'src-address-list': fc.constantFrom('bogons', '!trusted'),
    'connection-state': fc.constantFrom('new', 'established,related', '!new', 'invalid'),
    disabled: fc.constantFrom('true', 'false', 'yes', ''),
  },
  { requiredKeys: [] },
);

const ruleArb = fc
  .tuple(fc.constantFrom(...CHAINS), fc.constantFrom('accept', 'drop', 'reject', 'jump', 'jump', 'jump', 'return', 'log', 'passthrough'), fc.constantFrom(...CHAINS, ''), matchers)
  .map(([chain, action, target, extra]): RouterRecord => ({ chain, action, ...(action === 'jump' ? { 'jump-target': target } : {}), ...extra }));

/** The forward flows of a routed subnet, both ways, beside the tunnel's own packets. */
const SUBNET = { lo: 192 * 2 ** 24 + 168 * 2 ** 16 + 20 * 2 ** 8, hi: 192 * 2 ** 24 + 168 * 2 ** 16 + 20 * 2 ** 8 + 255 };
const FLOWS: readonly Flow[] = [
  { ...FLOW, toRouter: true },
  { src: { is: SUBNET }, dst: { not: SUBNET }, inInterface: { is: 'wg0' }, outInterface: { not: 'wg0' }, lanSide: true },
  { dst: { is: SUBNET }, src: { not: SUBNET }, outInterface: { is: 'wg0' }, inInterface: { not: 'wg0' }, lanSide: true },
];

/** Sources no packet from a host has, written as a router may: "this network", loopback, multicast, broadcast. */
const neverSource = fc
  .tuple(fc.constantFrom([0, 8], [127 * 2 ** 24, 8], [224 * 2 ** 24, 4], [2 ** 32 - 1, 32]), fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 32 }))
  .map(([[network, bits], random, extra]) => {
    const size = 2 ** (32 - bits);
    const address = network + (random % size);
    return `${formatIpv4(address)}/${Math.max(bits, extra)}`;
  });
/**
 * A matcher no packet of the flows meets: a source no host has, nor a destination (the flows are unicast, and Linux
 * neither forwards nor takes in packets to "this network" or loopback), the loopback interface either way, no
 * address at all.
 */
const meetsNothing: fc.Arbitrary<Record<string, string>> = fc.oneof(
  neverSource.map((text) => ({ 'src-address': text })),
  neverSource.map((text) => ({ 'dst-address': text })),
  fc.constant({ 'in-interface': 'lo' }),
  fc.constant({ 'out-interface': 'lo' }),
  fc.constant({ 'src-address': '!0.0.0.0/0' }),
  fc.constant({ 'dst-address': '!0.0.0.0/0' }),
);

describe('rules no packet of the flows can meet', () => {
  it('change no verdict wherever they stand, whatever they do, and negated they narrow nothing', () => {
    // The rule it is added to often bare: a rule of other matchers is mostly excluded by one of them already.
    const bare = fc.constantFrom('accept', 'drop', 'reject', 'return').map((action): RouterRecord => ({ chain: 'input', action }));
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 8 }), fc.oneof(ruleArb, bare), meetsNothing, fc.nat(), generatedLists, (rules, base, never, at, lists) => {
        const where = at % (rules.length + 1);
        const withRule = [...rules.slice(0, where), { ...base, ...never }, ...rules.slice(where)];
        // `!` on such a source matches every packet: the rule as if it had no such matcher.
        const [key, source] = Object.entries(never)[0] ?? ['', undefined];
        const negated = !key.endsWith('-address') || source === undefined || source.startsWith('!') ? undefined : { ...base, [key]: `!${source}` };
        const withNegated = negated === undefined ? undefined : [...rules.slice(0, where), negated, ...rules.slice(where)];
        const withBase = [...rules.slice(0, where), base, ...rules.slice(where)];
        for (const flow of withLists(FLOWS, lists)) {
          expect(evaluateChain(withRule, 'input', flow)).toEqual(evaluateChain(rules, 'input', flow));
          if (withNegated === undefined) continue;
          // The same verdict, by the same rule (the negated one standing for the one without it).
          const asBase = (verdict: ChainVerdict): ChainVerdict => JSON.parse(JSON.stringify(verdict, (_key, value: unknown) => (value === negated ? base : value))) as ChainVerdict;
          expect(asBase(evaluateChain(withNegated, 'input', flow))).toEqual(asBase(evaluateChain(withBase, 'input', flow)));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

const DROP_INPUT: RouterRecord = { chain: 'input', action: 'drop' };
/** A rule of input that decides or returns, with a few matchers: the shapes where a condition's reading shows. */
const decisive = fc
  .tuple(fc.constantFrom('accept', 'accept', 'return', 'drop', 'jump'), matchers)
  .map(([action, extra]): RouterRecord => ({ chain: action === 'return' ? 'a' : 'input', action, ...(action === 'jump' ? { 'jump-target': 'a' } : {}), ...extra, disabled: 'false' }));

describe('a condition every packet meets', () => {
  it('changes no verdict, on any rule of any action: the rule is the rule without it (found by review)', () => {
    const everyAddress = fc.constantFrom<Record<string, string>>({ 'src-address': '0.0.0.0/0' }, { 'dst-address': '0.0.0.0-255.255.255.255' }, { 'src-address': '0.0.0.0/0', 'dst-address': '0.0.0.0/0' });
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 6 }), ruleArb, decisive, everyAddress, fc.nat(), generatedLists, (before, other, base, every, at, lists) => {
        // Input ending in a drop, with the rule somewhere before it: where an accept or a return decides most.
        const rules = [...before, other, DROP_INPUT];
        const where = at % rules.length;
        const widened = { ...base, ...every };
        const withWidened = [...rules.slice(0, where), widened, ...rules.slice(where)];
        const withBase = [...rules.slice(0, where), base, ...rules.slice(where)];
        const asBase = (verdict: ChainVerdict): ChainVerdict => JSON.parse(JSON.stringify(verdict, (_key, value: unknown) => (value === widened ? base : value))) as ChainVerdict;
        for (const flow of withLists(FLOWS, lists)) expect(asBase(evaluateChain(withWidened, 'input', flow))).toEqual(asBase(evaluateChain(withBase, 'input', flow)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the audit firewall walk against the plain reading', () => {
  it('gives the same verdict and names the same rule on random rule sets with jumps and loops, lists of any members', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 9 }), generatedLists, (rules, lists) => {
        const [flow = FLOW] = withLists([FLOW], lists);
        const expected = plainWalk(flow, rules, 'input', 0) ?? { passes: true, acceptedBy: undefined };
        const actual = evaluateChain(rules, 'input', flow);
        expect(actual.passes).toBe(expected.passes);
        const decidedBy = (verdict: ChainVerdict) => (verdict.passes ? verdict.acceptedBy : verdict.blockedBy);
        expect(decidedBy(actual)).toBe(decidedBy(expected));
      }),
      { numRuns: 1000 },
    );
  });
});
