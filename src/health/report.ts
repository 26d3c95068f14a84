/** The whole health report: every configured router evaluated from the snapshot store at one instant. */
import type { RouterConfig } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import { finish, type Steps } from '../util/slices.js';
import { evaluateRouterSteps } from './evaluate.js';
import { summarize } from './summary.js';
import { worst, type HealthReport, type RouterEvaluation } from './types.js';

export interface Evaluated {
  report: HealthReport;
  evaluations: RouterEvaluation[];
}

/** The report in one go (evaluateRoutersSteps). */
export function evaluateRouters(routers: readonly RouterConfig[], store: Pick<SnapshotStore, 'snapshots'>, now: number): Evaluated {
  return finish(evaluateRoutersSteps(routers, store, now));
}

/** The report in steps that may pause between routers and every few hundred interfaces or peers of one. */
export function* evaluateRoutersSteps(routers: readonly RouterConfig[], store: Pick<SnapshotStore, 'snapshots'>, now: number): Steps<Evaluated> {
  const evaluations: RouterEvaluation[] = [];
  for (const router of routers) {
    evaluations.push(yield* evaluateRouterSteps(router, store.snapshots(router.name), now));
    yield;
  }
  const report: HealthReport = {
    status: worst(evaluations.map((evaluation) => evaluation.health.status)),
    checkedAt: new Date(now).toISOString(),
    summary: summarize(evaluations),
    routers: evaluations.map((evaluation) => evaluation.health),
  };
  return { report, evaluations };
}
