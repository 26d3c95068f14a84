/**
 * What a job "is", for reloads: a job whose definition is unchanged keeps its runner (its run in flight,
 * trigger, backoff and memory); a changed one is replaced. The definition is the router's connection
 * settings plus the job's own settings, and nothing else, so editing one ping target, another router or a
 * top-level setting never disturbs the jobs it does not concern.
 */
import { createHash } from 'node:crypto';
import type { HealthConfig, RouterConfig } from '../config/types.js';
import type { InterfaceFilter } from '../config/interfaces.js';
import type { JobDefinition } from '../collectors/types.js';
import { cronIntervalSeconds } from '../config/cron.js';
import { connectionSettings } from '../routeros/pool.js';

/** Jobs that run less often than this do not hold `/-/ready` back (a daily job would hold it for a day). */
export const READINESS_MAX_INTERVAL_SECONDS = 600;

function health(settings: HealthConfig): unknown[] {
  const pattern = settings.excludePeerPattern;
  return [
    settings.handshakeStaleAfterSeconds,
    settings.pingLossCritical,
    settings.excludePeers,
    pattern === undefined ? null : [pattern.source, pattern.flags],
    settings.expect ?? null,
    settings.probeTunnels === true,
  ];
}

function interfaceFilter(filter: InterfaceFilter): unknown[] {
  return [filter.includePattern?.source ?? null, filter.excludePattern?.source ?? null, filter.includeTypes ?? null, filter.excludeTypes, filter.includeDynamic];
}

/**
 * The job's own settings beyond its schedule. Targets are found by the job name their collector gives them;
 * when none matches (a collector renamed its jobs), the whole list counts, so a change replaces rather than
 * being missed.
 */
function ownSettings(router: RouterConfig, definition: JobDefinition): unknown {
  switch (definition.collector) {
    case 'system':
    case 'wireguard_setup':
    case 'health':
    case 'firmware':
      return null;
    case 'wireguard':
      // Peer verdicts are made inside the run, from the health settings.
      return health(router.health);
    case 'interface':
      // The run filters interfaces with `interfaces:`; patterns count by their text.
      return interfaceFilter(router.interfaces);
    case 'ping': {
      const target = router.ping.find((t) => definition.job === `ping:${t.name}:${t.target}`);
      return target ?? router.ping;
    }
    case 'bandwidth_test': {
      const list = router.bandwidthTest.map((test) => ({ ...test, password: test.password?.reveal() ?? null }));
      return list.find((test) => definition.job === `bandwidth_test:${test.name}:${test.target}`) ?? list;
    }
    default:
      // A collector this module does not know yet: everything but the name counts.
      return [router.schedules, router.collectors, health(router.health), router.ping, router.bandwidthTest, interfaceFilter(router.interfaces)];
  }
}

/** A digest of the job's definition (a digest, so it never holds a password itself). */
export function jobFingerprint(router: RouterConfig, definition: JobDefinition): string {
  const parts = [
    connectionSettings(router),
    definition.collector,
    definition.job,
    definition.schedule,
    definition.deadlineSeconds,
    ownSettings(router, definition),
    // Every job writes the router's labels into its series: new labels mean new series, so a new runner.
    Object.entries(router.labels).sort(),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * Whether the job must have run once before the exporter calls itself ready: frequent jobs do; bandwidth
 * tests (costly, often hourly or daily) and anything scheduled less often than every 10 minutes do not.
 */
export function gatesReadiness(definition: JobDefinition): boolean {
  if (definition.collector === 'bandwidth_test') return false;
  try {
    return cronIntervalSeconds(definition.schedule) <= READINESS_MAX_INTERVAL_SECONDS;
  } catch {
    // Schedules are validated at load; an unreadable one cannot be waited for.
    return false;
  }
}
