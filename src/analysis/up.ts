/**
 * The one routeros_up verdict, used by the store for /metrics and by /health: it follows the system collector
 * when that runs; a router without it is up when every job's last run succeeded, and down once one failed. Unknown
 * (undefined) until the deciding runs have happened: a job that has not run yet leaves it open rather than
 * counting as up.
 */
export interface RunState {
  readonly collector: string;
  /** The last run's outcome; undefined when the job has not run yet. */
  readonly ok: boolean | undefined;
}

export function routerUp(runs: readonly RunState[]): boolean | undefined {
  const system = runs.find((run) => run.collector === 'system');
  if (system !== undefined) return system.ok;
  // Without system, one failed run settles it, whatever has not run yet: every run must succeed. (It stayed
  // unknown until each job had run, so `check` never found such a router down before its deadline.)
  if (runs.some((run) => run.ok === false)) return false;
  if (runs.length === 0 || runs.some((run) => run.ok === undefined)) return undefined;
  return true;
}
