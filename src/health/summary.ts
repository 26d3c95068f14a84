/** The one-line summary of a health evaluation, shared by /health (`summary`) and `check` (its first line). */
import { finish, type Steps } from '../util/slices.js';
import { counted } from './format.js';
import type { Problem, ProblemKind, RouterEvaluation } from './types.js';

const GROUPS: readonly { kind: ProblemKind; singular: string; plural: string }[] = [
  { kind: 'router-down', singular: 'router down', plural: 'routers down' },
  { kind: 'interface-down', singular: 'interface not running', plural: 'interfaces not running' },
  { kind: 'peer-stale', singular: 'stale peer', plural: 'stale peers' },
  { kind: 'peer-never', singular: 'peer never connected', plural: 'peers never connected' },
  { kind: 'peer-blocked', singular: 'tunnel passing no traffic', plural: 'tunnels passing no traffic' },
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

/** Problems or items read between two pauses of the steps. */
const ITEMS_PER_STEP = 256;

/** The summary in one go (summarizeSteps). */
export function summarize(evaluations: readonly RouterEvaluation[]): string {
  return finish(summarizeSteps(evaluations));
}

/** The summary in steps that may pause every few hundred problems (a hub's report holds tens of thousands). */
export function* summarizeSteps(evaluations: readonly RouterEvaluation[]): Steps<string> {
  // One pass over the problems, by kind: a filter per group read 75,000 problems twelve times in one step.
  const byKind = new Map<ProblemKind, Problem[]>();
  let read = 0;
  for (const evaluation of evaluations) {
    for (const problem of evaluation.problems) {
      let items = byKind.get(problem.kind);
      if (items === undefined) {
        items = [];
        byKind.set(problem.kind, items);
      }
      items.push(problem);
      if (++read % ITEMS_PER_STEP === 0) yield;
    }
  }
  if (read === 0) return yield* okSummarySteps(evaluations);
  const groups = GROUPS.map((group) => ({ ...group, items: byKind.get(group.kind) ?? [] }))
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

function* okSummarySteps(evaluations: readonly RouterEvaluation[]): Steps<string> {
  if (evaluations.length === 0) return 'no routers configured';
  let interfaces = 0;
  let peers = 0;
  let judged = 0;
  let pings = 0;
  let read = 0;
  for (const { health } of evaluations) {
    for (const iface of health.interfaces) {
      if (!iface.disabled) interfaces++;
      if (++read % ITEMS_PER_STEP === 0) yield;
    }
    for (const peer of health.peers) {
      peers++;
      if (peer.judged) judged++;
      if (++read % ITEMS_PER_STEP === 0) yield;
    }
    pings += health.pings.length;
  }
  const parts = [
    `${counted(evaluations.length, 'router')} up`,
    `${counted(interfaces, 'interface')} running`,
    `${counted(judged, 'peer')} healthy${judged < peers ? ` (${peers - judged} not judged)` : ''}`,
  ];
  if (pings > 0) parts.push(`${counted(pings, 'ping target')} without loss`);
  return parts.join(', ');
}
