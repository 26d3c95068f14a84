/**
 * The one routeros_up verdict, used by the store for /metrics and by /health: it follows the system collector
 * when that runs; a router without it is up when every job's last run succeeded. Unknown (undefined) until the
 * deciding runs have happened: a job that has not run yet leaves it open rather than counting as up.
 */
export interface RunState {
  readonly collector: string;
  /** The last run's outcome; undefined when the job has not run yet. */
  readonly ok: boolean | undefined;
}

export function routerUp(runs: readonly RunState[]): boolean | undefined {
  const system = runs.find((run) => run.collector === 'system');
  if (system !== undefined) return system.ok;
  if (runs.length === 0 || runs.some((run) => run.ok === undefined)) return undefined;
  return runs.every((run) => run.ok === true);
}
