/**
 * What a job "is", for reloads: a job whose definition is unchanged keeps its runner (its run in flight,
 * trigger, backoff and memory); a changed one is replaced. The definition is the router's connection
 * settings plus the job's own settings, and nothing else, so editing one ping target, another router or a
 * top-level setting never disturbs the jobs it does not concern.
 */
import { createHash } from 'node:crypto';
import type { RouterConfig } from '../config/types.js';
import type { JobDefinition } from '../collectors/types.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { connectionSettings } from '../routeros/pool.js';
import { routerLabel } from '../metrics/family.js';

/** Jobs that run less often than this do not hold `/-/ready` back (a daily job would hold it for a day). */
export const READINESS_MAX_INTERVAL_SECONDS = 600;

/**
 * A digest of the job's definition (a digest, so it never holds a password itself). `typed`: the router is a
 * discovered target, whose name its series carry as typed, never scrubbed (metrics/family.ts routerLabel).
 */
export function jobFingerprint(router: RouterConfig, definition: JobDefinition, typed = false): string {
  const parts = [
    connectionSettings(router),
    definition.collector,
    definition.job,
    definition.schedule,
    definition.deadlineSeconds,
    // What the run reads besides schedule and connection: the collector states it on the job.
    definition.settings,
    // Every job writes the router's labels into its series: new labels mean new series, so a new runner.
    Object.entries(router.labels).sort(),
    // And as it writes them: redacted against the secrets the process knows, which a reload can change with the
    // labels untouched (a new password found inside one, even a refused file's). The store then started the router
    // afresh under the new text while its kept runners wrote the old one: routeros_up under one label set, the data
    // under another, still showing the value now a secret (found by review). As the series write it: a discovered
    // target's typed name is not scrubbed there, nor here (its jobs replaced when a password turned up in it would
    // tell which typed names hold one, found by review of that fix).
    routerLabel(router.name, router.labels, typed),
  ];
  return createHash('sha256').update(JSON.stringify(parts, sortedKeys)).digest('hex');
}

/**
 * JSON.stringify's replacer for a canonical form: every mapping's keys sorted, so settings written in another
 * key order (a reload that only reordered `health.expect`) keep the same fingerprint and the job keeps running.
 * Lists keep their order: where order means nothing (a set of types), the collector sorts its settings.
 */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Whether the job must have run once before the exporter calls itself ready: frequent jobs do; bandwidth
 * tests (costly, often hourly or daily) and anything scheduled less often than every 10 minutes do not.
 */
export function gatesReadiness(definition: JobDefinition): boolean {
  if (definition.waitsForSchedule === true) return false;
  try {
    return cronIntervalSeconds(definition.schedule) <= READINESS_MAX_INTERVAL_SECONDS;
  } catch {
    // Schedules are validated at load; an unreadable one cannot be waited for.
    return false;
  }
}
