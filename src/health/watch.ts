/**
 * Logs verdict changes as collections land: after each recorded run, the parts of the router that run can
 * change are evaluated again and their states compared with the last ones (changes.ts). A system or ping run
 * does not re-judge 1,000 peers; peers are judged after a wireguard (or set-up) run, and after any run once the
 * first healthy peer is due to go stale by the clock alone, so a silent tunnel is still reported on time.
 * One pino child per router; lines carry an `event` field.
 */
import type { Logger } from 'pino';
import type { CollectorName, Config, RouterConfig } from '../config/types.js';
import type { SnapshotStore } from '../metrics/store.js';
import { byCollector } from '../collectors/descriptors.js';
import type { JobSnapshot } from '../metrics/store.js';
import { finishInSlices, startInSlices, type Steps } from '../util/slices.js';
import { diff, diffPeersSteps, observe, type BadPeers, type Observed } from './changes.js';
import { evaluateRouterSteps, handshakeExpectedByMs, type EvaluationParts } from './evaluate.js';
import type { PeerJudgement } from './types.js';

export interface WatchDeps {
  store: Pick<SnapshotStore, 'subscribe' | 'snapshots'>;
  /** The current config (it changes on reload). */
  config: () => Config;
  logger: Logger;
  now?: () => number;
}

interface Watched {
  states: Observed | undefined;
  badPeers: BadPeers | undefined;
  logger: Logger | undefined;
  /** Unix ms at which the first peer judged healthy turns stale unless a collection says otherwise. */
  peersDueAt: number;
  /** Runs still being judged in slices, in the order they landed (undefined when none). */
  queue: Promise<void> | undefined;
}

export interface VerdictWatch {
  /** Stops watching; a run still being judged logs nothing. */
  stop(): void;
  /** Resolves once every run recorded so far is judged and its changes logged. */
  settled(): Promise<void>;
}

/** The parts a run of each collector can change, from its catalog descriptor. */
const PARTS_OF: Readonly<Record<CollectorName, EvaluationParts>> = byCollector(({ healthParts }) => ({
  wireguard: healthParts.includes('wireguard'),
  setup: healthParts.includes('setup'),
  pings: healthParts.includes('pings'),
}));

/**
 * Starts logging verdict changes. A run is judged in the turn it lands while that fits in one slice (most
 * routers); a larger router's verdicts are judged in slices (util/slices.ts), its later runs queued behind, so
 * the lines keep the order of the runs: 75,000 peers took 0.2 s of blocked event loop after every wireguard run.
 */
export function watchVerdicts(deps: WatchDeps): VerdictWatch {
  const now = deps.now ?? Date.now;
  const watched = new Map<string, Watched>();
  const stopped = new AbortController();
  // By name, made again when the config is replaced (a reload): a run lands ~4,000 times a cycle at 2,000
  // routers, and a search of the list for each was quadratic in the fleet.
  let indexed: Config | undefined;
  let byName = new Map<string, RouterConfig>();
  const routerNamed = (name: string): RouterConfig | undefined => {
    const config = deps.config();
    if (config !== indexed) {
      indexed = config;
      byName = new Map(config.routers.map((router) => [router.name, router]));
    }
    return byName.get(name);
  };

  /** The run that landed at `at`, judged from the snapshots as they were then, and its changes logged. */
  function* judge(name: string, router: RouterConfig, entry: Watched, collector: CollectorName, at: number, snapshots: JobSnapshot[]): Steps<void> {
    const parts = at >= entry.peersDueAt ? { ...PARTS_OF[collector], wireguard: true } : PARTS_OF[collector];
    const evaluation = yield* evaluateRouterSteps(router, snapshots, at, parts, { peerHealth: false });
    const { lines, next } = diff(entry.states, observe(evaluation, router), evaluation.seen);
    const peers = yield* diffPeersSteps(entry.badPeers, evaluation.judgements, evaluation.seen.wireguard, name);
    // Nothing is kept or logged of a run judged after the watch stopped: it stops at a pause, before this.
    if (parts.wireguard) entry.peersDueAt = firstDue(evaluation.judgements, at);
    entry.states = next;
    entry.badPeers = peers.next;
    lines.push(...peers.lines);
    if (lines.length === 0) return;
    entry.logger ??= deps.logger.child({ router: name, component: 'health' });
    for (const line of lines) entry.logger[line.level](line.fields, line.message);
  }

  const queued = (entry: Watched, name: string, work: () => Promise<void>): void => {
    const tail = (entry.queue ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => {
        if (!stopped.signal.aborted) deps.logger.error({ err: error, router: name, component: 'health' }, 'judging a run for the verdict log failed');
      })
      .finally(() => {
        if (entry.queue === tail) entry.queue = undefined;
      });
    entry.queue = tail;
  };

  const unsubscribe = deps.store.subscribe((name, collector) => {
    const router = routerNamed(name);
    if (router === undefined) {
      watched.delete(name);
      return;
    }
    let entry = watched.get(name);
    if (entry === undefined) {
      entry = { states: undefined, badPeers: undefined, logger: undefined, peersDueAt: Number.POSITIVE_INFINITY, queue: undefined };
      watched.set(name, entry);
    }
    const at = now();
    const snapshots = deps.store.snapshots(name);
    const current = entry;
    if (current.queue !== undefined) {
      // Behind a run still being judged: its verdicts decide what this one changes.
      queued(current, name, () => finishInSlices(judge(name, router, current, collector, at, snapshots), { signal: stopped.signal }));
      return;
    }
    const started = startInSlices(judge(name, router, current, collector, at, snapshots), { signal: stopped.signal });
    if (!started.done) queued(current, name, () => started.rest);
  });

  return {
    stop: () => {
      stopped.abort();
      unsubscribe();
    },
    settled: async () => {
      for (;;) {
        const pending = [...watched.values()].flatMap((entry) => (entry.queue === undefined ? [] : [entry.queue]));
        if (pending.length === 0) return;
        await Promise.all(pending);
      }
    },
  };
}

/**
 * When the first healthy peer expected up passes its bound by the clock (never: +Infinity). Peers nothing is
 * expected of only turn idle by the clock, which is no news.
 */
function firstDue(judgements: readonly PeerJudgement[], at: number): number {
  let due = Number.POSITIVE_INFINITY;
  for (const judgement of judgements) {
    if (judgement.verdict.reason !== 'ok') continue;
    const by = handshakeExpectedByMs(judgement);
    // Down means older than the bound: one second past it.
    if (by !== undefined && Number.isFinite(by)) due = Math.min(due, Math.max(at, by + 1000));
  }
  return due;
}
