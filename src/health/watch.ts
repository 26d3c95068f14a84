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
import { finish, finishInSlicesLater, type Steps } from '../util/slices.js';
import { pausedUntil } from '../util/pauses.js';
import { dataOf } from '../collectors/catalog.js';
import { diffPeersSteps, diffSteps, observeSteps, RunLines, type BadPeers, type Observed } from './changes.js';
import { evaluateRouterSteps, handshakeExpectedByMs, steadyNow, type EvaluationParts } from './evaluate.js';
import type { PeerJudgement } from './types.js';

export interface WatchDeps {
  store: Pick<SnapshotStore, 'subscribe' | 'snapshots'>;
  /** The current config (it changes on reload). */
  config: () => Config;
  logger: Logger;
  now?: () => number;
  /** The monotonic clock runs record on: peers age by it from their run (evaluate.ts EvaluationOptions.elapsedNow). */
  elapsed?: () => number;
  /** The ms the process did not run since a monotonic instant (util/pauses.ts): not counted against the peers. */
  paused?: (since: number) => number;
}

interface Watched {
  states: Observed | undefined;
  badPeers: BadPeers | undefined;
  logger: Logger | undefined;
  /**
   * When the first peer judged healthy turns stale unless a collection says otherwise: on the monotonic clock when
   * the watch has it (as peers age: a wall clock stepped back an hour kept the log silent for the hour while /health
   * was critical; found by review), else Unix ms.
   */
  peersDueAt: number;
  /** A run being judged in slices, and the latest run landed since, waiting for it (undefined when none). */
  busy: Promise<void> | undefined;
  waiting: Landed | undefined;
  /** The router left the config: what is still being judged for it logs nothing. */
  gone: boolean;
}

/** A run as it landed: what it can change, when, and the router's snapshots then. */
interface Landed {
  parts: EvaluationParts;
  at: number;
  /** The monotonic clock at `at`, when the watch has it. */
  elapsedAt: number | undefined;
  snapshots: JobSnapshot[];
  router: RouterConfig;
}

export interface VerdictWatch {
  /**
   * The config was replaced (a reload, a discovered target made or forgotten): the states of routers it no longer
   * has are dropped now, not when another run happens to land (with none landing in between, a router removed
   * and added back came back with its old states).
   */
  reconfigured(): void;
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

/** A judgement with no part a run changes (a reload's): what the router's runs say as they stand. */
const NO_PARTS: EvaluationParts = { wireguard: false, setup: false, pings: false };

/** Whether a reload may have taken jobs of the router away: a collector turned off, fewer ping or bandwidth targets. */
function jobsMayBeFewer(before: RouterConfig, after: RouterConfig): boolean {
  for (const [collector, on] of Object.entries(before.collectors)) if (on && after.collectors[collector as CollectorName] !== true) return true;
  return after.ping.length < before.ping.length || after.bandwidthTest.length < before.bandwidthTest.length;
}

/**
 * Interfaces and peers up to which a router's run is judged in the turn it lands, as a plain call: a few
 * milliseconds at most. A larger router is judged in slices from the next shared turn on (75,000 peers took
 * 0.25–0.33 s of blocked event loop after every wireguard run). By count, not time, so which runs are judged at
 * once does not depend on the machine's load.
 */
export const JUDGED_AT_ONCE = 2_000;

/** How many interfaces and peers judging the router's runs reads (from its stored wireguard and set-up data). */
function sizeOf(snapshots: readonly JobSnapshot[]): number {
  let size = 0;
  for (const snapshot of snapshots) {
    if (!snapshot.ok) continue;
    if (snapshot.job === 'wireguard') {
      const data = dataOf(snapshot, 'wireguard');
      size += (data?.peers.length ?? 0) + (data?.interfaces.length ?? 0);
    } else if (snapshot.job === 'wireguard_setup') {
      size += dataOf(snapshot, 'wireguard_setup')?.interfaces.length ?? 0;
    }
  }
  return size;
}

/**
 * Starts logging verdict changes. A small router's run is judged in the turn it lands; a larger one's in slices
 * (util/slices.ts), and the runs that land meanwhile wait, merged into one (the latest snapshots, every part
 * they can change): the lines keep the order of the runs, and a router whose runs land faster than they are
 * judged keeps one run waiting, not a queue.
 */
export function watchVerdicts(deps: WatchDeps): VerdictWatch {
  const now = deps.now ?? Date.now;
  const watched = new Map<string, Watched>();
  const stopped = new AbortController();
  /** Every judgement under way, for settled(): an entry dropped by a reload may still have one. */
  const pending = new Set<Promise<void>>();
  // By name, made again when the config is replaced (a reload): a run lands ~4,000 times a cycle at 2,000
  // routers, and a search of the list for each was quadratic in the fleet.
  let indexed: Config | undefined;
  let byName = new Map<string, RouterConfig>();
  /** Indexes the config in force if it is not the one indexed, and drops the routers it no longer has. */
  const indexConfig = (): void => {
    const config = deps.config();
    if (config === indexed) return;
    indexed = config;
    const before = byName;
    byName = new Map(config.routers.map((router) => [router.name, router]));
    forgetGone(before);
  };
  const routerNamed = (name: string): RouterConfig | undefined => {
    indexConfig();
    return byName.get(name);
  };
  /**
   * Drops the states of routers the new config no longer has. Waiting for a run of theirs to land would never
   * end: the store records none for a router it no longer plans, so a forgotten discovered target (or a router
   * a reload removed) kept its states, ~0.9 KB each, for good, and probed again it came back with them and was
   * not logged down again. So do routers at another URL: that may be another device, whose states are news (a
   * peer already stale on the old one was not told of the new one).
   */
  const forgetGone = (before: ReadonlyMap<string, RouterConfig>): void => {
    const lessToJudge: [string, Watched, RouterConfig][] = [];
    for (const [name, entry] of watched) {
      const router = byName.get(name);
      const old = before.get(name);
      if (router !== undefined && router.url === (old?.url ?? router.url)) {
        if (old !== undefined && jobsMayBeFewer(old, router)) lessToJudge.push([name, entry, router]);
        continue;
      }
      entry.gone = true;
      watched.delete(name);
    }
    // A collector turned off (or a ping target removed) takes its snapshots out of the store with the reload: whether
    // the router is up, and its parts, are judged by the jobs left, at once in /metrics and /health, while no run
    // of theirs may land for a whole interval. Judged now, the verdict log says what they say (found by review: a
    // router whose answering system job was turned off read down at once, and the log said so a cycle later).
    for (const [name, entry, router] of lessToJudge) land(name, entry, router, NO_PARTS);
  };

  const failed = (name: string, error: unknown): void => {
    if (!stopped.signal.aborted) deps.logger.error({ err: error, router: name, component: 'health' }, 'judging a run for the verdict log failed');
  };

  /** The run judged, and its changes kept and logged (as RunLines bounds them). */
  function* judge(name: string, entry: Watched, { parts: landed, at, elapsedAt, snapshots, router }: Landed): Steps<void> {
    const parts = (elapsedAt ?? at) >= entry.peersDueAt ? { ...landed, wireguard: true } : landed;
    // The pauses up to when the run landed: a run judged in slices may be judged after a later pause, not its.
    const paused = deps.paused === undefined || elapsedAt === undefined ? undefined : pausedUntil(deps.paused, elapsedAt);
    const evaluation = yield* evaluateRouterSteps(router, snapshots, at, parts, elapsedAt === undefined ? { peerHealth: false } : { peerHealth: false, elapsedNow: elapsedAt, ...(paused === undefined ? {} : { paused }) });
    const out = new RunLines();
    const states = yield* diffSteps(entry.states, yield* observeSteps(evaluation, router), evaluation.seen, out);
    const badPeers = yield* diffPeersSteps(entry.badPeers, evaluation.judgements, evaluation.seen.wireguard, name, out);
    // Kept and logged at once, after the last pause: a judgement stopped (the watch, the router gone) leaves nothing.
    if (entry.gone || routerNamed(name) === undefined) return;
    if (parts.wireguard) entry.peersDueAt = dueOn(evaluation.judgements, at, elapsedAt, snapshots);
    entry.states = states;
    entry.badPeers = badPeers;
    const lines = out.lines(name);
    if (lines.length === 0) return;
    entry.logger ??= deps.logger.child({ router: name, component: 'health' });
    for (const line of lines) entry.logger[line.level](line.fields, line.message);
  }

  /** Judges in slices what waits for the router, until nothing does. */
  const drain = async (name: string, entry: Watched, first: Promise<void>): Promise<void> => {
    try {
      await first;
    } catch (error) {
      failed(name, error);
    }
    for (let landed = entry.waiting; landed !== undefined && !stopped.signal.aborted; landed = entry.waiting) {
      entry.waiting = undefined;
      try {
        await finishInSlicesLater(judge(name, entry, landed), { signal: stopped.signal });
      } catch (error) {
        failed(name, error);
      }
    }
  };

  const inSlices = (name: string, entry: Watched, first: Promise<void>): void => {
    const busy = drain(name, entry, first).finally(() => {
      entry.busy = undefined;
      pending.delete(busy);
    });
    entry.busy = busy;
    pending.add(busy);
  };

  /** Judges the router's runs as they stand now, `parts` (those a landed run can change) judged afresh. */
  function land(name: string, entry: Watched, router: RouterConfig, parts: EvaluationParts): void {
    const landed: Landed = { parts, at: now(), elapsedAt: deps.elapsed?.(), snapshots: deps.store.snapshots(name), router };
    if (entry.busy !== undefined) {
      // Behind a run still being judged, whose verdicts decide what this one changes; merged with any run
      // already waiting: the latest snapshots, and every part either can change.
      const before = entry.waiting?.parts;
      entry.waiting = before === undefined ? landed : { ...landed, parts: { wireguard: before.wireguard || landed.parts.wireguard, setup: before.setup || landed.parts.setup, pings: before.pings || landed.parts.pings } };
      return;
    }
    if (sizeOf(landed.snapshots) > JUDGED_AT_ONCE) {
      inSlices(name, entry, finishInSlicesLater(judge(name, entry, landed), { signal: stopped.signal }));
      return;
    }
    try {
      finish(judge(name, entry, landed));
    } catch (error) {
      failed(name, error);
    }
  }

  const unsubscribe = deps.store.subscribe((name, collector) => {
    const router = routerNamed(name);
    if (router === undefined) {
      const entry = watched.get(name);
      if (entry !== undefined) entry.gone = true;
      watched.delete(name);
      return;
    }
    let entry = watched.get(name);
    if (entry === undefined) {
      entry = { states: undefined, badPeers: undefined, logger: undefined, peersDueAt: Number.POSITIVE_INFINITY, busy: undefined, waiting: undefined, gone: false };
      watched.set(name, entry);
    }
    land(name, entry, router, PARTS_OF[collector]);
  });

  return {
    reconfigured: indexConfig,
    stop: () => {
      stopped.abort();
      unsubscribe();
    },
    settled: async () => {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

/** firstDue on the clock peersDueAt is kept on: the monotonic one, from the time the peers were judged at. */
function dueOn(judgements: readonly PeerJudgement[], at: number, elapsedAt: number | undefined, snapshots: readonly JobSnapshot[]): number {
  if (elapsedAt === undefined) return firstDue(judgements, at);
  const peersNow = steadyNow(at, snapshots.find((snapshot) => snapshot.job === 'wireguard'), elapsedAt);
  return elapsedAt + (firstDue(judgements, peersNow) - peersNow);
}

/**
 * When the first healthy peer expected up passes its bound by the clock (never: +Infinity). Peers nothing is
 * expected of only turn idle by the clock, which is no news.
 */
function firstDue(judgements: readonly PeerJudgement[], at: number): number {
  let due = Number.POSITIVE_INFINITY;
  for (const judgement of judgements) {
    // Healthy peers a bound can turn down by the clock: up on a handshake, or on an answered probe (partial too), or
    // not due yet after the router started (found by review: the log waited for the next wireguard run).
    const reason = judgement.verdict.reason;
    if (reason !== 'ok' && reason !== 'probe_partial' && reason !== 'never_since_boot') continue;
    const by = handshakeExpectedByMs(judgement);
    // Down means older than the bound: one second past it.
    if (by !== undefined && Number.isFinite(by)) due = Math.min(due, Math.max(at, by + 1000));
  }
  return due;
}
