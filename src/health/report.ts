/** The whole health report: every configured router evaluated from the snapshot store at one instant. */
import type { RouterConfig } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import { evaluateRouter } from './evaluate.js';
import { summarize } from './summary.js';
import { worst, type HealthReport, type RouterEvaluation } from './types.js';

export interface Evaluated {
  report: HealthReport;
  evaluations: RouterEvaluation[];
}

export function evaluateRouters(routers: readonly RouterConfig[], store: Pick<SnapshotStore, 'snapshots'>, now: number): Evaluated {
  const evaluations = routers.map((router) => evaluateRouter(router, store.snapshots(router.name), now));
  const report: HealthReport = {
    status: worst(evaluations.map((evaluation) => evaluation.health.status)),
    checkedAt: new Date(now).toISOString(),
    summary: summarize(evaluations),
    routers: evaluations.map((evaluation) => evaluation.health),
  };
  return { report, evaluations };
}
