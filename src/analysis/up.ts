/**
 * The one routeros_up verdict, used by the store for /metrics and by /health: it follows the system collector
 * when that runs. A router without it is down once a job's last run went unanswered or was refused (timeout,
 * connect, tls, auth: what system failing says too), up when every job has run and each was answered, even with
 * an error of its own (a ping target the router refuses with 400 is the ping's failure, reported as such, not the
 * router's: it made the router "down", fired RouterOSDown and silenced RouterOSCollectorFailing, found by review).
 * Unknown (undefined) until the deciding runs have happened: a job that has not run yet leaves it open rather
 * than counting as up.
 */
import type { ErrorReason } from '../routeros/errors.js';

export interface RunState {
  readonly collector: string;
  /** The last run's outcome; undefined when the job has not run yet. */
  readonly ok: boolean | undefined;
  /** Why the last run failed, when it did. */
  readonly reason?: ErrorReason | undefined;
}

/** Failures that say the router did not answer the exporter, or refused it whole. */
const UNREACHED: ReadonlySet<ErrorReason> = new Set<ErrorReason>(['timeout', 'connect', 'tls', 'auth']);

function unreached(run: RunState): boolean {
  // A failure without a reason is taken as the worst case, as before: down.
  return run.ok === false && (run.reason === undefined || UNREACHED.has(run.reason));
}

export function routerUp(runs: readonly RunState[]): boolean | undefined {
  const system = runs.find((run) => run.collector === 'system');
  if (system !== undefined) return system.ok;
  // Without system, one unanswered or refused run settles it, whatever has not run yet (it stayed unknown until
  // each job had run, so `check` never found such a router down before its deadline).
  if (runs.some(unreached)) return false;
  if (runs.length === 0 || runs.some((run) => run.ok === undefined)) return undefined;
  return true;
}
