/**
 * Verdict changes, for the log: one line when something goes bad (peer stale or never connected, interface
 * down, router down, ping losing packets, set-up check failing) and one when it recovers, never one per
 * collection. Pure: `observe` turns an evaluation into states, `diff` compares them with the last ones.
 * When a part had no data this time (router down, collector failed, or not evaluated), its last known states
 * carry over, so an outage does not make every stale peer "new" again afterwards.
 *
 * What is kept between evaluations is compact on purpose: a key and a shared state object per peer, interface,
 * set-up check and ping. The wording of a line is made only when its state changes (at 100 routers × 1,000
 * peers, keeping formatted messages for every peer cost tens of MB and most of the watcher's garbage).
 */
import type { RouterConfig } from '../config/types.js';
import { formatAge, formatPercent, isoOrNull } from './format.js';
import { handshakeExpectedByMs, peerLogName, peerStatus, repeatedNamesOf } from './evaluate.js';
import { isUnreadable } from '../analysis/peer.js';
import type { PeerJudgement, RouterEvaluation } from './types.js';
import { finish, type Steps } from '../util/slices.js';

export interface VerdictState {
  readonly state: string;
  readonly bad: boolean;
}

export type LogFields = Record<string, string | number | null>;

export interface Observation extends VerdictState {
  /** The line logged when entering this state: a warning when bad, else an info line (only after a bad state). */
  describe(): { message: string; fields: LogFields };
}

export type Group = 'router' | 'wireguard' | 'setup' | 'pings';

/** The last known states of a router, by group; a group's map is replaced whole when the group is seen. */
export type Observed = Readonly<Record<Group, ReadonlyMap<string, VerdictState>>>;

export interface LogLine {
  level: 'warn' | 'info';
  message: string;
  fields: LogFields;
}

function groupOf(key: string): Group {
  const group = key.slice(0, key.indexOf(':'));
  return group === 'interface' ? 'wireguard' : group === 'setup' ? 'setup' : group === 'ping' ? 'pings' : 'router';
}

/** One object per distinct state, shared by every key in it: the kept maps hold pointers, not copies. */
const SHARED = new Map<string, VerdictState>();

function shared(state: string, bad: boolean): VerdictState {
  const id = `${bad ? '!' : ''}${state}`;
  let out = SHARED.get(id);
  if (out === undefined) {
    out = Object.freeze({ state, bad });
    SHARED.set(id, out);
  }
  return out;
}

/** observeSteps in one go. */
export function observe(evaluation: RouterEvaluation, router: RouterConfig): Map<string, Observation> {
  return finish(observeSteps(evaluation, router));
}

/**
 * The router, its interfaces, set-up checks and pings (peers, by the thousand, go through diffPeers), in steps
 * that may pause every few hundred interfaces: a hub of 20,000 took 56–88 ms on every wireguard run.
 */
export function* observeSteps(evaluation: RouterEvaluation, router: RouterConfig): Steps<Map<string, Observation>> {
  const { health, problems } = evaluation;
  const name = health.name;
  const out = new Map<string, Observation>();
  const routerState = health.up === null ? 'unknown' : health.up ? 'up' : 'down';
  out.set('router:', {
    state: routerState,
    bad: routerState === 'down',
    describe: () => {
      const downText = problems.find((problem) => problem.kind === 'router-down')?.text ?? 'down';
      // Out of down into unknown (a reload restarted the router's entry, and another run landed before its system
      // run) is not "up again": that is said once a run tells (found by review).
      if (routerState === 'unknown') {
        return { message: `router ${name}: whether it is up is not known now (no run that tells has landed since it was down)`, fields: { event: 'router_unknown' } };
      }
      return {
        message: routerState === 'down' ? `router ${name} ${downText}` : `router ${name} up again`,
        fields: { event: routerState === 'down' ? 'router_down' : 'router_up' },
      };
    },
  });
  for (const [index, iface] of health.interfaces.entries()) {
    if (index % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
    const state = iface.disabled ? 'disabled' : iface.running === false ? 'down' : iface.running === true ? 'running' : 'unknown';
    out.set(`interface:${iface.name}`, {
      state,
      bad: state === 'down',
      describe: () => ({
        message:
          state === 'down'
            ? `interface ${iface.name} on ${name} is enabled but not running`
            : state === 'unknown'
              ? `interface ${iface.name} on ${name}: whether it runs is not known now (its running did not decode)`
              : `interface ${iface.name} on ${name} ${state === 'disabled' ? 'was disabled' : 'is running again'}`,
        fields: { event: state === 'down' ? 'interface_down' : state === 'unknown' ? 'interface_unknown' : 'interface_up', interface: iface.name },
      }),
    });
    for (const check of iface.setup ?? []) {
      out.set(`setup:${iface.name}\u0000${check.check}`, {
        state: check.ok ? 'pass' : 'fail',
        bad: !check.ok,
        describe: () => {
          const fix = check.fix === undefined ? '' : ` Fix: ${check.fix.replaceAll('\n', ' ; ')}`;
          return {
            message: check.ok
              ? `set-up check ${check.check} passes again on ${name}/${iface.name}`
              : `set-up check ${check.check} fails on ${name}/${iface.name}: ${check.detail ?? ''}.${fix}`,
            fields: { event: check.ok ? 'setup_check_passed' : 'setup_check_failed', interface: iface.name, check: check.check },
          };
        },
      });
    }
  }
  for (const ping of health.pings) {
    // Not run yet is start-up, not news.
    const state = ping.lastRun === null ? 'pending' : ping.error !== undefined ? 'failed' : ping.status;
    out.set(`ping:${ping.name}\u0000${ping.target}`, {
      state,
      bad: state !== 'pending' && ping.status !== 'ok',
      describe: () => {
        const who = `ping ${ping.name}${ping.name === ping.target ? '' : ` to ${ping.target}`} from ${name}`;
        const loss = ping.lossRatio === null ? 'no result' : `${formatPercent(ping.lossRatio)} loss`;
        return {
          message:
            ping.status === 'ok'
              ? `${who} recovered (${loss})`
              : ping.error !== undefined
                ? `${who} could not run (${ping.error})`
                : `${who}: ${loss}${ping.status === 'critical' ? ` (critical at ${formatPercent(router.health.pingLossCritical)})` : ''}`,
          fields: { event: ping.status === 'ok' ? 'ping_recovered' : `ping_${ping.status}`, target: ping.target, ping: ping.name, loss_ratio: ping.lossRatio },
        };
      },
    });
  }
  return out;
}

const GROUPS: readonly Group[] = ['router', 'wireguard', 'setup', 'pings'];
const NOTHING: ReadonlyMap<string, VerdictState> = new Map();

/**
 * Lines worded per router and run; the run's other changes are counted in one line. A hub's outage (12,500 of
 * 75,000 peers stale at once) made 12,500 lines in one run: 0.2–0.3 s of logging alone, and a log nobody reads
 * line by line. /health lists every part.
 */
export const MAX_LINES_PER_RUN = 100;

/** Items read between two pauses of the steps. */
const ITEMS_PER_STEP = 256;

/** A run's lines, for all its parts and peers: the first MAX_LINES_PER_RUN worded, the others counted. */
export class RunLines {
  readonly #lines: LogLine[] = [];
  #untoldBad = 0;
  #untoldBetter = 0;

  /** A change into a bad state (`bad`) or out of one: worded while there is room (`word` is called only then). */
  add(bad: boolean, word: () => { message: string; fields: LogFields }): void {
    if (this.#lines.length < MAX_LINES_PER_RUN) this.#lines.push({ level: bad ? 'warn' : 'info', ...word() });
    else if (bad) this.#untoldBad++;
    else this.#untoldBetter++;
  }

  /** The worded lines, and one counting the changes past MAX_LINES_PER_RUN when there are any. */
  lines(routerName: string): LogLine[] {
    const count = this.#untoldBad + this.#untoldBetter;
    if (count === 0) return this.#lines;
    const untold: LogLine = {
      level: this.#untoldBad > 0 ? 'warn' : 'info',
      message: `${count} more ${count === 1 ? 'change' : 'changes'} on ${routerName} in this run (${this.#untoldBad} went bad, ${this.#untoldBetter} recovered or stopped being a problem); only the first ${MAX_LINES_PER_RUN} are logged one by one, GET /health lists every peer, interface and check`,
      fields: { event: 'more_changes', went_bad: this.#untoldBad, recovered: this.#untoldBetter },
    };
    return [...this.#lines, untold];
  }
}

/** diffSteps in one go, a run of its own. */
export function diff(
  previous: Observed | undefined,
  current: ReadonlyMap<string, Observation>,
  seen: RouterEvaluation['seen'],
  routerName: string,
): { lines: LogLine[]; next: Observed } {
  const out = new RunLines();
  const next = finish(diffSteps(previous, current, seen, out));
  return { lines: out.lines(routerName), next };
}

/**
 * The lines to log (into `out`) and the states to keep, in steps that may pause every few hundred parts;
 * `previous` undefined is the first evaluation of the router.
 */
export function* diffSteps(
  previous: Observed | undefined,
  current: ReadonlyMap<string, Observation>,
  seen: RouterEvaluation['seen'],
  out: RunLines,
): Steps<Observed> {
  const isSeen = (group: Group): boolean => group === 'router' || seen[group];
  // A seen group starts afresh (a peer removed from the router is forgotten); an unseen one keeps its states.
  const fresh = new Map<Group, Map<string, VerdictState>>();
  const kept = (group: Group): Map<string, VerdictState> => {
    let map = fresh.get(group);
    if (map === undefined) {
      map = isSeen(group) ? new Map() : new Map(previous?.[group] ?? NOTHING);
      fresh.set(group, map);
    }
    return map;
  };
  for (const group of GROUPS) if (isSeen(group)) kept(group);
  let read = 0;
  for (const [key, now] of current) {
    if (++read % ITEMS_PER_STEP === 0) yield;
    const group = groupOf(key);
    // An unseen group keeps its last states and says nothing: an interface known only from the set-up audit
    // while the wireguard collector fails is "unknown", not "running again".
    if (!isSeen(group)) continue;
    const before = previous?.[group].get(key);
    kept(group).set(key, shared(now.state, now.bad));
    if (before?.state === now.state) continue;
    if (now.bad || before?.bad === true) out.add(now.bad, () => now.describe());
  }
  const next = {} as Record<Group, ReadonlyMap<string, VerdictState>>;
  for (const group of GROUPS) next[group] = fresh.get(group) ?? previous?.[group] ?? NOTHING;
  return next;
}

/**
 * The bad states of a router's peers, by interface and public key. A peer in a state that is not bad is not kept:
 * moving between such states is no news, and going bad from any of them is. At 100 routers × 1,000 peers a key
 * and a state for every peer cost ~10 MB kept and ~100,000 keys made per cycle.
 */
export type BadPeers = ReadonlyMap<string, ReadonlyMap<string, VerdictState>>;

const NO_PEERS: BadPeers = new Map();

/**
 * A critical peer, and one that cannot be judged: "we cannot see it" is not "fine" (the router is degraded). A
 * probe's partial loss degrades the router too, but is noted, not news.
 */
function isBad({ verdict }: PeerJudgement): boolean {
  return peerStatus(verdict) === 'critical' || isUnreadable(verdict.reason);
}

/** diffPeersSteps in one go, a run of its own. */
export function diffPeers(
  previous: BadPeers | undefined,
  judgements: readonly PeerJudgement[],
  seen: boolean,
  routerName: string,
): { lines: LogLine[]; next: BadPeers } {
  const out = new RunLines();
  const next = finish(diffPeersSteps(previous, judgements, seen, routerName, out));
  return { lines: out.lines(routerName), next };
}

/**
 * The lines for peers whose state changed into or out of a bad one (into `out`), and the bad states to keep, in
 * steps that may pause every few hundred peers. Not `seen` (the wireguard part had no data): the last bad states
 * carry over.
 */
export function* diffPeersSteps(
  previous: BadPeers | undefined,
  judgements: readonly PeerJudgement[],
  seen: boolean,
  routerName: string,
  out: RunLines,
): Steps<BadPeers> {
  if (!seen) return previous ?? NO_PEERS;
  const next = new Map<string, Map<string, VerdictState>>();
  const changed: [judgement: PeerJudgement, bad: boolean][] = [];
  // An index, not entries(): in a generator each [index, judgement] pair and iterator step is an object per peer.
  for (let index = 0; index < judgements.length; index++) {
    if (index % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
    const judgement = judgements[index] as PeerJudgement;
    const { peer, verdict } = judgement;
    const bad = isBad(judgement);
    const before = previous?.get(peer.interface)?.get(peer.publicKey);
    if (bad) {
      let kept = next.get(peer.interface);
      if (kept === undefined) next.set(peer.interface, (kept = new Map()));
      kept.set(peer.publicKey, shared(verdict.reason, true));
    }
    // Still bad for the same reason is no news; any way out of a bad state is, even one keeping the reason's name
    // (a blocked tunnel no longer expected up stays `probe_failed`, but is no longer a problem).
    if (bad && before?.state === verdict.reason) continue;
    if (bad || before !== undefined) changed.push([judgement, bad]);
  }
  if (changed.length > 0) {
    // Which names repeat, found only when there are lines to word (they are few; peers may be thousands), in steps.
    const repeated = yield* repeatedNamesOf(judgements);
    for (const [judgement, bad] of changed) out.add(bad, () => describePeer(judgement, bad, routerName, repeated));
  }
  return next.size === 0 ? NO_PEERS : next;
}

function describePeer(judgement: PeerJudgement, bad: boolean, routerName: string, repeated: ReadonlySet<string>): { message: string; fields: LogFields } {
  const { peer, verdict, ageSeconds: age } = judgement;
  const who = `peer ${peerLogName(peer, repeated)} on ${routerName}/${peer.interface}`;
  let message: string;
  if (verdict.reason === 'stale' && judgement.latestHandshake !== undefined) {
    // Never throws: a time Date cannot print leaves the "since" out. Down before its bound (a probe that lost every
    // ping decided it): "since" would name a time still to come (found by review).
    const due = handshakeExpectedByMs(judgement);
    const judgedAt = (judgement.latestHandshake + (age ?? 0)) * 1000;
    const early = due !== undefined && due > judgedAt;
    const since = early ? null : isoOrNull(due);
    const why = early ? ', down before its handshake was due: its tunnel probe lost every ping' : '';
    message = `${who} stale${since === null ? '' : ` since ${since}`} (last handshake ${formatAge(age ?? 0)} ago${why})`;
  } else if (verdict.reason === 'never') {
    // With the router's start read (a run that found a keepalive peer without a handshake): "never" would be untrue
    // of a peer that shook hands before a reboot.
    const started = judgement.bootedAt === undefined ? null : isoOrNull(judgement.bootedAt * 1000);
    message = started === null ? `${who} has never shaken hands` : `${who} has not shaken hands since the router started at ${started}`;
  } else if (verdict.reason === 'handshake_unreadable') {
    message = `${who} cannot be judged: its last-handshake did not decode`;
  } else if (verdict.reason === 'unreadable') {
    message = peer.factsUnreadable
      ? `${who} cannot be judged: its disabled or persistent-keepalive did not decode, or whether its interface runs is not known`
      : `${who} cannot be judged: whether its rx or tx grew is not known (a counter that did not decode), and its verdict hangs on it`;
  } else if (verdict.reason === 'probe_failed' && bad) {
    // As /health words it (evaluate.ts): a bad probe_failed is a tunnel whose keys work and whose pings do not.
    message = `${who} is blocked: handshake fresh but a ping through the tunnel got no reply (check allowed-address and routes)`;
  } else if (verdict.reason === 'ok' && !bad) {
    message = `${who} recovered (last handshake ${formatAge(age ?? 0)} ago)`;
  } else if (bad) {
    // A bad state without words of its own above is still named as bad, never as "no longer a problem".
    message = `${who} is a problem (${verdict.reason.replaceAll('_', ' ')})`;
  } else if (verdict.judged) {
    message = `${who} is no longer a problem (${verdict.reason.replaceAll('_', ' ')})`;
  } else {
    message = `${who} is no longer judged (${verdict.reason.replaceAll('_', ' ')})`;
  }
  return {
    message,
    fields: {
      event: bad ? `peer_${verdict.reason}` : 'peer_recovered',
      interface: peer.interface,
      peer: peer.name,
      public_key: peer.publicKey,
      handshake_age_seconds: age ?? null,
    },
  };
}
