/**
 * Health verdicts, pure functions of a router's config, its latest job snapshots and the time of asking.
 * Handshake ages are computed from the stored latest-handshake timestamps at `now`, so a peer keeps ageing
 * between collections and goes stale on time. The rules (docs/health.md):
 * - a router that is down is critical; of its other jobs, those whose last run answered are judged as that run
 *   found them (their series are still in /metrics), the others and its pings are not;
 * - a router never collected yet, or one whose wireguard, wireguard_setup or ping job failed while the router
 *   answers, is degraded: "we cannot see" is not "fine", but is not an outage either;
 * - an enabled interface that is not running is critical; a failed set-up check is degraded;
 * - an enabled, judged peer expected up (analysis/liveness.ts) that is down or never shook hands is critical; an
 *   idle peer is fine; peers whose last-handshake did not decode cannot be judged, which makes the router
 *   degraded ("cannot judge N peers");
 * - a ping target with loss ≥ ping_loss_critical is critical, any smaller loss degraded;
 * - a router's status is the worst of its parts, and the overall status the worst of the routers.
 */
import { cronIntervalSeconds } from '../config/cron.js';
import type { RouterConfig } from '../config/types.js';
import type { JobSnapshot } from '../metrics/store.js';
import { labelValueReadBack } from '../metrics/text.js';
import { redactSecretsDistinct } from '../util/redact.js';
import { dataOf, jobsFor, type CollectorData } from '../collectors/catalog.js';
import { wireguardReadsSeconds, type WireguardPeer } from '../collectors/wireguard.js';
import type { KeptPeers } from '../collectors/wireguard-peers.js';
import { runStateOf, upVerdict } from '../analysis/up.js';
import { handshakeExpectedBy, isUnreadable, judgePeer, type PeerVerdict } from '../analysis/peer.js';
import { handshakeAgeAt, probeAgeAt } from '../analysis/liveness.js';
import { counted, formatAge, inEra, isoOrNull, peerDisplayName } from './format.js';
import { keyStart, namedLine, ROUTER_TEXT_LIMIT } from '../util/text.js';
import { evaluatePings } from './pings.js';
import { finish, type Steps } from '../util/slices.js';
import { worst, type InterfaceHealth, type PeerHealth, type PeerJudgement, type Problem, type RouterEvaluation, type RouterHealth, type Status } from './types.js';
import type { ErrorReason } from '../routeros/errors.js';

/** The failures where nothing answered: the connection was refused or dropped, or the reply did not come in time. */
const NO_ANSWER: ReadonlySet<ErrorReason> = new Set<ErrorReason>(['timeout', 'connect']);

/** A problem's text: a failing set-up check words up to ten findings and their fixes. */
const PROBLEM_TEXT_LIMIT = 16_000;

/** Which parts of a router to judge besides its up state; a part left out is not `seen`. */
export interface EvaluationParts {
  wireguard: boolean;
  setup: boolean;
  pings: boolean;
}

const EVERY_PART: EvaluationParts = { wireguard: true, setup: true, pings: true };

/**
 * Interfaces or peers judged between two pauses of the steps: a router may list tens of thousands (a hub of
 * 75,000 peers took 0.5–0.7 s to judge and word for /health, in one task).
 */
const ITEMS_PER_STEP = 256;

/** Whether the loop at `index` has done a step's worth of items since its last pause. */
const stepEnds = (index: number): boolean => index % ITEMS_PER_STEP === ITEMS_PER_STEP - 1;

interface EvaluationOptions {
  /**
   * false judges peers (judgements and problems) without wording each one for /health: the verdict log
   * re-judges every peer of a router after each wireguard run and words only those whose state changed.
   */
  peerHealth?: boolean;
  /**
   * The monotonic clock (ms) at `now`, on the clock runs record as JobSnapshot.finishedElapsed. Given, peers age
   * from their run by it rather than by the wall clock, which a step forward (an operator, NTP) made read every
   * healthy peer stale, /health critical and the verdict log a stale-then-recovered pair per peer, until the next
   * collection (found by review).
   */
  elapsedNow?: number;
  /**
   * The ms the process did not run since a monotonic instant (util/pauses.ts). A pause (a VM paused, SIGSTOP) does
   * not count as a collection overdue: the runs after it had no time to land. Without it, a pause of a few minutes
   * read every healthy peer stale in /health and logged a stale-then-recovered pair per peer.
   */
  paused?: (since: number) => number;
}

/**
 * `now` for judging a run's peers: the wall clock as it would read had it run steadily since the run finished, when
 * both monotonic readings are known; `now` otherwise. Never before the run: a clock stepped back judged every
 * peer at an age it had not reached.
 */
export function steadyNow(now: number, run: JobSnapshot | undefined, elapsedNow: number | undefined): number {
  if (run?.finishedElapsed === undefined || elapsedNow === undefined) return now;
  return run.finishedAt + Math.max(0, elapsedNow - run.finishedElapsed);
}

/** The router evaluated in one go (evaluateRouterSteps). */
export function evaluateRouter(
  router: RouterConfig,
  snapshots: readonly JobSnapshot[],
  now: number,
  parts: EvaluationParts = EVERY_PART,
  options: EvaluationOptions = {},
): RouterEvaluation {
  return finish(evaluateRouterSteps(router, snapshots, now, parts, options));
}

/** The router evaluated in steps that may pause every few hundred interfaces or peers (util/slices.ts). */
export function* evaluateRouterSteps(
  router: RouterConfig,
  snapshots: readonly JobSnapshot[],
  now: number,
  parts: EvaluationParts = EVERY_PART,
  { peerHealth = true, elapsedNow, paused }: EvaluationOptions = {},
): Steps<RouterEvaluation> {
  const problems: Problem[] = [];
  const byJob = new Map(snapshots.map((snapshot) => [snapshot.job, snapshot]));
  const system = router.collectors.system ? byJob.get('system') : undefined;
  // The jobs the router runs, as the store plans them, so that routeros_up and /health agree (analysis/up.ts).
  const planned = router.collectors.system ? [{ collector: 'system', job: 'system' }] : jobsFor(router);
  const verdict = upVerdict(
    planned.map(({ collector, job }) => {
      const snapshot = byJob.get(job);
      return { ...runStateOf(collector, snapshot), snapshot };
    }),
  );
  const up = verdict.up ?? null;
  const lastSuccessMs = router.collectors.system ? system?.lastSuccessAt : latest(snapshots.map((s) => s.lastSuccessAt));
  const health: RouterHealth = {
    name: router.name,
    status: 'ok',
    up,
    // Worded when read (/health, check): the verdict log evaluates every run that lands, ~4,000 a cycle at 2,000
    // routers, and reads none (toISOString was ~1 % of the fleet's collection CPU in a profile).
    get lastSuccess() {
      return isoOrNull(lastSuccessMs);
    },
    reasons: [],
    interfaces: [],
    peers: [],
    pings: [],
  };
  const seen = { wireguard: false, setup: false, pings: false };
  let judgements: PeerJudgement[] = [];
  // Names and texts come from the router: bounded, stripped of controls and redacted here, once, for /health,
  // check and the log (a peer named with 5 MB of text made a 5 MB reason and summary line; one named with the
  // echoed password put it in check's output). Secrets as tags (namedLine), as the label values and peers[] have
  // them, so two peers' problems do not look alike. The text's bound leaves room for a set-up check's ten
  // findings and fixes, themselves bounded.
  const add = (problem: Omit<Problem, 'subject'> & { subject?: string }): void => {
    const subject = problem.subject === undefined ? router.name : `${router.name}/${namedLine(problem.subject, ROUTER_TEXT_LIMIT)}`;
    const withoutFix = problem.textWithoutFix === undefined ? {} : { textWithoutFix: namedLine(problem.textWithoutFix, PROBLEM_TEXT_LIMIT) };
    problems.push({ ...problem, subject, text: namedLine(problem.text, PROBLEM_TEXT_LIMIT), brief: namedLine(problem.brief, ROUTER_TEXT_LIMIT), ...withoutFix });
  };

  // Not collected yet while none of the runs that tell whether it is up has landed: with only a wireguard run in (its
  // system run still to come, after a start or a reload), the router read ok and "up" with up unknown, where check
  // said UNKNOWN (found by review).
  if (planned.every(({ job }) => !byJob.has(job))) {
    add({ kind: 'not-collected', status: 'degraded', text: 'not collected yet', brief: '' });
  } else if (up === false) {
    // The run that settled it: system's, or without it the failure that says the router does not answer.
    const failed = verdict.failed?.snapshot;
    const since = lastSuccessMs === undefined ? 'since the exporter started' : `since ${isoOrNull(lastSuccessMs) ?? 'an unknown time'}`;
    // A refusal is an answer: say what the router refused rather than "no answer"; so is an error status, a reply
    // that is not data or a TLS handshake that failed (found by review: a router answering 500 read "no answer").
    const answered = failed?.reason !== undefined && !NO_ANSWER.has(failed.reason);
    const what = failed?.summary ?? `${answered ? 'answering with errors' : 'no answer'} ${since}`;
    add({ kind: 'router-down', status: 'critical', text: `down: ${what} (${failed?.reason ?? 'error'})`, brief: failed?.reason ?? 'down' });
  }
  if (snapshots.length > 0) {
    // Down, a job whose last run succeeded still has its data in /metrics, and its alerts go by it (the system run
    // failing while the wireguard read answered): judged here too. Its other jobs' failures say nothing the
    // router's being down does not, and are not listed (a review found /health empty of peers /metrics paged on).
    const jobAdd: AddProblem = up === false ? () => undefined : add;
    const wireguard = parts.wireguard ? jobData(router, byJob, 'wireguard', jobAdd, 'tunnel and peer state unknown') : undefined;
    const setup = parts.setup ? jobData(router, byJob, 'wireguard_setup', jobAdd, 'tunnel set-up not audited') : undefined;
    if (parts.wireguard || parts.setup) {
      const judged = yield* evaluateInterfaces(wireguard, setup, add);
      health.interfaces = judged.interfaces;
      // A router that does not answer now is judged as its last read found it, as /metrics has it: by the clock
      // alone its peers would go stale one by one while nothing can be known of them (a review found every peer
      // of a router timing out logged and checked down, their healthy series still 1).
      const run = byJob.get('wireguard');
      const peersNow = steadyNow(now, run, elapsedNow);
      const judgedAt = up === false ? (wireguard?.collectedAt ?? peersNow) : peersNow;
      // The time the process did not run since the read: the next read could not land in it.
      const pausedMs = run?.finishedElapsed === undefined || elapsedNow === undefined || paused === undefined ? 0 : paused(run.finishedElapsed);
      if (parts.wireguard) judgements = yield* judgePeers(router, wireguard, judged.byName, judgedAt, add, pausedMs);
    }
    if (parts.wireguard && peerHealth) {
      const peers: PeerHealth[] = [];
      for (const [index, judgement] of judgements.entries()) {
        peers.push(peerHealthOf(judgement));
        if (stepEnds(index)) yield;
      }
      health.peers = peers;
    }
    // Pings of a router that is down are not judged (as before): each its own job, their last states are kept
    // for the verdict log until the router answers again.
    if (parts.pings && up !== false) health.pings = evaluatePings(router, byJob, add);
    seen.wireguard = wireguard !== undefined;
    seen.setup = setup !== undefined;
    seen.pings = parts.pings && up !== false;
  }

  health.status = worst(problems.map((problem) => problem.status));
  // Worst first, in the order found within a status (a problem is critical or degraded).
  const critical: Problem[] = [];
  const degraded: Problem[] = [];
  for (const [index, problem] of problems.entries()) {
    (problem.status === 'critical' ? critical : degraded).push(problem);
    if (stepEnds(index)) yield;
  }
  const ordered = critical.concat(degraded);
  for (const [index, problem] of ordered.entries()) {
    health.reasons.push(`${problem.subject}: ${problem.text}`);
    if (stepEnds(index)) yield;
  }
  return { health, problems: ordered, seen, judgements };
}

type WireguardData = CollectorData['wireguard'];
type WireguardSetupData = CollectorData['wireguard_setup'];

type AddProblem = (problem: Omit<Problem, 'subject'> & { subject?: string }) => void;

function latest(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

/** The data of a single-job collector, or a problem saying why it is missing. */
function jobData<Name extends 'wireguard' | 'wireguard_setup'>(
  router: RouterConfig,
  byJob: ReadonlyMap<string, JobSnapshot>,
  job: Name,
  add: AddProblem,
  consequence: string,
): CollectorData[Name] | undefined {
  if (!router.collectors[job]) return undefined;
  const snapshot = byJob.get(job);
  if (snapshot === undefined) {
    add({ kind: 'not-collected', status: 'degraded', subject: job, text: `not collected yet: ${consequence}`, brief: '' });
    return undefined;
  }
  if (!snapshot.ok) {
    const reason = snapshot.reason ?? 'error';
    const summary = snapshot.summary === undefined ? '' : ` ${snapshot.summary}:`;
    add({ kind: 'collector-failed', status: 'degraded', subject: job, text: `collector failed (${reason}):${summary} ${consequence}`, brief: reason });
    return undefined;
  }
  return dataOf(snapshot, job);
}

/** The interfaces judged, and the same by name (the first of each name) for the peers' lookups. */
interface JudgedInterfaces {
  interfaces: InterfaceHealth[];
  byName: ReadonlyMap<string, InterfaceHealth>;
}

function* evaluateInterfaces(wireguard: WireguardData | undefined, setup: WireguardSetupData | undefined, add: AddProblem): Steps<JudgedInterfaces> {
  const out: InterfaceHealth[] = [];
  for (const [index, iface] of (wireguard?.interfaces ?? []).entries()) {
    const down = !iface.disabled && iface.running === false;
    if (down) add({ kind: 'interface-down', status: 'critical', subject: iface.name, text: 'enabled but not running', brief: 'not running' });
    // "Cannot tell" is not "fine": never ok on a value that could not be read (docs/health.md).
    if (iface.unclear) {
      add({ kind: 'interface-unjudged', status: 'degraded', subject: iface.name, text: 'cannot tell whether it runs: its running or disabled is missing or did not decode, or another interface writes out as the same name', brief: 'cannot tell whether it runs' });
    }
    // Named as its series are read back (a name of megabytes is shortened there, a control character is U+FFFD): /health
    // and /metrics agree, and stay bounded; raw, a name's control characters reached /health (found by review).
    out.push({ name: labelValueReadBack(iface.name), running: iface.running ?? null, disabled: iface.disabled, status: down ? 'critical' : iface.unclear ? 'degraded' : 'ok' });
    if (stepEnds(index)) yield;
  }
  const byName = yield* firstByName(out);
  for (const [index, audit] of (setup?.interfaces ?? []).entries()) {
    if (stepEnds(index)) yield;
    let entry = byName.get(labelValueReadBack(audit.interface));
    if (entry === undefined) {
      // Known from the audit only (the wireguard collector is off): its running state is unknown.
      entry = { name: labelValueReadBack(audit.interface), running: null, disabled: false, status: 'ok' };
      out.push(entry);
      byName.set(entry.name, entry);
    }
    if (entry.disabled) continue;
    // Details and fixes name the router's interfaces and addresses: redacted as names are (a fix keeps its lines),
    // and bounded (an interface named with a million characters made 3 MB of /health per interface).
    const checks = audit.checks.map(boundedCheck);
    entry.setup = checks;
    for (const check of checks) {
      if (check.ok) continue;
      if (entry.status === 'ok') entry.status = 'degraded';
      const command = check.fix?.replaceAll('\n', ' ; ');
      const text = `set-up check ${check.check} fails: ${check.detail ?? ''}.`;
      const fix = command === undefined ? {} : { fix: command, textWithoutFix: text };
      add({ kind: 'setup-failed', status: 'degraded', subject: audit.interface, text: command === undefined ? text : `${text} Fix: ${command}`, brief: check.check, ...fix });
    }
  }
  // An interface known from the audit only was added to both, so the map is still the first of each name in `out`.
  return { interfaces: out, byName };
}

/**
 * Interfaces by name, the first of each name winning (as a search in order would). A lookup per peer must not
 * scan the list: 20,000 peers on 20,000 interfaces took 1.2 s of blocked loop after every wireguard run.
 */
function* firstByName<T extends { name: string }>(entries: readonly T[]): Steps<Map<string, T>> {
  const byName = new Map<string, T>();
  for (const [index, entry] of entries.entries()) {
    if (stepEnds(index)) yield;
    if (!byName.has(entry.name)) byName.set(entry.name, entry);
  }
  return byName;
}

/** A set-up check's detail, at most this many characters (one line). */
const SETUP_DETAIL_LIMIT = 1_024;
/** What a cut adds after the characters kept: "… (N more characters)". */
const CUT_MARK_ROOM = 32;
/** A fix longer than this is left out rather than cut: a command cut short must not be pasted into a console. */
const SETUP_FIX_LIMIT = 4_096;

/**
 * A set-up check as /health shows it: detail and fix redacted as names are, and bounded. A fix is shown whole and as
 * written, or not at all, the detail saying why: one the redaction would change names `[REDACTED…]` where the router
 * has a secret's text (a command that cannot be pasted), one too long would have to be cut. Why the audit offered
 * none (`noFix`) is added after the cut, so it is never cut off.
 */
function boundedCheck<T extends { detail?: string | undefined; fix?: string | undefined; noFix?: string | undefined }>(check: T): Omit<T, 'noFix'> {
  const { noFix, ...shown } = check;
  const notes = noFix === undefined ? [] : [noFix];
  let fix = check.fix === undefined ? undefined : redactSecretsDistinct(check.fix);
  if (fix !== undefined && fix !== check.fix) {
    notes.push('the fix is left out: a name in it holds text the exporter redacts as a secret, so it could not be pasted');
    fix = undefined;
  } else if (fix !== undefined && fix.length > SETUP_FIX_LIMIT) {
    notes.push(`the fix is left out: it would be ${fix.length} characters long`);
    fix = undefined;
  }
  const note = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
  // Within the bound, note included.
  const detail = check.detail === undefined ? (note === '' ? undefined : note.trim()) : `${namedLine(check.detail, SETUP_DETAIL_LIMIT - CUT_MARK_ROOM - note.length)}${note}`;
  const { fix: _fix, detail: _detail, ...rest } = shown;
  return { ...rest, ...(detail === undefined ? {} : { detail }), ...(fix === undefined ? {} : { fix }) } as Omit<T, 'noFix'>;
}

/** Every stored peer judged at `now` (the one verdict, analysis/peer.ts), with a problem for each that is one. */
function* judgePeers(
  router: RouterConfig,
  wireguard: WireguardData | undefined,
  interfaceNamed: ReadonlyMap<string, InterfaceHealth>,
  now: number,
  add: AddProblem,
  pausedMs = 0,
): Steps<PeerJudgement[]> {
  const unjudged: Unjudged = { handshake: [], facts: [], traffic: [], unconfirmed: [] };
  const peers: PeerJudgement[] = [];
  const collectedAt = wireguard?.collectedAt ?? now;
  // A handshake newer than the last read is not seen until the next: judged by the clock as soon as the bound
  // passed, a live peer that rekeyed after the read was called down until the next collection, /health critical and
  // a stale-then-recovered pair of log lines every cycle on a 30 s or longer schedule (found by review). So a peer
  // ages by the clock only once a collection is overdue: from one `wireguard` interval after the read, but never
  // more than 2 minutes after it: with an hourly schedule, a dead tunnel stayed healthy for the hour (found by
  // review). Schedules longer than that trade precision between reads either way (docs/health.md). The next run
  // lands at its slot plus its reads' time, up to three of the router's timeouts (two reads in a row and the uptime),
  // where this one may have come at once: that much more, or a live peer read down for the seconds slow replies took
  // (found by review, twice: one reply's timeout was not a run's). Not the probes' time: that would wait minutes.
  // Nor the time the process did not run (paused, stopped): the next read is late by that much, the peers are not.
  const judgedAt = Math.max(collectedAt, now - Math.min(wireguardIntervalMs(router), MAX_READ_GRACE_MS) - wireguardReadsSeconds(router) * 1000 - pausedMs);
  // What a probe proved ages from when it ran by the clock, less the time the process did not run.
  const probedNow = Math.max(collectedAt, now - pausedMs);
  const bootedAt = wireguard?.bootedAt;
  // A peer without a handshake is due from the boot: up this long at the instant the handshakes are aged to.
  const upSeconds = bootedAt === undefined ? undefined : Math.max(0, judgedAt / 1000 - bootedAt);
  // The peers with a problem to word, worded once the names that repeat are known (found only when there are any).
  const problems: PeerJudgement[] = [];
  const stored = wireguard?.peers;
  for (let index = 0; index < (stored?.length ?? 0); index++) {
    if (stepEnds(index)) yield;
    // One object per peer, read from its row (no [index, peer] pair as well).
    const peer = (stored as KeptPeers).at(index) as WireguardPeer;
    // A stored time outside the era (kept from before range rules, or from a clock far ahead) cannot be judged.
    const outOfEra = peer.latestHandshake !== undefined && !inEra(peer.latestHandshake * 1000, now);
    const latestHandshake = outOfEra ? undefined : peer.latestHandshake;
    const unreadable = peer.handshakeUnreadable || outOfEra;
    // Never younger than at collection: a wall clock stepped back an hour made every down peer up, age 0, and
    // check say OK until the next collection. (Callers that give the monotonic clock age by it: steadyNow.)
    const age = latestHandshake === undefined ? undefined : Math.max(handshakeAgeAt(now, latestHandshake), handshakeAgeAt(collectedAt, latestHandshake));
    const judgedAge = latestHandshake === undefined ? undefined : Math.max(handshakeAgeAt(judgedAt, latestHandshake), handshakeAgeAt(collectedAt, latestHandshake));
    const iface = interfaceNamed.get(labelValueReadBack(peer.interface));
    const verdict = judgePeer(
      {
        name: peer.name,
        comment: peer.comment,
        interface: peer.interface,
        disabled: peer.disabled,
        handshakeAgeSeconds: judgedAge,
        handshakeUnreadable: unreadable,
        factsUnreadable: peer.factsUnreadable,
        interfaceDisabled: iface?.disabled === true,
        interfaceNotRunning: iface !== undefined && !iface.disabled && iface.running === false,
        keepaliveSeconds: peer.keepaliveSeconds,
        hasEndpoint: peer.hasEndpoint,
        rxMoved: peer.rxMoved,
        txMoved: peer.txMoved,
        // Decided at collection (wireguard.ts): whether rx that grew was an answer does not depend on when it is judged.
        rxUnanswered: peer.rxUnanswered === true,
        unansweredBefore: peer.unansweredBefore === true,
        // `check` only: its one window could not tell (PeerTable.markUnansweredUnconfirmed).
        unansweredBeforeUnknown: peer.unansweredUnconfirmed === true,
        rxMovedUnknown: peer.rxMovedUnknown === true,
        txMovedUnknown: peer.txMovedUnknown === true,
        // Due from the boot only for the peers the run judged so (wireguard.ts: no handshake, readable as none, a
        // keepalive or always up, no problem before).
        upSeconds: wireguard?.fromBoot?.has(index) === true ? upSeconds : undefined,
        // What a probe proved ages from when it ran (this collection, or the one whose result it reused). Given
        // as undefined rather than left out: one shape of literal, no spread (two objects per peer, every run).
        probe: peer.probe,
        // Not aged over a pause of the process either, as the handshake is not (judgedAt).
        probeAgeSeconds: peer.probe === undefined ? undefined : probeAgeAt(probedNow, peer.probedAt ?? collectedAt),
      },
      router.health,
    );
    const judgement: PeerJudgement = { peer, verdict, latestHandshake, ageSeconds: age, bootedAt };
    peers.push(judgement);
    // Most peers are ok or idle, which are no problem: nothing to word for them.
    if (verdict.reason !== 'ok' && verdict.reason !== 'idle') problems.push(judgement);
  }
  if (problems.length > 0) {
    const repeated = yield* repeatedNamesOf(peers);
    const sinceBoot = bootedAt === undefined ? undefined : Math.max(0, now / 1000 - bootedAt);
    for (const { peer, verdict, ageSeconds } of problems) {
      const probeAge = peer.probe === undefined ? undefined : probeAgeAt(now, peer.probedAt ?? collectedAt);
      problemOf(peer, verdict, ageSeconds, probeAge, add, unjudged, repeated, sinceBoot);
    }
  }
  // One problem per router and cause, not per peer: "we cannot see" them, which is not "fine" (docs/health.md).
  for (const [subjects, what] of [
    [unjudged.handshake, 'their last-handshake did not decode'],
    [unjudged.facts, 'their disabled or persistent-keepalive did not decode, or whether their interface runs is not known'],
    [unjudged.traffic, 'whether their rx or tx grew is not known, and their verdict hangs on it'],
    // `check` only: the growth is known, whether it went unanswered two windows in a row is not (one window;
    // PeerTable.markUnansweredUnconfirmed).
    [unjudged.unconfirmed, 'their tx grew unanswered (rx did not grow, or grew with no session possible), and one window cannot tell a handshake in flight (its response lost or still on its way) from a link where none completes; their verdict hangs on it'],
  ] as const) {
    if (subjects.length === 0) continue;
    const count = counted(subjects.length, 'peer');
    const named = `${subjects.slice(0, 3).join(', ')}${subjects.length > 3 ? ` and ${subjects.length - 3} more` : ''}`;
    add({ kind: 'peer-unjudged', status: 'degraded', subject: 'wireguard', text: `cannot judge ${count}: ${what} (${named})`, brief: `cannot judge ${count}` });
  }
  return peers;
}

/** Peers that could not be judged, by what is not known of them. */
interface Unjudged {
  handshake: string[];
  facts: string[];
  traffic: string[];
  /** Growth known, whether this side's sending went unanswered two windows in a row not (check's one window). */
  unconfirmed: string[];
}

/** The sets repeatedNamesOf found, by the judgements they were found for: /health's wording and the verdict log's share one. */
const repeatedFound = new WeakMap<readonly PeerJudgement[], Set<string>>();

/**
 * Interface and name pairs more than one peer shares (the same comment on two unnamed peers): their problems name
 * the key's start too, or two lines read the same and the operator cannot tell which peer is down. Found once per
 * evaluation, and only when something is worded: every run of every router is judged.
 */
export function* repeatedNamesOf(judgements: readonly PeerJudgement[]): Steps<Set<string>> {
  const known = repeatedFound.get(judgements);
  if (known !== undefined) return known;
  const seen = new Set<string>();
  const repeated = new Set<string>();
  // An index, not entries(): in a generator each pair and iterator step is an object per peer.
  for (let index = 0; index < judgements.length; index++) {
    if (stepEnds(index)) yield;
    const { peer } = judgements[index] as PeerJudgement;
    if (peer.name === '') continue;
    const key = subjectKey(peer);
    if (seen.has(key)) repeated.add(key);
    else seen.add(key);
  }
  repeatedFound.set(judgements, repeated);
  return repeated;
}

/**
 * Plain text whose written form no cut reaches: printable ASCII of at most 63 characters. An echoed password is
 * written as a tag of 19 characters, from 4: even a name made of nothing else stays under the 300 of the cut. A
 * longer plain name was taken as written while passwords in it grew it past the cut, and two names read alike
 * (found by review). Real names are shorter; longer ones are cleaned, which costs more, and are few. Not redacted
 * here (redacting every name at every evaluation would cost more than the rest of it): a short plain name holding
 * an echoed password and a twin of it with a control character read alike and are not told apart (review 99).
 */
const PLAIN_SUBJECT = /^[\x20-\x7e]{0,63}$/;

/**
 * A named peer's subject as written: two peers alike there read alike in /health and check, whatever their raw
 * names (names that differ past the cut, or only in characters that are stripped, read the same; found by review).
 * Plain, short names are their own key, so a hub's thousands of peers cost no cleaning here.
 */
function subjectKey(peer: PeerJudgement['peer']): string {
  const raw = `${peer.interface}/${peer.name}`;
  return PLAIN_SUBJECT.test(raw) ? raw : namedLine(raw, ROUTER_TEXT_LIMIT);
}

function isRepeated(peer: PeerJudgement['peer'], repeated: ReadonlySet<string>): boolean {
  return peer.name !== '' && repeated.size > 0 && repeated.has(subjectKey(peer));
}

/** A repeated name as shown: cut first, then its key's start, which no later cut may take. */
function repeatedName(peer: PeerJudgement['peer']): string {
  return `${namedLine(peerDisplayName(peer.name, peer.publicKey), REPEATED_NAME_CHARS)} (${keyStart(peer.publicKey)})`;
}

/**
 * A peer's name as the verdict log says it: with its key's start where another peer of its interface reads alike
 * (`repeated`, from repeatedNamesOf), as /health and check say it, so two same-named peers' lines differ.
 */
export function peerLogName(peer: PeerJudgement['peer'], repeated: ReadonlySet<string>): string {
  return isRepeated(peer, repeated) ? repeatedName(peer) : peerDisplayName(peer.name, peer.publicKey);
}

function problemOf(
  peer: PeerJudgement['peer'],
  verdict: PeerVerdict,
  age: number | undefined,
  probeAge: number | undefined,
  add: AddProblem,
  unjudged: Unjudged,
  repeated: ReadonlySet<string>,
  upSeconds: number | undefined,
): void {
  const shown = peerDisplayName(peer.name, peer.publicKey);
  // Two peers of one interface sharing a name are told apart by their keys' start, which a cut of the whole subject
  // must not take: the interface and the name are cut first (a long shared comment read alike, found by review).
  const subject = isRepeated(peer, repeated)
    ? `${namedLine(peer.interface, REPEATED_INTERFACE_CHARS)}/${repeatedName(peer)}`
    : `${peer.interface}/${shown}`;
  const why = verdict.because === 'keepalive' ? `keepalive ${formatAge(peer.keepaliveSeconds)}` : verdict.because === 'sending' ? 'traffic waiting' : 'expected always on';
  if (verdict.reason === 'stale' && age !== undefined) {
    const ago = `last handshake ${formatAge(age)} ago`;
    const bound = formatAge(verdict.boundSeconds ?? 0);
    // Down inside its bound: judged by the probe (no session, and its pings started no handshake that answered).
    const text =
      peer.probe === 'failed' && verdict.boundSeconds !== undefined && age <= verdict.boundSeconds
        ? `down, ${ago}: no session, and a ping through the tunnel got no reply (${why})`
        : `down, ${ago} (due within ${bound}, ${why})`;
    add({ kind: 'peer-stale', status: 'critical', subject, text, brief: ago });
  } else if (verdict.reason === 'stale') {
    // Down with no handshake read: a ping answered through the tunnel was its last sign, and that is past the bound
    // too. Left unworded, the peer's entry said critical while its router read ok, and check said OK (found by review).
    const seen = probeAge === undefined ? 'no handshake read' : `no handshake read, and a ping through the tunnel last answered ${formatAge(probeAge)} ago`;
    add({ kind: 'peer-stale', status: 'critical', subject, text: `down: ${seen} (due within ${formatAge(verdict.boundSeconds ?? 0)}, ${why})`, brief: 'no handshake' });
  } else if (verdict.reason === 'probe_failed' && !verdict.healthy) {
    add({ kind: 'peer-blocked', status: 'critical', subject, text: 'handshake fresh but a ping through the tunnel got no reply: check allowed-address and routes', brief: 'probe failing' });
  } else if (verdict.reason === 'probe_partial') {
    const lost = `probe lost ${Math.round((peer.probeLossRatio ?? 0) * 100)} % through the tunnel`;
    add({ kind: 'peer-probe-loss', status: 'degraded', subject, text: `up, but ${lost}`, brief: lost });
  } else if (verdict.reason === 'never') {
    // "Never" is untrue of a peer that shook hands before a reboot: with the router's start read, said so.
    const text = upSeconds === undefined ? `never shook hands (${why})` : `no handshake since the router started ${formatAge(upSeconds)} ago (${why})`;
    add({ kind: 'peer-never', status: 'critical', subject, text, brief: 'never' });
  } else if (verdict.reason === 'handshake_unreadable') {
    unjudged.handshake.push(subject);
  } else if (verdict.reason === 'unreadable') {
    // Unreadable only for the growth it could not tell (judgePeer) when its own facts read.
    // Growth not told is said before what one window cannot tell: a row check marked may have both.
    const trafficUnknown = peer.rxMovedUnknown === true || peer.txMovedUnknown === true;
    (peer.factsUnreadable ? unjudged.facts : peer.unansweredUnconfirmed === true && !trafficUnknown ? unjudged.unconfirmed : unjudged.traffic).push(subject);
  }
}

/** A judged peer as /health shows it. */
function peerHealthOf(judgement: PeerJudgement): PeerHealth {
  const { peer, verdict, latestHandshake, ageSeconds } = judgement;
  return {
    interface: labelValueReadBack(peer.interface),
    name: labelValueReadBack(peer.name),
    publicKey: labelValueReadBack(peer.publicKey),
    latestHandshake: latestHandshake === undefined ? null : isoOrNull(latestHandshake * 1000),
    handshakeAgeSeconds: ageSeconds ?? null,
    healthy: verdict.healthy,
    judged: verdict.judged,
    reason: verdict.reason,
    state: verdict.state,
    expected: verdict.expected,
    handshakeExpectedBy: isoOrNull(handshakeExpectedByMs(judgement)),
    handshakeBoundSeconds: verdict.boundSeconds ?? null,
    ...(peer.probe === undefined ? {} : { probe: peer.probe }),
    ...(peer.probeRttSeconds === undefined ? {} : { probeRttSeconds: peer.probeRttSeconds }),
    ...(peer.probeLossRatio === undefined ? {} : { probeLossRatio: peer.probeLossRatio }),
    status: peerStatus(verdict),
  };
}

/** A peer's part in its router's status: critical when judged unhealthy, degraded when it cannot be judged or the probe lost some pings. */
export function peerStatus(verdict: PeerVerdict): Status {
  if (verdict.judged && !verdict.healthy) return 'critical';
  return isUnreadable(verdict.reason) || verdict.reason === 'probe_partial' ? 'degraded' : 'ok';
}

/**
 * Unix ms by which the peer's next handshake is due; undefined when none is expected, or it has none and the
 * router's start was not read.
 */
export function handshakeExpectedByMs({ verdict, latestHandshake, peer, bootedAt }: Pick<PeerJudgement, 'verdict' | 'latestHandshake' | 'peer' | 'bootedAt'>): number | undefined {
  const by = handshakeExpectedBy(verdict, latestHandshake, peer.probe, peer.probedAt, bootedAt);
  return by === undefined ? undefined : by * 1000;
}

/** How much of a repeated name's interface and name a subject keeps, so its key start fits ROUTER_TEXT_LIMIT after them. */
const REPEATED_INTERFACE_CHARS = 100;
const REPEATED_NAME_CHARS = 120;

/** The most a handshake's aging by the clock waits for the next `wireguard` read. */
const MAX_READ_GRACE_MS = 120_000;

/** The longest gap between two `wireguard` runs of the router (ms); 0 when its schedule cannot be read. */
function wireguardIntervalMs(router: RouterConfig): number {
  try {
    return cronIntervalSeconds(router.schedules.wireguard) * 1000;
  } catch {
    return 0;
  }
}
