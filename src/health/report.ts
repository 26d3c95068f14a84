/** The whole health report: every configured router evaluated from the snapshot store at one instant. */
import type { RouterConfig } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import { finish, type Steps } from '../util/slices.js';
import { pausedUntil } from '../util/pauses.js';
import { evaluateRouterSteps } from './evaluate.js';
import { summarizeSteps } from './summary.js';
import { worst, type HealthReport, type RouterEvaluation } from './types.js';

export interface Evaluated {
  report: HealthReport;
  evaluations: RouterEvaluation[];
}

/** The report in one go (evaluateRoutersSteps). */
export function evaluateRouters(routers: readonly RouterConfig[], store: Pick<SnapshotStore, 'snapshots'>, now: number, elapsedNow?: number): Evaluated {
  return finish(evaluateRoutersSteps(routers, store, now, elapsedNow));
}

/**
 * The report in steps that may pause between routers and every few hundred interfaces or peers of one. `elapsedNow`:
 * the monotonic clock at `now`, by which peers age from their run; `paused`, the time the process did not run since
 * an instant of it (evaluate.ts EvaluationOptions).
 */
export function* evaluateRoutersSteps(
  routers: readonly RouterConfig[],
  store: Pick<SnapshotStore, 'snapshots'>,
  now: number,
  elapsedNow?: number,
  paused?: (since: number) => number,
): Steps<Evaluated> {
  // Every router's snapshots as they are now, before the first pause: a reload or a collection landing while the
  // report is judged must not make it mix instants (a router dropped meanwhile read as "not collected yet").
  const snapshots = routers.map((router) => store.snapshots(router.name));
  const evaluations: RouterEvaluation[] = [];
  // Pauses up to `now`: a report written in slices may outlast a later one.
  const options = elapsedNow === undefined ? {} : { elapsedNow, ...(paused === undefined ? {} : { paused: pausedUntil(paused, elapsedNow) }) };
  for (const [index, router] of routers.entries()) {
    evaluations.push(yield* evaluateRouterSteps(router, snapshots[index] ?? [], now, undefined, options));
    yield;
  }
  const report: HealthReport = {
    status: worst(evaluations.map((evaluation) => evaluation.health.status)),
    checkedAt: new Date(now).toISOString(),
    summary: yield* summarizeSteps(evaluations),
    routers: evaluations.map((evaluation) => evaluation.health),
  };
  return { report, evaluations };
}
