/**
 * Interface lists with generated members, for the firewall properties: each list known (its members drawn from the
 * tunnel, the LAN interfaces and the WAN) or not (left out: judged by its name, as without members), and the flows
 * of the audit with them.
 */
import fc from 'fast-check';
import type { Flow, InterfaceLists } from '../../src/analysis/firewall.js';
import { parseIpv4Match } from '../../src/analysis/ipv4.js';

/** defconf's names, one of another name and the same in lower case (a list of its own: names are case-sensitive). */
export const LIST_NAMES = ['LAN', 'WAN', 'TRUSTED', 'lan'] as const;
const MEMBERS = ['wg0', 'bridge', 'ether2', 'ether1'] as const;

/** Lists as the audit reads them, or undefined (their members could not be read). */
export const generatedLists: fc.Arbitrary<InterfaceLists | undefined> = fc.option(
  fc
    .record(Object.fromEntries(LIST_NAMES.map((name) => [name, fc.subarray([...MEMBERS])])) as Record<(typeof LIST_NAMES)[number], fc.Arbitrary<string[]>>, { requiredKeys: [] })
    .map((lists): InterfaceLists => new Map(Object.entries(lists).map(([name, members]) => [name, new Set(members)]))),
  { freq: 4 },
);

/** A list matcher's values: the lists above, negated or not. */
export const listMatcher = fc.constantFrom(...LIST_NAMES, ...LIST_NAMES.map((name) => `!${name}`));

const range = (text: string) => parseIpv4Match(text) ?? { lo: 0, hi: 0 };
/** What arrives on each interface the audit looks up: bridge's and ether2's networks; the WAN reaches everything. */
export const ARRIVALS: ReadonlyMap<string, readonly { lo: number; hi: number }[]> = new Map([
  ['bridge', [range('192.168.88.0/24')]],
  ['ether2', [range('192.168.99.0/24')]],
  ['ether1', [range('0.0.0.0/0')]],
]);

/** The flows with the lists, when known. */
export function withLists<T extends Flow>(flows: readonly T[], lists: InterfaceLists | undefined): T[] {
  return lists === undefined ? [...flows] : flows.map((flow) => ({ ...flow, lists }));
}
