/** Ping verdicts: loss ≥ ping_loss_critical is critical, any smaller loss degraded; a run that failed is degraded. */
import type { RouterConfig } from '../config/types.js';
import type { JobSnapshot } from '../metrics/store.js';
import { dataOf, jobsOf } from '../collectors/catalog.js';
import { formatPercent, isoOrNull } from './format.js';
import type { PingHealth, Problem, Status } from './types.js';

type AddProblem = (problem: Omit<Problem, 'subject'> & { subject?: string }) => void;

export function evaluatePings(router: RouterConfig, byJob: ReadonlyMap<string, JobSnapshot>, add: AddProblem): PingHealth[] {
  if (!router.collectors.ping) return [];
  // The collector's own job definitions from the catalog, in config order, so job names never drift from what it records.
  const jobs = jobsOf('ping', router);
  return router.ping.map((target, i) => {
    const snapshot = byJob.get(jobs[i]?.job ?? '');
    const subject = target.name === target.target ? `ping ${target.name}` : `ping ${target.name} to ${target.target}`;
    const health: PingHealth = {
      target: target.target,
      name: target.name,
      lossRatio: null,
      rttSeconds: { min: null, avg: null, max: null },
      status: 'ok',
      lastRun: isoOrNull(snapshot?.finishedAt),
    };
    const flag = (status: Exclude<Status, 'ok'>, kind: Problem['kind'], text: string, brief: string): void => {
      health.status = status;
      add({ kind, status, subject, text, brief });
    };
    if (snapshot === undefined) {
      flag('degraded', 'not-collected', 'not run yet', '');
      return health;
    }
    if (!snapshot.ok) {
      health.error = snapshot.reason ?? 'error';
      const summary = snapshot.summary === undefined ? '' : `: ${snapshot.summary}`;
      flag('degraded', 'ping-failed', `could not run on the router (${health.error})${summary}`, health.error);
      return health;
    }
    const data = dataOf(snapshot, 'ping');
    if (data === undefined) return health;
    health.lossRatio = data.lossRatio ?? null;
    health.rttSeconds = { min: data.rttSeconds.min ?? null, avg: data.rttSeconds.avg ?? null, max: data.rttSeconds.max ?? null };
    const loss = data.lossRatio;
    if (loss === undefined && data.lossUnreadable) {
      // Not "100 % loss": the reply did not say, and a made-up figure would page someone for nothing.
      flag('degraded', 'ping-failed', "the loss cannot be judged: the router's reply did not tell it readably", 'loss unreadable');
    } else if (loss === undefined) {
      flag('degraded', 'ping-failed', 'the router sent no packets', 'no packets sent');
    } else if (loss > 0) {
      const critical = loss >= router.health.pingLossCritical;
      const text = `${formatPercent(loss)} loss${critical ? ` (critical at ${formatPercent(router.health.pingLossCritical)})` : ''}`;
      flag(critical ? 'critical' : 'degraded', 'ping-loss', text, `${formatPercent(loss)} loss`);
    }
    return health;
  });
}
