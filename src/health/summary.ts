/** The one-line summary of a health evaluation, shared by /health (`summary`) and `check` (its first line). */
import { counted } from './format.js';
import type { Problem, ProblemKind, RouterEvaluation } from './types.js';

const GROUPS: readonly { kind: ProblemKind; singular: string; plural: string }[] = [
  { kind: 'router-down', singular: 'router down', plural: 'routers down' },
  { kind: 'interface-down', singular: 'interface not running', plural: 'interfaces not running' },
  { kind: 'peer-stale', singular: 'stale peer', plural: 'stale peers' },
  { kind: 'peer-never', singular: 'peer never connected', plural: 'peers never connected' },
  { kind: 'ping-loss', singular: 'ping target losing packets', plural: 'ping targets losing packets' },
  { kind: 'peer-probe-loss', singular: 'tunnel losing probe pings', plural: 'tunnels losing probe pings' },
  { kind: 'ping-failed', singular: 'ping not answering', plural: 'pings not answering' },
  { kind: 'collector-failed', singular: 'collector failing', plural: 'collectors failing' },
  { kind: 'peer-unjudged', singular: 'router with peers it cannot judge', plural: 'routers with peers they cannot judge' },
  { kind: 'interface-unjudged', singular: 'interface that cannot be judged', plural: 'interfaces that cannot be judged' },
  { kind: 'setup-failed', singular: 'set-up check failing', plural: 'set-up checks failing' },
  { kind: 'not-collected', singular: 'not collected yet', plural: 'not collected yet' },
];

/** Items named per group before "and N more": a summary line must stay readable in a pager. */
const NAMED = 3;

export function summarize(evaluations: readonly RouterEvaluation[]): string {
  const problems = evaluations.flatMap((evaluation) => evaluation.problems);
  if (problems.length === 0) return okSummary(evaluations);
  const groups = GROUPS.map((group) => ({ ...group, items: problems.filter((problem) => problem.kind === group.kind) }))
    .filter((group) => group.items.length > 0)
    // Critical groups first; within a severity, the order above.
    .sort((a, b) => rank(b.items) - rank(a.items));
  return groups
    .map((group) => {
      const named = group.items.slice(0, NAMED).map(item).join(', ');
      const more = group.items.length > NAMED ? ` and ${group.items.length - NAMED} more` : '';
      const label = group.items.length === 1 ? group.singular : group.plural;
      return `${group.items.length} ${label}: ${named}${more}`;
    })
    .join('; ');
}

function rank(items: readonly Problem[]): number {
  return items.some((problem) => problem.status === 'critical') ? 1 : 0;
}

function item(problem: Problem): string {
  return problem.brief === '' ? problem.subject : `${problem.subject} (${problem.brief})`;
}

function okSummary(evaluations: readonly RouterEvaluation[]): string {
  if (evaluations.length === 0) return 'no routers configured';
  const routers = evaluations.map((evaluation) => evaluation.health);
  const interfaces = routers.flatMap((router) => router.interfaces).filter((iface) => !iface.disabled).length;
  const peers = routers.flatMap((router) => router.peers);
  const judged = peers.filter((peer) => peer.judged).length;
  const pings = routers.flatMap((router) => router.pings).length;
  const parts = [
    `${counted(routers.length, 'router')} up`,
    `${counted(interfaces, 'interface')} running`,
    `${counted(judged, 'peer')} healthy${judged < peers.length ? ` (${peers.length - judged} not judged)` : ''}`,
  ];
  if (pings > 0) parts.push(`${counted(pings, 'ping target')} without loss`);
  return parts.join(', ');
}
