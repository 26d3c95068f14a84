/**
 * The one routeros_up verdict, used by the store for /metrics and by /health: it follows the system collector
 * when that runs. A router without it is up once a job has succeeded, unless a failure that says the router does
 * not answer (ROUTER_SILENT) began after the newest success of any of its jobs; down when that is so, or when every
 * job's last run failed. Unknown (undefined) until one of those is known: a job that has not run yet leaves it
 * open rather than counting as up.
 */
import type { ErrorReason } from '../routeros/errors.js';

export interface RunState {
  readonly collector: string;
  /** The last run's outcome; undefined when the job has not run yet. */
  readonly ok: boolean | undefined;
  /** Why the last run failed. */
  readonly reason?: ErrorReason | undefined;
  /** When the last run finished (ms since the epoch). */
  readonly finishedAt?: number | undefined;
  /** When the job's current streak of failures began: its first failed run since its last success. */
  readonly failingSince?: number | undefined;
}

/**
 * Failures that say the router does not answer, whatever the job asked: no connection, no TLS, no reply in time,
 * an error status for the request as a whole, or a redirect away from its REST API. A refusal (`auth`: a missing
 * policy looks like a wrong password), a bad request (a ping target refused with 400), a path this version lacks
 * or a reply that is not data are one job's: the router answered, and RouterOSCollectorFailing says which job.
 * A failure of those kinds on every job still makes the router down (a wrong password, a proxy's page).
 */
const ROUTER_SILENT: ReadonlySet<ErrorReason> = new Set<ErrorReason>(['timeout', 'connect', 'tls', 'http_5xx', 'redirect']);

export interface UpVerdict<R extends RunState> {
  readonly up: boolean | undefined;
  /** The run that settles a down verdict (the one to tell the user about); undefined otherwise. */
  readonly failed?: R | undefined;
}

export function upVerdict<R extends RunState>(runs: readonly R[]): UpVerdict<R> {
  const system = runs.find((run) => run.collector === 'system');
  if (system !== undefined) return { up: system.ok, failed: system.ok === false ? system : undefined };
  let newestSuccess: number | undefined;
  for (const run of runs) {
    if (run.ok === true && run.finishedAt !== undefined && (newestSuccess === undefined || run.finishedAt > newestSuccess)) {
      newestSuccess = run.finishedAt;
    }
  }
  // A silent router's failure counts once no job has succeeded since its streak began: a job that times out
  // cycle after cycle while the others succeed in between (a reply too large for its timeout) leaves the router
  // up, steadily, and a router that goes silent is down at its first such failure, however long ago its rarest
  // job last succeeded. (Without the streak, comparing with the failure's own time, the two jobs of one tick
  // turned it down and up again every cycle.)
  let silent: R | undefined;
  for (const run of runs) {
    if (run.ok !== false || run.reason === undefined || !ROUTER_SILENT.has(run.reason)) continue;
    const since = run.failingSince ?? run.finishedAt;
    if (newestSuccess === undefined || (since !== undefined && since > newestSuccess)) {
      if (silent === undefined || (run.finishedAt ?? 0) > (silent.finishedAt ?? 0)) silent = run;
    }
  }
  if (silent !== undefined) return { up: false, failed: silent };
  if (newestSuccess !== undefined || runs.some((run) => run.ok === true)) return { up: true };
  if (runs.length > 0 && runs.every((run) => run.ok === false)) return { up: false, failed: runs[0] };
  return { up: undefined };
}

export function routerUp(runs: readonly RunState[]): boolean | undefined {
  return upVerdict(runs).up;
}

/** The run state of a job from its last stored outcome (a JobSnapshot), or of a job that has not run yet. */
export function runStateOf(
  collector: string,
  last: { readonly ok: boolean; readonly reason?: ErrorReason | undefined; readonly finishedAt: number; readonly failingSince?: number | undefined } | undefined,
): RunState {
  if (last === undefined) return { collector, ok: undefined };
  return { collector, ok: last.ok, reason: last.reason, finishedAt: last.finishedAt, failingSince: last.failingSince };
}
