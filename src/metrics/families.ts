/**
 * Every per-router metric family the exporter serves, in exposition order: the exporter's own families about
 * each router (up, collector runs) first, then each collector's, declared beside it (src/collectors/*.contract.ts)
 * and laid out in catalog order. HELP names the RouterOS path and property a value comes from.
 */
import { COLLECTOR_DESCRIPTORS } from '../collectors/descriptors.js';
import { defineFamily, type Family } from './family.js';

export type { Family, FamilyType } from './family.js';

/** The exporter's own per-router families. */
export const F = {
  up: defineFamily('routeros_up', 'gauge', [], '1 if the last collection of system/resource from the router succeeded (without the system collector: 1 once a job has succeeded, 0 while a job\'s unbroken run of failures that say the router does not answer — timeout, connect, tls, 5xx, redirect, credentials refused — started after every job\'s last success, or while none has succeeded and one has failed).'),
  collectorSuccess: defineFamily('routeros_collector_success', 'gauge', ['collector'], "1 if the collector's last run succeeded (for ping and bandwidth_test: every target's last run, of the targets run so far)."),
  collectorDuration: defineFamily('routeros_collector_duration_seconds', 'gauge', ['collector'], "How long the collector's last run took."),
  collectorLastSuccess: defineFamily('routeros_collector_last_success_timestamp_seconds', 'gauge', ['collector'], 'Unix time of the last successful run of the collector (for several targets: the oldest of their last successes, of the targets run so far).'),
  collectorErrors: defineFamily('routeros_collector_errors_total', 'counter', ['collector', 'reason'], 'Failed collector runs by reason, since the exporter started or the collector was last turned on for the router or the router\'s url changed; a reason has a series from its first failure on (no zeros).'),
  collectorDecodeErrors: defineFamily('routeros_collector_decode_errors_total', 'counter', ['collector'], 'Values from the router that did not decode or were out of range for their field (a negative counter, a load over 100 %, a handshake before 2015, a ping reply without sent/received), summed across runs since the exporter started or the collector was last turned on for the router or the router\'s url changed; their series were left out.'),
  collectorBackoff: defineFamily('routeros_collector_backoff_seconds', 'gauge', ['collector'], 'How long the collector waits before its next attempt after repeated failures (0 when not backing off).'),
} as const;

/**
 * Lays the families out and numbers them: in list order, except that a family naming another as `after` comes
 * right after it. A family listed twice, or after one that is not listed, is a programming error.
 */
function layOut(families: readonly Family[]): Family[] {
  const placed: Family[] = [];
  const followers = new Map<Family, Family[]>();
  for (const family of families) {
    if (family.after === undefined) continue;
    followers.set(family.after, [...(followers.get(family.after) ?? []), family]);
  }
  const place = (family: Family): void => {
    if (placed.includes(family)) throw new Error(`metric family ${family.name} is declared twice`);
    family.index = placed.length;
    placed.push(family);
    for (const follower of followers.get(family) ?? []) place(follower);
  };
  for (const family of families) if (family.after === undefined) place(family);
  const lost = families.find((family) => family.index === -1);
  if (lost !== undefined) throw new Error(`metric family ${lost.name} follows ${lost.after?.name ?? '?'}, which no collector declares`);
  return placed;
}

const OWN: readonly Family[] = Object.values(F);
const COLLECTED: readonly Family[] = COLLECTOR_DESCRIPTORS.flatMap((collector): readonly Family[] => collector.families);

export const FAMILIES: readonly Family[] = layOut([...OWN, ...COLLECTED]);

/**
 * Every label name a per-router family writes, with the first family that writes it (for config messages):
 * a router's `labels:` may not take one, or a series would carry the name twice. Derived from the families
 * themselves, so a new collector's labels are reserved the moment it declares them.
 */
export const EXPORTER_LABELS: ReadonlyMap<string, string> = reservedLabels();

function reservedLabels(): Map<string, string> {
  const labels = new Map([['router', 'every series']]);
  for (const family of FAMILIES) for (const label of family.labels) if (!labels.has(label)) labels.set(label, family.name);
  return labels;
}
