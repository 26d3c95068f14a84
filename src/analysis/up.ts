/**
 * The one routeros_up verdict, used by the store for /metrics and by /health: it follows the system collector
 * when that runs. A router without it is up once one of its jobs has succeeded, unless a job's failures that say
 * the router does not answer (saysSilent) began after the newest success of any of its jobs; down when that is
 * so, or when no job has succeeded and one has failed. Unknown (undefined) until a job has run. Runs are ordered
 * by when the store recorded them, never by the wall clock, which may step back.
 */
import type { ErrorReason, RouterOsErrorCode } from '../routeros/errors.js';

export interface RunState {
  readonly collector: string;
  /** The last run's outcome; undefined when the job has not run yet. */
  readonly ok: boolean | undefined;
  /** The last run's place in the order runs finished. */
  readonly seq?: number | undefined;
  /**
   * For a last run that failed saying the router does not answer: where the first such failure in a row started,
   * in `seq` terms (the `seq` of the last run recorded before it started).
   */
  readonly silentSince?: number | undefined;
}

/**
 * Failures that say the router does not answer us, whatever the job asked: no connection, no TLS, no reply in
 * time, a redirect away from its REST API, an error status for the request as a whole, or a refusal of the
 * credentials themselves (401: every request of the router fails alike). A refusal for a missing policy, a bad
 * request (a ping target refused with 400), a path this version lacks or a reply that is not data are one job's:
 * the router answered, and RouterOSCollectorFailing says which job. Without a code (a failure not of the
 * transport), the reason decides, `auth` then counting as one job's: it covers a missing policy too.
 */
const SILENT_CODES: ReadonlySet<RouterOsErrorCode> = new Set<RouterOsErrorCode>([
  'ROS_ERR_TIMEOUT',
  'ROS_ERR_ABORTED',
  'ROS_ERR_CONNECT',
  'ROS_ERR_DNS',
  'ROS_ERR_TLS',
  'ROS_ERR_AUTH',
  'ROS_ERR_REDIRECT',
  'ROS_ERR_HTTP_5XX',
]);
const SILENT_REASONS: ReadonlySet<ErrorReason> = new Set<ErrorReason>(['timeout', 'connect', 'tls', 'http_5xx', 'redirect']);

/** Whether a failed run says the router does not answer (SILENT_CODES). */
export function saysSilent(code: RouterOsErrorCode | undefined, reason: ErrorReason): boolean {
  return code !== undefined ? SILENT_CODES.has(code) : SILENT_REASONS.has(reason);
}

export interface UpVerdict<R extends RunState> {
  readonly up: boolean | undefined;
  /** The run that settles a down verdict (the one to tell the user about); undefined otherwise. */
  readonly failed?: R | undefined;
}

export function upVerdict<R extends RunState>(runs: readonly R[]): UpVerdict<R> {
  const system = runs.find((run) => run.collector === 'system');
  if (system !== undefined) return { up: system.ok, failed: system.ok === false ? system : undefined };
  let newestSuccess = -Infinity;
  let succeeded = false;
  for (const run of runs) {
    if (run.ok !== true) continue;
    succeeded = true;
    newestSuccess = Math.max(newestSuccess, run.seq ?? -Infinity);
  }
  // A job's silent failures count once no job has succeeded since the first of them started: a job that times out
  // cycle after cycle while the others succeed in between or beside it (a reply too large for its timeout) leaves
  // the router up, steadily, even in one look (check), and a router that goes silent is down at the first such
  // failure of a run started after its last success, however long ago its rarest job last succeeded. (Compared
  // with each failure's own place instead, the jobs of one tick turned it down and up again every cycle, and a
  // slow job beside answering ones read down in `check`; found by review.)
  let silent: R | undefined;
  for (const run of runs) {
    if (run.ok !== false || run.silentSince === undefined || newestSuccess > run.silentSince) continue;
    if (silent === undefined || (run.seq ?? 0) > (silent.seq ?? 0)) silent = run;
  }
  if (silent !== undefined) return { up: false, failed: silent };
  if (succeeded) return { up: true };
  // Nothing succeeded, and what ran failed: down, whatever has not run yet (a daily bandwidth test must not hold a
  // router whose every job is refused at unknown; found by review).
  const failed = runs.find((run) => run.ok === false);
  return failed !== undefined ? { up: false, failed } : { up: undefined };
}

export function routerUp(runs: readonly RunState[]): boolean | undefined {
  return upVerdict(runs).up;
}

/** The run state of a job from its last stored outcome (a JobSnapshot), or of a job that has not run yet. */
export function runStateOf(
  collector: string,
  last: { readonly ok: boolean; readonly seq?: number | undefined; readonly silentSince?: number | undefined } | undefined,
): RunState {
  if (last === undefined) return { collector, ok: undefined };
  return { collector, ok: last.ok, seq: last.seq, silentSince: last.silentSince };
}
