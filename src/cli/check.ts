/**
 * `check --config FILE [--router NAME] [--timeout SECONDS]`: one collection and one health evaluation in the
 * Nagios plugin convention (src/health/nagios.ts), with a second look at WireGuard peers whose verdict hangs on
 * traffic moving (TRAFFIC_LOOK_GAP_MS later). stdout is the plugin output; logs go to stderr. Bandwidth
 * tests are left out: they are measurements, not health, and would hold the check for their whole duration.
 * The whole check has a deadline (plugins get one from `-t`): past it the check answers UNKNOWN naming the
 * routers it was still waiting for, before the monitoring system kills it with no explanation. Its log lines are held
 * and written to stderr after the answer, at most MAX_CHECK_LOG_BYTES of them (HeldLogLines).
 */
import { writeSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';
import { ConfigError, type Config, type RouterConfig } from '../config/types.js';
import { formatProblems, loadConfigFile } from '../config/index.js';
import { formatDuration, parseDuration } from '../config/duration.js';
import { createApp, type App } from '../app.js';
import type { JobSnapshot } from '../metrics/store.js';
import { judgePeer } from '../analysis/peer.js';
import { MIN_COUNTER_WINDOW_SECONDS } from '../analysis/liveness.js';
import { wireguardReadsSeconds, type WireguardData, type WireguardPeer } from '../collectors/wireguard.js';
import { PeerTable } from '../collectors/wireguard-peers.js';
import { evaluateRouters, type Evaluated } from '../health/report.js';
import { evaluateRouter } from '../health/evaluate.js';
import type { RouterEvaluation } from '../health/types.js';
import { EXIT_CODES, formatCheck, output, type CheckOutput } from '../health/nagios.js';
import { createLogger, HeldLogLines } from './logger.js';
import { writeStdout } from './stdout.js';
import { terminalText } from '../util/text.js';
import { USAGE } from './args.js';
import { shardOf } from '../scheduler/shard.js';
import { applyOverrides } from './overrides.js';

export interface CheckOptions {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** The deadline of the whole check; default 50 s, under the 60 s Nagios gives a service check. */
  timeoutSeconds?: number;
  /** Waits between the looks at peers whose verdict hangs on traffic (tests pass a clock's step). */
  pause?: (ms: number) => Promise<void>;
  /**
   * A monotonic clock in ms (default performance.now()): how much of the deadline is spent, which decides whether a
   * look fits before it. Tests whose pause steps a clock pass the same clock, so the pauses count.
   */
  elapsed?: () => number;
  /**
   * The wait for the deadline, given `timeoutSeconds` in ms (by default a timer of it): tests end it when the case
   * they set up stands (a look hanging), instead of waiting out real seconds.
   */
  deadline?: (ms: number) => Promise<void>;
  /** Where the check's log lines are held until its answer is written (runCheck); by default, dropped. */
  logLines?: HeldLogLines;
  /** `--shard INDEX/COUNT`, over the config's `shard:`. */
  shard?: string;
}

/** The most bytes of log lines a check writes, the note on those left out included: a page, which a pipe takes whole or refuses. */
export const MAX_CHECK_LOG_BYTES = 4_096;

/**
 * How long check waits before it reads WireGuard peers a second time: past WireGuard's 5 s between handshake
 * attempts (REKEY_TIMEOUT, plus up to a third of a second of jitter), so a peer this side keeps trying to reach
 * shows its tx moving, as the daemon sees it between two runs.
 */
export const TRAFFIC_LOOK_GAP_MS = 6_000;

/**
 * The longest wait before the third look (collect, in check): two handshake retries (REKEY_TIMEOUT, 5 s, each with up
 * to a third of a second of jitter) and some slack, so a healthy tunnel whose handshake response is lost once more
 * (a lossy or high-RTT link) still completes it within the window. Shorter when the deadline leaves less room, at
 * least TRAFFIC_LOOK_GAP_MS; none when not even that fits.
 */
export const THIRD_LOOK_GAP_MS = 12_000;

/**
 * The shortest third window that confirms a dead link (CRITICAL): the daemon's shortest counter window
 * (MIN_COUNTER_WINDOW_SECONDS: two handshake retries, REKEY_TIMEOUT, 5 s, each with up to a third of a second of
 * jitter, 10.67 s, and a third of a second for the round trip; docs/health.md, "Peer states"): a healthy tunnel
 * being woken (by either side) shows this side's sending unanswered in two windows in a row only when its handshake
 * response is lost in both, and one more loss does it in a window of one retry, two more in one of two. Under this
 * the third look still tells a handshake completed (OK), but sending unanswered again is not confirmed: its peers
 * are not judged (WARNING, with a note).
 * Before, a -t of 16 to ~25 s confirmed from a 6–10 s window, and a lossy healthy link paged on one more lost packet.
 */
export const MIN_CONFIRMING_WINDOW_MS = MIN_COUNTER_WINDOW_SECONDS * 1000;

/** The least time kept after the third look's gap for its run to land, when the second look took less. */
const LOOK_RUN_RESERVE_MS = 1_000;

/** A pause that does not keep the process alive (a check past its deadline exits without waiting it out). */
function sleep(ms: number): Promise<void> {
  return wait(ms, undefined, { ref: false });
}

/**
 * Whether the peer's verdict differs with the traffic one look cannot see: rx or tx moving between two reads, and
 * this side's sending unanswered over two windows in a row.
 */
export function verdictHangsOnTraffic(peer: WireguardPeer, health: RouterConfig['health'], nowMs: number): boolean {
  const input = {
    name: peer.name,
    comment: peer.comment,
    interface: peer.interface,
    disabled: peer.disabled,
    handshakeAgeSeconds: peer.latestHandshake === undefined ? undefined : Math.max(0, nowMs / 1000 - peer.latestHandshake),
    handshakeUnreadable: peer.handshakeUnreadable,
    factsUnreadable: peer.factsUnreadable,
    keepaliveSeconds: peer.keepaliveSeconds,
    hasEndpoint: peer.hasEndpoint,
  };
  const verdicts = new Set<string>();
  // The window before matters only to a peer this side's sending can make expected (an endpoint, no keepalive).
  const traffic = peer.hasEndpoint && peer.keepaliveSeconds === 0 ? TRAFFIC : TRAFFIC.slice(0, ONE_WINDOW);
  for (const [rxMoved, txMoved, unansweredBefore] of traffic) {
    const verdict = judgePeer({ ...input, rxMoved, txMoved, unansweredBefore }, health);
    verdicts.add(`${verdict.state} ${verdict.healthy}`);
    if (verdicts.size > 1) return true;
  }
  return false;
}

/**
 * rx and tx grown or not, and whether the window before showed this side sending unanswered: this side's sending
 * makes a peer expected only over two windows (analysis/liveness.ts), which the later looks make. The first
 * ONE_WINDOW without it.
 */
const TRAFFIC: readonly (readonly [boolean, boolean, boolean])[] = [false, true].flatMap((before) => [
  [false, false, before] as const,
  [true, false, before] as const,
  [false, true, before] as const,
  [true, true, before] as const,
]);
const ONE_WINDOW = 4;

/**
 * The routers with a peer whose verdict hangs on traffic between two reads, which one look cannot see: a peer
 * under `auto` with an endpoint and no keepalive is idle unless this side is sending (the daemon paged for a dead
 * site link that check called OK), and any peer whose handshake is past its bound but within a session's life is
 * up if data came in (an `always` peer without keepalive, 150 s after a rekey, with handshake_stale_after 2m: check
 * said CRITICAL where the daemon said up; found by review). A disabled or stopped interface's peers are not judged.
 */
function routersHangingOnTraffic(routers: readonly RouterConfig[], store: App['store'], nowMs: number): Set<string> {
  const names = new Set<string>();
  for (const router of routers) {
    const run = store.snapshots(router.name).find((snapshot) => snapshot.job === 'wireguard' && snapshot.ok);
    const data = run?.data as WireguardData | undefined;
    const judged = new Set(data?.interfaces.filter((iface) => !iface.disabled && iface.running === true).map((iface) => iface.name));
    const hangs = data?.peers.some((peer) => judged.has(peer.interface) && verdictHangsOnTraffic(peer, router.health, nowMs));
    if (hangs === true) names.add(router.name);
  }
  return names;
}

export const DEFAULT_CHECK_TIMEOUT_SECONDS = 50;
/** How long an answer ready at or past the deadline waits for the app's stop (check, its `finally`). */
const STOP_GRACE_MS = 250;
/** A day: far above any monitoring system's plugin timeout, far below a timer's limit (~24.8 days). */
export const MAX_CHECK_TIMEOUT_SECONDS = 86_400;

/** `--timeout`: whole seconds as Nagios passes them (`-t 30`), or a duration (`30s`, `1m`). */
export function parseCheckTimeout(text: string): number {
  let seconds: number;
  try {
    seconds = /^\d+$/.test(text) ? Number(text) : parseDuration(text);
  } catch (error) {
    throw new Error(`--timeout: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!(seconds > 0)) throw new Error(`--timeout ${JSON.stringify(text)} must be more than 0 (e.g. 30 or 30s)`);
  // A timer holds at most 2^31 - 1 ms; Node fires a longer one at once (and warns), which timed a check out at start.
  if (seconds > MAX_CHECK_TIMEOUT_SECONDS) throw new Error(`--timeout ${JSON.stringify(text)} is longer than a day; a check waits at most ${MAX_CHECK_TIMEOUT_SECONDS} s`);
  return seconds;
}

/** The check itself, without printing: tests drive this in-process. */
export async function check(configPath: string, routerNames?: string | readonly string[], options: CheckOptions = {}): Promise<CheckOutput> {
  // The deadline counts from here: loading a large config and making its app take seconds (4.7 s at 5,000 routers),
  // and a monitoring system's timeout counts them too (found by review).
  const elapsed = options.elapsed ?? (() => performance.now());
  const started = elapsed();
  let config: Config;
  try {
    config = await loadConfigFile(configPath, options.env ?? process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      // Redacted as check-config prints them: a password registered while the file loaded may stand in a problem.
      return output('UNKNOWN', `invalid configuration ${configPath}: ${error.problems.length} problem(s)`, terminalText(formatProblems(configPath, error.problems)).split('\n'));
    }
    return output('UNKNOWN', terminalText(`cannot load ${configPath}: ${error instanceof Error ? error.message : String(error)}`));
  }
  const named = routerNames === undefined ? undefined : new Set(typeof routerNames === 'string' ? [routerNames] : routerNames);
  // The shard's routers, as the daemon and `once` poll them (the same overrides): a check of a replica's config
  // looked at every router.
  let scoped: Config;
  try {
    scoped = applyOverrides(config, { command: 'check', ...(options.shard === undefined ? {} : { shard: options.shard }) });
  } catch (error) {
    // Worded as check-config words it.
    return output('UNKNOWN', terminalText(`--shard: ${error instanceof Error ? error.message : String(error)}`));
  }
  // A config of profiles alone has its routers named by Prometheus on /probe, to the daemon: none to check here.
  // Said as such, not as "no routers configured", which read as a config that had lost its routers.
  if (config.routers.length === 0 && (config.profiles?.length ?? 0) > 0) {
    return output('UNKNOWN', `${configPath} lists no routers: its routers come from profiles, named by Prometheus on /probe`, [
      'check takes the routers listed under `routers`; a probed target is judged in the daemon\'s /health (?router=NAME) and its verdict log.',
    ]);
  }
  const { shard, routers: inScope } = scoped;
  const routers = named === undefined ? inScope : inScope.filter((router) => named.has(router.name));
  // Every router asked for, or UNKNOWN: checking the others alone could answer OK for one nobody looked at.
  const unknown = named === undefined ? [] : [...named].filter((name) => !config.routers.some((router) => router.name === name));
  if (unknown.length > 0) {
    return output('UNKNOWN', `no router named ${unknown.map((name) => JSON.stringify(name)).join(', ')} in ${configPath}`, [
      `configured routers: ${config.routers.map((router) => router.name).join(', ') || 'none'}`,
    ]);
  }
  if (shard !== undefined) {
    const which = `shard ${shard.index}/${shard.count}`;
    const elsewhere = named === undefined ? [] : [...named].filter((name) => !inScope.some((router) => router.name === name));
    if (elsewhere.length > 0) {
      return output('UNKNOWN', `${elsewhere.map((name) => `${JSON.stringify(name)} is in shard ${shardOf(name, shard.count)}/${shard.count}`).join(', ')}, not in ${which} of ${configPath}`, [
        'Check it where its shard is polled, or without the shard.',
      ]);
    }
    if (inScope.length === 0 && config.routers.length > 0) {
      return output('UNKNOWN', `${which} leaves no router of ${configPath} to check: all ${config.routers.length} belong to other shards`);
    }
  }
  const checked: Config = {
    ...config,
    routers: routers.map((router) => ({ ...router, collectors: { ...router.collectors, bandwidth_test: false } })),
  };
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, options.logLines ?? new HeldLogLines(MAX_CHECK_LOG_BYTES));
  const now = options.now ?? Date.now;
  // Every look's window judged as it is: check's looks are short on purpose, and it does not confirm from a short one.
  const app = createApp(checked, { logger, jitter: false, now, minCounterWindowSeconds: 0 });
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS;
  const pause = options.pause ?? sleep;
  /** Whether a look after one more gap starts before the deadline. */
  const roomForLook = (): boolean => elapsed() - started + TRAFFIC_LOOK_GAP_MS < timeoutSeconds * 1000;
  // One look, and a second at the wireguard peers that need it, started when the gap ends before the deadline. A
  // router whose second look was not made, or had not landed by the deadline, has its peers' traffic judged as not
  // seen: those whose verdict hangs on it are not judged (WARNING, "cannot judge"). Before, the first look stood and
  // called a dead site link idle, OK, where the same check with a longer -t (or a faster router) said CRITICAL
  // (found by a hostile tester); and the look was skipped unless the gap and one request's timeout fitted, though a
  // run is two requests or more. A third look, on the same rule, where the one window of the first two cannot tell
  // (collect, below).
  const secondLook = new Set<string>();
  const looked = new Set<string>();
  // The third look (below): the routers it was wanted for, and those it reached.
  const thirdLook = new Set<string>();
  const thirdLooked = new Set<string>();
  // A look whose run failed at a router (an HTTP error, the router gone) is not its verdict: the store keeps the
  // failed run in place of the look before, whose verdicts were lost with it, and a CRITICAL the second look had
  // established answered WARNING "collector failing" when the third failed (review). The router's wireguard run of
  // the look before each look (`before`); a router whose look failed is judged from that run (`judgedFrom`), the
  // failure's reason (an ErrorReason: no router text) kept for its note.
  const routerNamed = new Map(checked.routers.map((router) => [router.name, router]));
  const before = new Map<string, JobSnapshot>();
  const judgedFrom = new Map<string, JobSnapshot>();
  const failed: Record<'second' | 'third', Map<string, string>> = { second: new Map(), third: new Map() };
  let looking: 'second' | 'third' | undefined;
  const wireguardRun = (name: string): JobSnapshot | undefined => app.store.snapshots(name).find((snapshot) => snapshot.job === 'wireguard');
  const unsubscribe = app.store.subscribe((name, collector) => {
    if (collector !== 'wireguard' || looking === undefined) return;
    const run = wireguardRun(name);
    const earlier = before.get(name);
    // Not when the router runs no system job and this run found it silent: that run is what says the router is down
    // (analysis/up.ts), and judged from the look before it read up, WARNING where the daemon says down, CRITICAL
    // (review). Left in place, it is judged as the run it is.
    const silentWithoutSystem = run?.silentSince !== undefined && routerNamed.get(name)?.collectors.system !== true;
    if (run?.ok === false && earlier?.ok === true && !silentWithoutSystem) {
      judgedFrom.set(name, earlier);
      failed[looking].set(name, run.reason ?? 'parse');
      return;
    }
    if (looking === 'second') looked.add(name);
    else thirdLooked.add(name);
  });
  /** The router's runs as check judges them: the run of the look before in place of a look's failed wireguard run. */
  const snapshotsOf = (name: string): JobSnapshot[] => {
    const earlier = judgedFrom.get(name);
    const runs = app.store.snapshots(name);
    return earlier === undefined ? runs : runs.map((run) => (run.job === 'wireguard' && !run.ok ? earlier : run));
  };
  const judged: Pick<App['store'], 'snapshots'> = { snapshots: snapshotsOf };
  const tableOf = (name: string): PeerTable | undefined => {
    const peers = (snapshotsOf(name).find((snapshot) => snapshot.job === 'wireguard' && snapshot.ok)?.data as WireguardData | undefined)?.peers;
    return peers instanceof PeerTable ? peers : undefined;
  };
  /** Whether the router's evaluation leaves a peer unjudged because its one window could not tell (its rows marked). */
  const unconfirmedIn = ({ judgements }: RouterEvaluation): boolean =>
    judgements.some(({ peer, verdict }) => peer.unansweredUnconfirmed === true && verdict.reason === 'unreadable');
  const leftUnconfirmed = (name: string): boolean => {
    const router = routerNamed.get(name);
    return router !== undefined && unconfirmedIn(evaluateRouter(router, snapshotsOf(name), now()));
  };
  /**
   * Marks the rows of the router's latest table whose one window cannot tell (PeerTable.markUnansweredUnconfirmed);
   * whether it marked any. Marking again is harmless, and the marks leave the window counted as sending unanswered
   * for a look after it.
   */
  const markUnconfirmed = (name: string): boolean => (tableOf(name)?.markUnansweredUnconfirmed() ?? 0) > 0;
  /** Keeps the router's wireguard run before a look at it, to judge from if the look fails. */
  const remember = (name: string): void => {
    const run = wireguardRun(name);
    if (run === undefined) before.delete(name);
    else before.set(name, run);
  };
  let thirdGap = THIRD_LOOK_GAP_MS;
  /**
   * The third window at a router: the time between the second and third looks' reads of its peers, as the collector
   * measures a window (the longer of the monotonic and wall-clock differences); the pause asked for when they are not
   * known. Not the pause alone: a second look whose read landed late (a slow reply) made a 12 s pause a 10 s window.
   */
  const thirdWindowOf = (name: string): number => {
    const second = (before.get(name)?.data as WireguardData | undefined)?.peers;
    const third = tableOf(name);
    if (!(second instanceof PeerTable) || third === undefined) return thirdGap;
    const between = (later: number | undefined, earlier: number | undefined): number[] => (later === undefined || earlier === undefined ? [] : [later - earlier]);
    const known = [...between(third.countersReadElapsed, second.countersReadElapsed), ...between(third.countersReadAt, second.countersReadAt)];
    return known.length === 0 ? thirdGap : Math.max(...known);
  };
  const collect = async (): Promise<void> => {
    await app.collectOnce();
    for (const name of routersHangingOnTraffic(checked.routers, app.store, now())) secondLook.add(name);
    if (secondLook.size === 0 || !roomForLook()) return;
    await pause(TRAFFIC_LOOK_GAP_MS);
    for (const name of secondLook) remember(name);
    looking = 'second';
    const secondStarted = elapsed();
    await app.collectOnce((router, job) => job === 'wireguard' && secondLook.has(router));
    const secondTook = elapsed() - secondStarted;
    // A third look, as the daemon's second window, at routers where the one window left a verdict unjudged (tx grew
    // unanswered: rx did not grow, or grew with no session possible): a dead link shows it again with the window
    // before set (CRITICAL), a healthy tunnel being woken shows its fresh handshake (OK). Without it such a link
    // answered WARNING forever, and a Nagios set-up that pages on CRITICAL alone never paged for it (review).
    looking = undefined;
    for (const name of looked) if (markUnconfirmed(name) && leftUnconfirmed(name)) thirdLook.add(name);
    if (thirdLook.size === 0) return;
    // As long a gap as the deadline leaves room for, up to THIRD_LOOK_GAP_MS, keeping the most the third look's run may
    // take (its routers' wireguard reads, each its timeout; what the second took if more) for it to land; at least the
    // second's gap, and none when not even that ends before the deadline (as the second look's rule). Kept from the
    // second look's time alone, a third a little slower (a reconnect after the idle gap) missed the deadline, and a
    // dead link answered WARNING "did not fit" where the 6 s gap had answered CRITICAL (review).
    const left = timeoutSeconds * 1000 - (elapsed() - started);
    if (!(left > TRAFFIC_LOOK_GAP_MS)) return;
    let reserve = Math.max(secondTook, LOOK_RUN_RESERVE_MS);
    for (const router of checked.routers) if (thirdLook.has(router.name)) reserve = Math.max(reserve, wireguardReadsSeconds(router) * 1000);
    const gap = Math.max(TRAFFIC_LOOK_GAP_MS, Math.min(THIRD_LOOK_GAP_MS, left - reserve));
    thirdGap = gap;
    await pause(gap);
    for (const name of thirdLook) remember(name);
    looking = 'third';
    await app.collectOnce((router, job) => job === 'wireguard' && thirdLook.has(router));
  };
  /**
   * Marks the peers of routers the second look did not reach as traffic unseen, and those of routers it did reach
   * whose tx grew unanswered in the last window, not confirmed by a window before, as such (below),
   * before the routers are evaluated; the routers it marked so.
   */
  const markLooks = (): Set<string> => {
    looking = undefined;
    for (const name of secondLook) if (!looked.has(name)) tableOf(name)?.markTrafficUnseen();
    // A third window too short to confirm: what it shows again is left as unconfirmed as the one window before was.
    for (const name of thirdLooked) if (thirdWindowOf(name) < MIN_CONFIRMING_WINDOW_MS) tableOf(name)?.markUnansweredUnconfirmed(false);
    return new Set([...looked].filter(markUnconfirmed));
  };
  /**
   * The notes on the looks, from the evaluation the answer is made of (`evaluated`, of `evaluatedRouters`). Before,
   * each router marked was evaluated once more for them, though nothing was collected since it was evaluated for the
   * third look (~0.5 s at 75,000 peers; review). A router marked but not in it (not judged at the deadline) is
   * evaluated here.
   */
  const lookNotes = (marked: ReadonlySet<string>, evaluatedRouters: readonly RouterConfig[], evaluated: Evaluated | undefined): string[] => {
    const notes: string[] = [];
    const unseen = [...secondLook].filter((name) => !looked.has(name));
    const failedAt = (which: 'second' | 'third', names: readonly string[]): string =>
      names.map((name) => `${name} (${failed[which].get(name) ?? 'failed'})`).join(', ');
    const secondFailed = unseen.filter((name) => failed.second.has(name));
    const notLooked = unseen.filter((name) => !failed.second.has(name));
    if (secondFailed.length > 0) {
      notes.push(`the second look at the traffic of ${failedAt('second', secondFailed)} failed: judged from the first look, where peers whose verdict hangs on traffic are not judged`);
    }
    if (notLooked.length > 0) notes.push(`no second look at the traffic of ${notLooked.join(', ')} (${TRAFFIC_LOOK_GAP_MS / 1000} s after the first) within the check's ${formatDuration(timeoutSeconds)}: peers whose verdict hangs on it are not judged; raise --timeout`);
    // The daemon makes a peer expected for this side's sending unanswered (tx grown; rx not grown, or grown with no
    // session possible) only when two counter windows in a row show it (analysis/liveness.ts): a healthy idle tunnel
    // being woken looks so for a round trip (5 s more per lost response), a dead link looks so every time. One window
    // can neither confirm the dead link (CRITICAL) nor call it the handshake in flight (OK), so such a peer is not
    // judged. Noted only where a verdict was left unjudged so: marking also flags rows whose verdict does not hang on
    // it (a keepalive, `expect`, a disabled peer or interface), and an OK answer carried "peers … are not judged"
    // (review).
    const evaluationOf = new Map<string, RouterEvaluation>();
    if (evaluated !== undefined) for (const [index, router] of evaluatedRouters.entries()) {
      const evaluation = evaluated.evaluations[index];
      if (evaluation !== undefined) evaluationOf.set(router.name, evaluation);
    }
    const unconfirmed = [...looked].filter((name) => {
      if (!marked.has(name)) return false;
      const evaluation = evaluationOf.get(name);
      return evaluation === undefined ? leftUnconfirmed(name) : unconfirmedIn(evaluation);
    });
    const thirdFailed = unconfirmed.filter((name) => failed.third.has(name));
    const withoutThird = unconfirmed.filter((name) => !thirdLooked.has(name) && !failed.third.has(name));
    const afterThird = unconfirmed.filter((name) => thirdLooked.has(name));
    const gap = `${TRAFFIC_LOOK_GAP_MS / 1000} s apart`;
    const unanswered = '(rx did not grow, or grew with no session possible): a link where no handshake completes, or a handshake in flight';
    const what = `${unanswered} (its response lost or still on its way); one window cannot tell which, so peers whose verdict hangs on it are not judged`;
    if (withoutThird.length > 0) {
      notes.push(`tx grew unanswered at ${withoutThird.join(', ')} between the looks (${gap}) ${what}; a third look, which tells, did not fit within the check's ${formatDuration(timeoutSeconds)}: raise --timeout (the daemon tells over two collections)`);
    }
    if (thirdFailed.length > 0) {
      notes.push(`tx grew unanswered at ${thirdFailed.join(', ')} between the looks (${gap}) ${what}; the third look, which tells, failed at ${failedAt('third', thirdFailed)}: judged from the second look (the daemon tells over two collections)`);
    }
    const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;
    /** The routers, and how far apart their second and third looks' reads were: one time when they share it. */
    const thirdApart = (names: readonly string[]): string => {
      const windows = names.map((name) => seconds(thirdWindowOf(name)));
      return new Set(windows).size === 1
        ? `${names.join(', ')} between the second and third looks (${windows[0] ?? ''} apart)`
        : `${names.map((name, i) => `${name} (${windows[i] ?? ''})`).join(', ')} between the second and third looks (that far apart)`;
    };
    const shortThird = afterThird.filter((name) => thirdWindowOf(name) < MIN_CONFIRMING_WINDOW_MS);
    const longThird = afterThird.filter((name) => thirdWindowOf(name) >= MIN_CONFIRMING_WINDOW_MS);
    if (shortThird.length > 0) {
      notes.push(
        `tx grew unanswered at ${thirdApart(shortThird)} ${unanswered} ` +
          `(its response lost once more, where the first two looks showed the same); a window under ${MIN_CONFIRMING_WINDOW_MS / 1000} s (two of WireGuard's handshake retries) cannot tell which, ` +
          `so peers whose verdict hangs on it are not judged: raise --timeout (the third look's window is ${THIRD_LOOK_GAP_MS / 1000} s when -t leaves room; the daemon tells over two collections)`,
      );
    }
    if (longThird.length > 0) {
      notes.push(`tx grew unanswered at ${thirdApart(longThird)} alone ${what} (the daemon tells over two collections)`);
    }
    return notes;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const left = Math.max(0, timeoutSeconds * 1000 - (elapsed() - started));
    const deadline =
      options.deadline === undefined
        ? new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), left);
          })
        : options.deadline(left).then(() => 'late' as const);
    const ended = await Promise.race([collect(), deadline]);
    const marked = markLooks();
    if (ended === 'late') {
      // A router found down (its system run failed, or without the system collector a run that found it silent: one
      // that does not answer fails at its timeout, long before its other collectors have each waited out theirs) is judged now:
      // down is down, whatever they would say — by the one `up` verdict /health and routeros_up use. One that
      // answered is judged only once every collector has run, or its tunnels would pass unseen.
      const known = (router: Config['routers'][number]): boolean =>
        app.store.tried(router.name) || evaluateRouter(router, snapshotsOf(router.name), now()).health.up === false;
      const waiting = checked.routers.filter((router) => !known(router)).map((router) => router.name);
      const late = `check timed out after ${formatDuration(timeoutSeconds)}, still waiting for ${waiting.join(', ')}`;
      const judgedRouters = checked.routers.filter(known);
      const unheard = waiting.length > 0 ? { partial: true, late } : {};
      const evaluated = judgedRouters.length === 0 ? undefined : evaluateRouters(judgedRouters, judged, now());
      const notes = lookNotes(marked, judgedRouters, evaluated);
      const verdict = evaluated === undefined ? undefined : formatCheck(evaluated, judgedRouters, { ...unheard, notes });
      if (waiting.length === 0 && verdict !== undefined) return verdict;
      // Routers found down page now (formatCheck says who is still unheard on the first line, within its bound).
      if (verdict?.state === 'CRITICAL') return verdict;
      return output('UNKNOWN', late, ['Raise --timeout (and the monitoring system\'s own check timeout above it), or lower the routers\' timeout and ping counts.']);
    }
    const evaluated = evaluateRouters(checked.routers, judged, now());
    return formatCheck(evaluated, checked.routers, { notes: lookNotes(marked, checked.routers, evaluated) });
  } finally {
    unsubscribe();
    clearTimeout(timer);
    // Aborts whatever is still in flight, waited for up to the deadline, or STOP_GRACE_MS past it: the answer is
    // ready, and a stop that takes long (2 s for 5,000 routers, closing their clients) held it past the deadline. The
    // process exits without waiting for the rest (main.ts EXIT_GRACE_MS).
    const stopping = app.stop();
    stopping.catch(() => undefined);
    await Promise.race([stopping, sleep(Math.max(STOP_GRACE_MS, timeoutSeconds * 1000 - (elapsed() - started)))]);
  }
}

/**
 * A usage error of `check` answers UNKNOWN (3) with the usage, on stdout like every plugin answer: a
 * monitoring system reads 2 as CRITICAL and would page for a typo in the command definition.
 */
export async function reportCheckUsage(message: string): Promise<number> {
  return print(usageOutput(message));
}

function usageOutput(message: string): CheckOutput {
  return output('UNKNOWN', `usage error: ${message}`, USAGE.split('\n').filter((line) => line !== ''));
}

async function print(result: CheckOutput): Promise<number> {
  try {
    await writeStdout(result.text);
  } catch (error) {
    // The answer cannot be given: UNKNOWN (3), said on stderr in one line, not a crash (1, read as WARNING).
    try {
      writeSync(2, `routeros-exporter check: ${error instanceof Error ? error.message : String(error)}; the answer was: ${result.text.split('\n')[0] ?? ''}\n`);
    } catch {
      // stderr cannot be written either: the status is all there is.
    }
    return 3;
  }
  return result.code;
}

/** Whether runCheck has begun to write its answer: from then on, the answer is what the process says. */
let answerBegun = false;

/**
 * For the CLI's `check` (main.ts), before runCheck: an error nobody awaited (a library's late rejection, an `error`
 * event nobody listens to) ended the process with Node's default, exit 1, read as WARNING, and a stack on stderr
 * with no status line (found by review). Before the answer it is the check's failure: UNKNOWN on stdout, exit 3.
 * After, the answer stands with its exit code (`process.exitCode`, set by main), and the error is one line on
 * stderr. Redacted as every other message (terminalText). Not for in-process callers: the handlers are the process's.
 */
export function answerUnawaitedErrors(): void {
  const onError = (error: unknown): void => {
    const message = terminalText(error instanceof Error ? error.message : String(error)).replaceAll('\n', ' ');
    if (answerBegun) {
      try {
        writeSync(2, `routeros-exporter check: after its answer: ${message}\n`);
      } catch {
        // stderr cannot be written either: the answer given is what counts.
      }
      return;
    }
    try {
      writeSync(1, output('UNKNOWN', `check failed: ${message}`).text);
    } catch {
      // stdout cannot be written: the status is all there is.
    }
    process.exit(EXIT_CODES.UNKNOWN);
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
}

export async function runCheck(configPath: string, routers?: readonly string[], timeout?: string, shard?: string): Promise<number> {
  let result: CheckOutput;
  const logLines = new HeldLogLines(MAX_CHECK_LOG_BYTES);
  try {
    const timeoutSeconds = timeout === undefined ? undefined : parseCheckTimeout(timeout);
    result = await check(configPath, routers, { logLines, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }), ...(shard === undefined ? {} : { shard }) });
  } catch (error) {
    // A plugin that crashes must still say UNKNOWN on stdout, or the monitoring system shows nothing useful.
    result = output('UNKNOWN', terminalText(`check failed: ${error instanceof Error ? error.message : String(error)}`));
  }
  answerBegun = true;
  const code = await print(result);
  logLines.release();
  return code;
}
