/**
 * The router's start, for the wireguard job: RouterOS forgets every handshake when it restarts, and a keepalive or
 * always-up peer without a handshake is due from the start (analysis/liveness.ts, docs/health.md "After a reboot"). Read only when
 * such a peer exists, and believed only when nothing the router says contradicts it: an uptime that is not one kept
 * a dead peer healthy for good (found by review).
 */
import type { RouterRecord } from '../routeros/records.js';
import { keepaliveOff, saysTrue } from '../routeros/decode.js';
import { FieldReader, given } from '../analysis/decoding.js';
import { bootedAtOf, keepaliveBoundSeconds } from '../analysis/liveness.js';
import { expectOf, peerLabel } from '../analysis/peer.js';
import type { HealthConfig } from '../config/types.js';
import type { JobContext, OptionalRead } from './types.js';
import { readUnlessFailed } from './optional-read.js';
import type { Steps } from '../util/slices.js';

/** Peers looked at between two pauses of the event loop. */
const PEERS_PER_STEP = 2_000;

/**
 * The longest bound (seconds) of the enabled peers that show no handshake, RouterOS's reply after a reboot, and would
 * get the grace: a keepalive peer (its keepalive bound), or a link declared `expect: always` (its
 * handshake_stale_after: the far end keeps it, whatever this side's keepalive); 0 when none. Only then is the uptime
 * read, so a router whose peers all shook hands, or whose peers without one are road warriors, pays no third
 * request. A keepalive that does not decode counts as an hour: it asks for the read, and a long window
 * (youngRestartSeconds) is the careful side.
 */
export function* uptimeWantedSteps(peers: readonly RouterRecord[], health: HealthConfig): Steps<number> {
  const keepalives = new FieldReader('interface/wireguard/peers');
  let longest = 0;
  // Loops over a run's peers count an index rather than take [index, record] pairs from entries(): inside a generator
  // each pair and each step of the iterator is an object, two per peer every run.
  for (let index = 0; index < peers.length; index++) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    const record = peers[index] as RouterRecord;
    if (saysTrue(record['disabled']) || given(record, 'last-handshake')) continue;
    if (keepaliveOff(record['persistent-keepalive'])) {
      if (graceWithoutKeepalive(record, health)) longest = Math.max(longest, health.handshakeStaleAfterSeconds);
      continue;
    }
    longest = Math.max(longest, keepaliveBoundSeconds(keepalives.value('keepalive', record, 'persistent-keepalive') ?? 3_600));
  }
  return longest;
}

/**
 * A peer without a keepalive that gets the grace after a restart all the same: a link declared `expect: always`. A
 * hub's entry for a branch behind NAT has none (the branch keeps the tunnel), and every such link paged on the hub's
 * reboot (found by review). A peer nothing is declared of has nothing to make it try again.
 */
export function graceWithoutKeepalive(record: RouterRecord, health: HealthConfig): boolean {
  return health.expect !== undefined && expectOf({ name: peerLabel(record['name'], record['comment']), comment: record['comment'], interface: record['interface'] ?? '' }, health) === 'always';
}

/** A start as read: Unix seconds, when the reply came (Unix ms), and how far off the reply's delay may put it (s). */
export interface BootRead {
  bootedAt: number;
  readAt: number;
  slackSeconds: number;
  /** When the reply came on the monotonic clock (ms; JobContext.elapsed): how long ago the read before was, whatever the wall clock did. */
  readElapsed?: number;
}

/**
 * The router's start from its uptime, read with a proplist of its own; undefined when the reply holds no readable
 * uptime or the read fails: the peers are then judged as before, without the start to count from (the read only
 * ever adds a grace, so its failure fails nothing; found by review).
 */
export async function readBoot(context: JobContext, read: FieldReader, optionalReads: OptionalRead[]): Promise<BootRead | undefined> {
  const sentAt = context.now();
  const record = await readUnlessFailed(
    context,
    () => context.client.getSingleton('system/resource', { proplist: ['uptime'], signal: context.signal }),
    "the router's start, for peers without a handshake (system/resource uptime)",
    optionalReads,
  );
  if (record === undefined) return undefined;
  const readAt = context.now();
  const readElapsed = context.elapsed?.() ?? performance.now();
  const uptime = read.age(record, 'uptime', readAt / 1000);
  if (uptime === undefined && !given(record, 'uptime')) read.problem('holds no uptime; peers without a handshake are judged without the boot');
  const bootedAt = bootedAtOf(readAt, uptime);
  // The uptime holds at some moment between the request and the reply, and is whole seconds: a slow reply shifted
  // the start by its delay, and a start read twice looked like two (found by review).
  return bootedAt === undefined ? undefined : { bootedAt, readAt, slackSeconds: Math.max(0, readAt - sentAt) / 1000 + 2, readElapsed };
}

/**
 * Two starts told this close are one: the reply's delay, the uptime's whole second, and the exporter's own clock
 * stepped by NTP (a step of 5 s cancelled a real restart's grace; found by review). An uptime that lags the clock
 * drifts further from the start as first told at every read, and is refused once past this.
 */
const SAME_START_SECONDS = 60;
/**
 * A start this soon after the one before is one of a series of restarts: an hour, or two wireguard intervals, or two
 * of the longest bound of the peers judged from the start, whichever is longest. With a fixed 10 minutes (then an
 * hour) a schedule or a keepalive bound longer than that let a router restarting (or claiming to) just past the
 * window keep a dead peer healthy for good (found by review, twice).
 */
export function youngRestartSeconds(intervalSeconds: number, longestBoundSeconds = 0): number {
  return Math.max(3_600, 2 * intervalSeconds, 2 * longestBoundSeconds);
}
/**
 * Restarts in a row, each soon after the one before, that are still believed: an upgrade restarts twice (the
 * packages, then the RouterBOOT firmware), and a second restart must not page every branch (found by review). A third
 * is a reboot loop, or an uptime that restarts at every read.
 */
const RESTARTS_BELIEVED = 2;

/**
 * The start as read, or undefined when it is not to be believed; without a read (it failed, or told no uptime), the
 * start believed before (rememberedStartSteps). Compared with the start believed before (the job's
 * memory): a new start must lie after the read before, as a restart's does (an uptime that stopped, or runs slow,
 * puts it before), and not be the third of restarts in a row each soon after the one before (`youngSeconds`).
 * Compared with the peers (as of `peersReadAt`, Unix ms): none may have shaken hands before it, as RouterOS forgets
 * handshakes when it restarts.
 */
export function* believedBootSteps(
  read: BootRead | undefined,
  peersReadAt: number,
  peers: readonly RouterRecord[],
  memory: Map<string, number>,
  youngSeconds: number,
  /** When the peers were read on the monotonic clock (ms): places a start remembered on the wall clock as it now reads. */
  peersReadElapsed?: number,
): Steps<number | undefined> {
  if (read === undefined) return yield* rememberedStartSteps(peersReadAt, peers, memory, peersReadElapsed);
  const { bootedAt, readAt, slackSeconds, readElapsed } = read;
  // The start last believed, as first read (an uptime that lags drifts a little at every read: compared with the
  // start as first told, the drift adds up), with that read's slack, and when the router was last read.
  const anchor = memory.get('boot.at');
  const anchorSlack = memory.get('boot.slack') ?? 2;
  // The start on the monotonic clock (s): the same start whatever the wall clock did since (sameStart).
  const startElapsed = readElapsed === undefined ? undefined : readElapsed / 1000 - (readAt / 1000 - bootedAt);
  const readBefore = readBeforeOnThisClock(readAt, readElapsed, memory.get('boot.readAt'), memory.get('boot.readElapsed'));
  const restartsBefore = memory.get('boot.restarts') ?? 0;
  memory.set('boot.readAt', readAt);
  if (readElapsed === undefined) memory.delete('boot.readElapsed');
  else memory.set('boot.readElapsed', readElapsed);
  // What this read says of the series of starts: undefined when it is the start believed before.
  let restarts: number | undefined;
  if (anchor === undefined || readBefore === undefined) {
    // Nothing to compare with (the first read, or the exporter restarted): a young start counts as a restart, so the
    // third in a row is refused whatever was read before it.
    restarts = readAt / 1000 - bootedAt < youngSeconds ? 1 : 0;
  } else if (sameStart(bootedAt, anchor, startElapsed, memory.get('boot.atElapsed'), slackSeconds + anchorSlack + SAME_START_SECONDS)) {
    // The same start.
  } else if (bootedAt < readBefore / 1000 - slackSeconds) {
    // Up since `anchor` at the last read, yet started before that read now: not a restart. The start believed stays.
    return undefined;
  } else {
    restarts = bootedAt - anchor < youngSeconds ? restartsBefore + 1 : 1;
  }
  // Checked before the start is remembered: one a peer's handshake disproves is no start at all, and remembered it
  // would have counted as a restart against a real one after it (found by review).
  if (yield* shookHandsBeforeSteps(peers, peersReadAt, bootedAt - slackSeconds)) return undefined;
  if (restarts !== undefined) {
    memory.set('boot.at', bootedAt);
    memory.set('boot.slack', slackSeconds);
    if (startElapsed === undefined) memory.delete('boot.atElapsed');
    else memory.set('boot.atElapsed', startElapsed);
    memory.set('boot.restarts', restarts);
  }
  if ((memory.get('boot.restarts') ?? 0) > RESTARTS_BELIEVED) return undefined;
  return bootedAt;
}

/**
 * When the read before was (Unix ms), on the wall clock as it reads now: the earlier of its wall-clock time and this
 * read's time less the monotonic time between the two. A start is refused when it lies before the read before (an
 * uptime that stopped); with the read before stamped on a wall clock since stepped back, a real restart after it lay
 * "before" it, and every branch of a hub rebooted after the step paged as `never` through its grace (found by a
 * hostile tester). The earlier of the two, as the counter window takes the longer: a host suspended stops the
 * monotonic clock, a clock stepped back shortens the wall-clock span; the longer span is the one that refuses less.
 */
function readBeforeOnThisClock(readAt: number, readElapsed: number | undefined, readBefore: number | undefined, readBeforeElapsed: number | undefined): number | undefined {
  if (readBefore === undefined || readElapsed === undefined || readBeforeElapsed === undefined) return readBefore;
  return Math.min(readBefore, readAt - Math.max(0, readElapsed - readBeforeElapsed));
}

/**
 * Whether two starts told are one: within `tolerance` s on the wall clock, or, when the wall clock was stepped back
 * since the start was believed (it gained less than the monotonic clock), on the monotonic clock. Such a step moved the
 * start told by the step, and a step of more than a minute made it a new start lying before the read before: refused,
 * every branch in its grace paged (found by a hostile tester). Only then: a host suspended stops the monotonic clock
 * (the wall clock gained more), and the wall clock holds.
 */
function sameStart(bootedAt: number, anchor: number, startElapsed: number | undefined, anchorElapsed: number | undefined, tolerance: number): boolean {
  if (Math.abs(bootedAt - anchor) <= tolerance) return true;
  if (startElapsed === undefined || anchorElapsed === undefined) return false;
  const steppedBack = bootedAt - startElapsed < anchor - anchorElapsed - tolerance;
  return steppedBack && Math.abs(startElapsed - anchorElapsed) <= tolerance;
}

/** Whether some peer's handshake (as of `peersReadAt`, Unix ms) lies before `seconds` (Unix s). */
function* shookHandsBeforeSteps(peers: readonly RouterRecord[], peersReadAt: number, seconds: number): Steps<boolean> {
  const ages = new FieldReader('interface/wireguard/peers');
  for (let index = 0; index < peers.length; index++) {
    if (index % PEERS_PER_STEP === PEERS_PER_STEP - 1) yield;
    const record = peers[index] as RouterRecord;
    if (!given(record, 'last-handshake')) continue;
    const age = ages.age(record, 'last-handshake', peersReadAt / 1000);
    if (age !== undefined && peersReadAt / 1000 - age < seconds) return true;
  }
  return false;
}

/**
 * The start believed before, for a run whose read of the uptime failed (or told none): it stands until a read says
 * otherwise, unless a peer's handshake now lies before it (the router restarted since and a peer shook hands after
 * that restart; or the start was no start). Before, such a run judged every branch in its grace `never`: a hub whose
 * uptime read timed out once in the minutes after its reboot, when routers answer slowly, paged every branch for a
 * cycle, then called them recovered (found by a hostile tester). A restart since that the read would have told makes
 * the start remembered older than the true one: its grace is shorter, never longer.
 */
function* rememberedStartSteps(peersReadAt: number, peers: readonly RouterRecord[], memory: Map<string, number>, peersReadElapsed: number | undefined): Steps<number | undefined> {
  const remembered = memory.get('boot.at');
  if (remembered === undefined || (memory.get('boot.restarts') ?? 0) > RESTARTS_BELIEVED) return undefined;
  // On the wall clock as it now reads: the earlier of the start as stamped and the start the monotonic clock places (a
  // wall clock stepped back since made the stamp later by the step, a grace longer by it; a suspend makes the
  // monotonic one later): never a later start, so never a longer grace.
  const anchorElapsed = memory.get('boot.atElapsed');
  const placed = anchorElapsed === undefined || peersReadElapsed === undefined ? remembered : peersReadAt / 1000 - (peersReadElapsed / 1000 - anchorElapsed);
  const anchor = Math.round(Math.min(remembered, placed));
  if (yield* shookHandsBeforeSteps(peers, peersReadAt, anchor - (memory.get('boot.slack') ?? 2))) return undefined;
  return anchor;
}
